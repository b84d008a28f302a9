"""Property tests: on random small programs (MLPs and CNNs with residual adds, batch norm,
dropout with a fixed seed, three optimizers), every combination of the fusion passes,
enable_inplace, enable_addto, memory_optimize, sequential execution and num_threads trains to results
bit-identical to the plain run: losses, a fetched intermediate and every parameter."""
from unittest import mock

import numpy as np
from hypothesis import given, settings, strategies as st

import refimpl as paddle
from refimpl import fluid, static
from refimpl.executor import scheduler
from refimpl.framework import unique_name
from refimpl.framework.scope import Scope

ACTS = {"relu": paddle.nn.functional.relu, "tanh": paddle.tanh, "sigmoid": paddle.nn.functional.sigmoid}
FUSIONS = ("fuse_elewise_add_act_ops", "fuse_bn_act_ops", "fuse_bn_add_act_ops",
           "fuse_relu_depthwise_conv", "fuse_all_optimizer_ops")
OPTIMIZERS = {"sgd": lambda: paddle.optimizer.SGD(0.05),
              "momentum": lambda: paddle.optimizer.Momentum(0.05, momentum=0.9),
              "adam": lambda: paddle.optimizer.Adam(0.01)}

# A layer is (activation, residual add, batch norm). Every model starts with layers that
# give each fusion something to fuse (random search alone rarely draws them all): a plain
# relu layer (bias add + relu, or relu + depthwise conv), a residual add + tanh,
# bn + add + relu, bn + relu; random layers follow.
COVERING = [("relu", False, False), ("tanh", True, False), ("relu", True, True),
            ("relu", False, True)]
extra_layers = st.lists(st.tuples(st.sampled_from(sorted(ACTS)), st.booleans(),
                                  st.booleans()), max_size=2)
models = st.fixed_dictionaries({
    "kind": st.sampled_from(["mlp", "cnn"]), "layers": extra_layers.map(COVERING.__add__),
    "width": st.integers(2, 6), "dropout": st.booleans(),
    "optimizer": st.sampled_from(sorted(OPTIMIZERS)), "seed": st.integers(0, 1000)})


def bias_attr():
    """Biases start at 0.1, not 0: a row that an earlier relu zeroed whole reaches the next
    relu as its bias alone, and a bias of 0 plus one step's rounding noise (1e-11, either
    sign on either side of a comparison) decides whether that relu passes a gradient, so
    N places and one place (different sums, same maths) would part by a whole gradient."""
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1))


def _mlp_layer(h, width, act, residual, bn, attr):
    if bn:
        z = static.nn.batch_norm(static.nn.fc(h, width, weight_attr=attr(),
                                              bias_attr=bias_attr()),
                                 act=None if residual else act)
    else:
        z = static.nn.fc(h, width, activation=None if residual else act, weight_attr=attr(),
                         bias_attr=bias_attr())
    return ACTS[act](z + h) if residual else z


def _cnn_layer(h, width, act, residual, bn, attr):
    z = fluid.layers.conv2d(h, width, 3, padding=1, param_attr=attr(), bias_attr=bias_attr())
    if bn:
        z = fluid.layers.batch_norm(z, act=None if residual else act)
    if residual:
        return ACTS[act](z + h)
    if not bn:   # relu then a depthwise conv: what fuse_relu_depthwise_conv looks for
        z = fluid.layers.conv2d(ACTS[act](z), width, 3, padding=1, groups=width,
                                param_attr=attr(), bias_attr=bias_attr())
    return z


def build(model):
    """(main, startup, loss, name of a hidden activation to fetch) for a model spec."""
    main, startup = static.Program(), static.Program()
    width = model["width"]
    with static.program_guard(main, startup), unique_name.guard():
        init = paddle.nn.initializer.Uniform(-0.5, 0.5, seed=model["seed"] + 1)
        attr = lambda: paddle.ParamAttr(initializer=init)   # noqa: E731
        if model["kind"] == "mlp":
            h = static.data("x", [None, width], "float32")
            layer = _mlp_layer
        else:
            h = static.data("x", [None, width, 4, 4], "float32")
            layer = _cnn_layer
        hidden = []
        for act, residual, bn in model["layers"]:
            h = layer(h, width, act, residual, bn, attr)
            hidden.append(h.name)
        if model["dropout"]:
            h = fluid.layers.dropout(h, 0.3, seed=7)
        if model["kind"] == "cnn":
            h = fluid.layers.pool2d(h, 2, "max", 2)
        loss = paddle.mean(static.nn.fc(h, 3, weight_attr=attr()))
        OPTIMIZERS[model["optimizer"]]().minimize(loss)
    return main, startup, loss, hidden[model["seed"] % len(hidden)]


def train(model, strategy=None, exec_strategy=None, steps=3):
    # every op counts as heavy, so num_threads > 1 really runs ops on helper threads (by
    # default only ops measured over 1 ms would, and these are microseconds)
    with mock.patch.object(scheduler, "MIN_HANDOFF_S", 0):
        return _train(model, strategy, exec_strategy, steps)


def _train(model, strategy, exec_strategy, steps):
    main, startup, loss, hidden = build(model)
    scope = Scope()
    exe = static.Executor()
    exe.run(startup, scope=scope)
    prog = main if strategy is None and exec_strategy is None else \
        static.CompiledProgram(main, build_strategy=strategy)
    if exec_strategy is not None:
        prog._exec_strategy = exec_strategy
    rng = np.random.RandomState(model["seed"])
    shape = (4, model["width"]) + ((4, 4) if model["kind"] == "cnn" else ())
    fetched = []
    for _ in range(steps):
        feed = {"x": rng.randn(*shape).astype("float32")}
        fetched.append(exe.run(prog, feed=feed, fetch_list=[loss, hidden], scope=scope))
    params = {p.name: np.array(scope.find_var(p.name).get_tensor())
              for p in main.all_parameters()}
    return fetched, params


def strategies(fuse, inplace, memory_optimize, sequential, threads, addto=False):
    strategy = static.BuildStrategy()
    for flag in FUSIONS:
        setattr(strategy, flag, fuse)
    strategy.enable_inplace = inplace
    strategy.enable_addto = addto
    strategy.memory_optimize = memory_optimize
    strategy.enable_sequential_execution = sequential
    exec_strategy = static.ExecutionStrategy()
    exec_strategy.num_threads = threads
    return strategy, exec_strategy


def assert_identical(got, expected):
    (fetched, params), (base_fetched, base_params) = got, expected
    for step, (a, b) in enumerate(zip(fetched, base_fetched)):
        for name, x, y in zip(("loss", "hidden"), a, b):
            np.testing.assert_array_equal(x, y, err_msg="step %d %s" % (step, name))
    assert params.keys() == base_params.keys()
    for k in base_params:
        np.testing.assert_array_equal(params[k], base_params[k], err_msg=k)


@settings(max_examples=30, deadline=None)
@given(model=models, fuse=st.booleans(), inplace=st.booleans(),
       memory_optimize=st.sampled_from([None, True, False]), sequential=st.booleans(),
       threads=st.sampled_from([1, 2, 4]), addto=st.booleans())
def test_build_and_execution_options_never_change_results(model, fuse, inplace,
                                                          memory_optimize, sequential,
                                                          threads, addto):
    expected = train(model)
    got = train(model, *strategies(fuse, inplace, memory_optimize, sequential, threads,
                                   addto))
    assert_identical(got, expected)


@settings(max_examples=10, deadline=None)
@given(model=models)
def test_everything_on_at_once(model):
    """The most aggressive combination, on more steps."""
    assert_identical(train(model, *strategies(True, True, True, False, 4, True), steps=5),
                     train(model, steps=5))


@settings(max_examples=20, deadline=None)
@given(model=models, fuse=st.booleans(), inplace=st.booleans(),
       threads=st.sampled_from([1, 2, 4]))
def test_buffer_reuse_never_changes_results(model, fuse, inplace, threads):
    """memory_optimize=True (dead buffers reused by later ops) against False (nothing freed),
    everything else equal, over k steps."""
    assert_identical(train(model, *strategies(fuse, inplace, True, False, threads), steps=4),
                     train(model, *strategies(fuse, inplace, False, False, threads), steps=4))
