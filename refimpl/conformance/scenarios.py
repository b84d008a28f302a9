"""Class-level scenarios: small programs built through the public paddle API of whatever
module is under test (refimpl, real paddle, a third implementation).

A scenario is `make_inputs(rng) -> {name: array}` (stored in the golden file) plus
`run(paddle, inputs) -> {name: array}` (the results compared). The generator runs it on
refimpl with the numpy reference kernels; the checker runs the same function on the
implementation under test. Adding one is a function and a `@scenario(...)` line.
"""
import numpy as np

__all__ = ["Scenario", "SCENARIOS", "DYNAMIC", "scenario", "MissingAPI", "api", "run_place"]

SCENARIOS = {}
DYNAMIC = {}     # scenario name -> its dynamic-mode variant fn(paddle, inputs)
FLOAT32_TOLERANCE = (1e-5, 1e-6)   # rtol, atol after a few float32 training steps


class MissingAPI(Exception):
    """The implementation under test does not offer a public name the case needs."""


def api(obj, dotted):
    """obj.a.b.c, or MissingAPI naming what is missing (reported as 'skipped')."""
    for part in dotted.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise MissingAPI("%s has no %r (needed: %s)"
                             % (getattr(obj, "__name__", type(obj).__name__), part,
                                dotted)) from None
    return obj


def run_place(paddle):
    """The place cases run on: what paddle.set_device chose (the worker's --device)."""
    device = api(paddle, "get_device")()
    if device.startswith("gpu"):
        return api(paddle, "CUDAPlace")(int(device.partition(":")[2] or 0))
    return api(paddle, "CPUPlace")()


class Scenario:
    def __init__(self, name, run, make_inputs, tolerance, doc):
        self.name = name
        self.run = run
        self.make_inputs = make_inputs
        self.rtol, self.atol = tolerance
        self.doc = doc


def scenario(name, make_inputs, tolerance=FLOAT32_TOLERANCE, **options):
    """Register `fn(paddle, inputs, **options)` as scenario `name`."""
    def decorate(fn):
        if name in SCENARIOS:
            raise ValueError("scenario %r registered twice" % name)
        doc = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else ""
        SCENARIOS[name] = Scenario(name, lambda paddle, inputs: fn(paddle, inputs, **options),
                                   make_inputs, tolerance, doc)
        return fn
    return decorate


# -- a two-layer MLP regression, the program every scenario trains -------------------------
STEPS, BATCH, IN, HIDDEN = 3, 8, 4, 5
PARAMS = ("w1", "b1", "w2", "b2")


def mlp_inputs(rng):
    """A batch per step plus fixed initial parameters (fed through the scope)."""
    f32 = np.float32
    return {"x": rng.uniform(-1, 1, (STEPS, BATCH, IN)).astype(f32),
            "y": rng.uniform(-1, 1, (STEPS, BATCH, 1)).astype(f32),
            "w1": rng.uniform(-0.7, 0.7, (IN, HIDDEN)).astype(f32),
            "b1": rng.uniform(-0.1, 0.1, (HIDDEN,)).astype(f32),
            "w2": rng.uniform(-0.7, 0.7, (HIDDEN, 1)).astype(f32),
            "b2": rng.uniform(-0.1, 0.1, (1,)).astype(f32)}


def build_mlp(paddle):
    """x -> fc(relu) -> fc -> mean squared error; returns (hidden, loss)."""
    data, fc = api(paddle, "static.data"), api(paddle, "static.nn.fc")
    param = api(paddle, "ParamAttr")
    x = data("x", [None, IN], "float32")
    y = data("y", [None, 1], "float32")
    hidden = fc(x, HIDDEN, weight_attr=param(name="w1"), bias_attr=param(name="b1"),
                activation="relu")
    pred = fc(hidden, 1, weight_attr=param(name="w2"), bias_attr=param(name="b2"))
    diff = pred - y
    return hidden, api(paddle, "mean")(diff * diff)


def new_programs(paddle):
    return api(paddle, "static.Program")(), api(paddle, "static.Program")()


def start(paddle, startup, inputs):
    """An executor with the startup program run and the MLP parameters set from inputs."""
    place = run_place(paddle)
    exe = api(paddle, "static.Executor")(place)
    exe.run(startup)
    scope = api(paddle, "static.global_scope")()
    for name in PARAMS:
        scope.find_var(name).get_tensor().set(inputs[name], place)
    return exe


def train(exe, program, loss, inputs, steps=STEPS):
    """Per-step losses, flattened (a [1]- or 0-d loss, or one per device, all work)."""
    losses = []
    for i in range(steps):
        value, = exe.run(program, feed={"x": inputs["x"][i], "y": inputs["y"][i]},
                         fetch_list=[loss.name])
        losses.append(np.ravel(np.asarray(value)))
    return np.concatenate(losses)


def params(paddle):
    scope = api(paddle, "static.global_scope")()
    return {name: np.array(scope.find_var(name).get_tensor()) for name in PARAMS}


# -- optimizers ---------------------------------------------------------------------------
OPTIMIZERS = {"sgd": ("SGD", {"learning_rate": 0.1}),
              "momentum": ("Momentum", {"learning_rate": 0.1, "momentum": 0.9}),
              "adam": ("Adam", {"learning_rate": 0.05})}


def make_optimizer(paddle, key):
    cls_name, kwargs = OPTIMIZERS[key]
    return api(paddle, "optimizer." + cls_name)(**kwargs)


def train_with(paddle, inputs, optimizer):
    """A few training steps of the MLP with one optimizer: losses and final parameters."""
    main, startup = new_programs(paddle)
    with api(paddle, "static.program_guard")(main, startup):
        _, loss = build_mlp(paddle)
        make_optimizer(paddle, optimizer).minimize(loss)
    exe = start(paddle, startup, inputs)
    losses = train(exe, main, loss, inputs)
    return dict(params(paddle), loss=losses)


def train_eagerly_with(paddle, inputs, optimizer):
    """train_with in dynamic mode: the MLP as nn.Linear layers holding the given
    parameters, loss.backward(), opt.step(), opt.clear_grad()."""
    linear, to_tensor = api(paddle, "nn.Linear"), api(paddle, "to_tensor")
    relu, mean = api(paddle, "nn.functional.relu"), api(paddle, "mean")
    first, second = linear(IN, HIDDEN), linear(HIDDEN, 1)
    for layer, (w, b) in ((first, ("w1", "b1")), (second, ("w2", "b2"))):
        layer.weight.set_value(inputs[w])
        layer.bias.set_value(inputs[b])
    cls_name, kwargs = OPTIMIZERS[optimizer]
    opt = api(paddle, "optimizer." + cls_name)(
        parameters=first.parameters() + second.parameters(), **kwargs)
    losses = []
    for i in range(STEPS):
        diff = second(relu(first(to_tensor(inputs["x"][i])))) - to_tensor(inputs["y"][i])
        loss = mean(diff * diff)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(np.ravel(loss.numpy()))
    values = {"w1": first.weight, "b1": first.bias, "w2": second.weight, "b2": second.bias}
    return dict({k: v.numpy() for k, v in values.items()}, loss=np.concatenate(losses))


for _key in OPTIMIZERS:
    scenario("optimizer/" + _key, mlp_inputs, optimizer=_key)(train_with)
    DYNAMIC["optimizer/" + _key] = \
        (lambda key: lambda paddle, inputs: train_eagerly_with(paddle, inputs, key))(_key)


@scenario("program/clone_for_test", mlp_inputs)
def clone_for_test(paddle, inputs):
    """clone(for_test=True) before minimize: evaluating it never updates parameters and
    sees the parameters the training program updated."""
    main, startup = new_programs(paddle)
    with api(paddle, "static.program_guard")(main, startup):
        _, loss = build_mlp(paddle)
        test_program = main.clone(for_test=True)
        make_optimizer(paddle, "sgd").minimize(loss)
    exe = start(paddle, startup, inputs)
    # all on batch 0: before == trained (same params), after sees the SGD update
    before = train(exe, test_program, loss, inputs, steps=1)
    trained = train(exe, main, loss, inputs, steps=1)
    after = train(exe, test_program, loss, inputs, steps=1)
    return {"test_before": before, "train": trained, "test_after": after}


# -- CompiledProgram data parallelism -------------------------------------------------------
DEVICES = 2


def data_parallel_places(paddle):
    """DEVICES places of the kind the cases run on (skipped on a machine with fewer GPUs)."""
    if not run_place(paddle).__class__.__name__.startswith("CUDA"):
        return api(paddle, "static.cpu_places")(DEVICES)
    places = api(paddle, "static.cuda_places")()
    if len(places) < DEVICES:
        raise MissingAPI("data parallel on the GPU needs %d GPUs; this machine has %d"
                         % (DEVICES, len(places)))
    return places[:DEVICES]


def data_parallel(paddle, inputs, reduce, scale):
    """Data parallel on 2 CPU places with one reduce / gradient-scale strategy."""
    # (on 2 GPUs under --device gpu: data_parallel_places)
    main, startup = new_programs(paddle)
    with api(paddle, "static.program_guard")(main, startup):
        _, loss = build_mlp(paddle)
        make_optimizer(paddle, "sgd").minimize(loss)
    strategy_cls = api(paddle, "static.BuildStrategy")
    strategy = strategy_cls()
    strategy.reduce_strategy = api(strategy_cls, "ReduceStrategy." + reduce)
    strategy.gradient_scale_strategy = api(strategy_cls, "GradientScaleStrategy." + scale)
    compiled = api(api(paddle, "static.CompiledProgram")(main), "with_data_parallel")(
        loss_name=loss.name, build_strategy=strategy,
        places=data_parallel_places(paddle))
    exe = start(paddle, startup, inputs)
    losses = train(exe, compiled, loss, inputs)
    return dict(params(paddle), loss=losses)


for _reduce in ("AllReduce", "Reduce"):
    for _scale in ("CoeffNumDevice", "One"):
        scenario("compiled_program/%s_%s" % (_reduce, _scale), mlp_inputs,
                 reduce=_reduce, scale=_scale)(data_parallel)


# -- RecomputeOptimizer -------------------------------------------------------------------
def recompute_optimizer(paddle):
    for path in ("fluid.optimizer.RecomputeOptimizer",
                 "incubate.optimizer.RecomputeOptimizer"):
        try:
            return api(paddle, path)
        except MissingAPI:
            continue
    raise MissingAPI("%s has no RecomputeOptimizer" % paddle.__name__)


@scenario("optimizer/recompute_vs_plain", mlp_inputs)
def recompute_vs_plain(paddle, inputs):
    """RecomputeOptimizer(SGD) checkpointing the hidden layer trains exactly like SGD."""
    results = {}
    for tag in ("plain", "recompute"):
        main, startup = new_programs(paddle)
        with api(paddle, "static.program_guard")(main, startup):
            hidden, loss = build_mlp(paddle)
            opt = make_optimizer(paddle, "sgd")
            if tag == "recompute":
                opt = recompute_optimizer(paddle)(opt)
                opt._set_checkpoints([hidden])
            opt.minimize(loss)
        exe = start(paddle, startup, inputs)
        results["loss_" + tag] = train(exe, main, loss, inputs)
        results.update({"%s_%s" % (k, tag): v for k, v in params(paddle).items()})
    return results
