"""32-bit FLOAT attributes (specs/ops/README.md "FLOAT attributes"): float64 results of
ops whose attribute float32 cannot hold, against the values Paddle 3.3.1 (static, under
PIR and the legacy IR, and eager) and Paddle 1.8.5 (static and dygraph) gave (recorded),
and float32 results unchanged by the rounding."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl import fluid, pir_utils, static, versions
from refimpl.ops.registry import float32_attrs, get_op_def, round_float32_attrs
from refimpl.testing import call_forward

F = paddle.nn.functional
X = np.array([1.0, -2.0, 0.7])


def _ops(t):
    return {"scale": paddle.scale(t, 0.1, 0.3), "leaky_relu": F.leaky_relu(t, 0.1),
            "elu": F.elu(t, 0.3), "clip": paddle.clip(t, 0.1, 0.9),
            "hardsigmoid": F.hardsigmoid(t, 0.1, 0.3)}


# every attr rounded: 3.3.1's legacy static IR, 1.8.5 static and dygraph alike
ROUNDED = {"scale": [0.4000000134110451, 0.10000000894069672, 0.37000001296401025],
           "leaky_relu": [1.0, -0.20000000298023224, 0.7],
           "elu": [1.0, -0.25939942533662286, 0.7],
           "clip": [0.8999999761581421, 0.10000000149011612, 0.7],
           "hardsigmoid": [0.4000000134110451, 0.10000000894069672, 0.37000001296401025]}
# 3.3.1 eager: scale, leaky_relu, clip take double / Scalar arguments
EAGER_3 = dict(ROUNDED, scale=[0.4, 0.09999999999999998, 0.37],
               leaky_relu=[1.0, -0.2, 0.7], clip=[0.9, 0.1, 0.7])
# 3.3.1 static under PIR (FLAGS_enable_pir_api on, its default): leaky_relu's alpha a
# double attribute; scale's and clip's Scalars float32 constant tensors
PIR_3 = dict(ROUNDED, leaky_relu=[1.0, -0.2, 0.7])


def _ir(pir):
    """Paddle 3's FLAGS_enable_pir_api on or off inside (elsewhere no flag: nothing)."""
    return pir_utils.DygraphPirGuard() if pir else pir_utils.OldIrGuard()


def _static_results(x):
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            outs = _ops(static.data("x", [3], x.dtype.name))
        exe = static.Executor(paddle.CPUPlace())
        values = exe.run(main, feed={"x": x}, fetch_list=list(outs.values()))
        return dict(zip(outs, values))
    finally:
        paddle.disable_static()


def _eager_results(x):
    paddle.disable_static()
    return {k: v.numpy() for k, v in _ops(paddle.to_tensor(x)).items()}


@pytest.mark.parametrize("profile,pir,expected", [
    ("1.8", True, ROUNDED), ("2.0", True, ROUNDED), ("3", False, ROUNDED), ("3", True, PIR_3)])
def test_static_float64_results_are_paddles(profile, pir, expected):
    with versions.use(profile), _ir(pir):
        got = _static_results(X)
    for name, values in expected.items():
        np.testing.assert_allclose(got[name], values, rtol=1e-15, atol=0, err_msg=name)


X4 = np.arange(1, 17, dtype=np.float64).reshape(1, 4, 2, 2) / 7
# 3.3.1 static, float64 (recorded, 2026-11-28, s18pirattr), the legacy IR
# (FLAGS_enable_pir_api=0): every FLOAT attr rounded, paddle.full's value exact (its
# str_value), a number meeting a Variable (0.1 / x, x ** 0.1) a rounded constant
LEGACY_IR_3 = {
    "pow": [0.8231712516061505, 0.8822531035055107, 0.9187605116201844, 0.9455754645541481],
    "full": [0.1, 0.1],
    "full_like": [0.10000000149011612] * 3,
    "rdiv": [0.10000000149011612, -0.05000000074505806, 0.14285714498588017],
    "rpow": [0.8231712516061505, 0.8822531035055107, 0.9187605116201844, 0.9455754645541481],
    "pad": [0.10000000149011612, 1.0, -2.0, 0.7],
    "pad3d": [0.10000000149011612, 1.0, -2.0, 0.7],
    "group_norm": [-1.0985884320536643, -0.7847060228954745, -0.4708236137372847,
                   -0.15694120457909486]}
# under PIR: group_norm's epsilon, pad3d's value, softplus's beta and full's value double
# attributes; a number meeting a Variable a float64 full (pow and the pad op: float32)
PIR_IR_3 = dict(
    LEGACY_IR_3, rdiv=[0.1, -0.05, 0.14285714285714288],
    rpow=[0.8231712539930442, 0.8822531051524675, 0.9187605127801859, 0.9455754653426564],
    pad3d=[0.1, 1.0, -2.0, 0.7],
    group_norm=[-1.0985884360051024, -0.7847060257179304, -0.4708236154307582,
                -0.156941205143586],
    softplus=[7.44396660073571, 5.9813886938159175, 7.287595555486972])


def _more_ops(t, t4):
    return {"pow": paddle.pow(t4, 0.1), "full": paddle.full([2], 0.1, "float64"),
            "full_like": paddle.full_like(t, 0.1), "rdiv": 0.1 / t, "rpow": t4 ** 0.1,
            "pad": F.pad(t.reshape([1, 3]), [0, 0, 1, 0], value=0.1),
            "pad3d": F.pad(t.reshape([1, 1, 3]), [1, 0], value=0.1, data_format="NCL"),
            "group_norm": paddle.nn.GroupNorm(2, 4, epsilon=0.1, weight_attr=False,
                                              bias_attr=False)(t4),
            "softplus": F.softplus(t, 0.1, 3.3)}


def _assert_static_3_results(pir, build, expected):
    """Run the float64 program `build(x, x4)` makes ({name: variable}) under profile 3
    with FLAGS_enable_pir_api `pir`; its first values against `expected`'s (the kernels'
    own arithmetic: a few ulps apart; the rounding changes the 8th digit)."""
    paddle.enable_static()
    try:
        with versions.use("3"), _ir(pir):
            main, startup = static.Program(), static.Program()
            with static.program_guard(main, startup):
                outs = build(static.data("x", [3], "float64"),
                             static.data("x4", [1, 4, 2, 2], "float64"))
            got = static.Executor(paddle.CPUPlace()).run(
                main, feed={"x": X, "x4": X4}, fetch_list=list(outs.values()))
    finally:
        paddle.disable_static()
    got = dict(zip(outs, got))
    for name, values in expected.items():
        np.testing.assert_allclose(got[name].ravel()[:4], values, rtol=1e-14, atol=0,
                                   err_msg=name)


@pytest.mark.parametrize("pir,expected", [(False, LEGACY_IR_3), (True, PIR_IR_3)])
def test_static_float64_results_follow_the_ir_of_paddle_3(pir, expected):
    """FLAGS_enable_pir_api (switch static_float_attrs): 3.3.1's PIR ops hold some FLOAT
    attrs of its legacy OpDescs as doubles (OpDef.pir_double_attrs). (3.3.1's legacy IR
    refuses F.softplus in a static program: not followed.)"""
    _assert_static_3_results(pir, _more_ops, expected)


# 3.3.1 static, float64: the gradients of out * out (recorded, s18pirattr), the grad ops
# holding their forward op's attrs
LEGACY_IR_GRADS_3 = {
    "leaky_relu": [2.0, -0.040000001192092904, 1.4],
    "group_norm": [-2.330558859699302, -1.6646848997852157, -0.9988109398711295,
                   -0.332936979957043]}
PIR_GRADS_3 = {
    "leaky_relu": [2.0, -0.04000000000000001, 1.4],
    "group_norm": [-2.330558858501784, -1.6646848989298455, -0.9988109393579072,
                   -0.3329369797859689],
    "softplus": [7.8158550753492, 5.385235677630901, 7.542557299051667]}


def _squares_gradients(t, t4):
    t.stop_gradient = t4.stop_gradient = False
    outs = {"leaky_relu": (F.leaky_relu(t, 0.1), t),
            "group_norm": (paddle.nn.GroupNorm(2, 4, epsilon=0.1, weight_attr=False,
                                               bias_attr=False)(t4), t4),
            "softplus": (F.softplus(t, 0.1, 3.3), t)}
    return {name: static.gradients([out * out], [x])[0] for name, (out, x) in outs.items()}


@pytest.mark.parametrize("pir,expected", [(False, LEGACY_IR_GRADS_3), (True, PIR_GRADS_3)])
def test_static_float64_gradients_follow_the_ir_of_paddle_3(pir, expected):
    _assert_static_3_results(pir, _squares_gradients, expected)


@pytest.mark.parametrize("profile,expected", [("1.8", ROUNDED), ("2.0", ROUNDED),
                                              ("3", EAGER_3)])
def test_eager_float64_results_are_paddles(profile, expected):
    with versions.use(profile):
        got = _eager_results(X)
    for name, values in expected.items():
        np.testing.assert_allclose(got[name], values, rtol=1e-15, atol=0, err_msg=name)


@pytest.mark.parametrize("profile", ["1.8", "3"])
def test_float32_results_are_unchanged(profile):
    """float32 results are the references' given the Python values (as before the
    rounding), static and eager."""
    x = X.astype(np.float32)
    attrs = {"scale": ("scale", {"scale": 0.1, "bias": 0.3}), "leaky_relu": ("leaky_relu",
             {"alpha": 0.1}), "elu": ("elu", {"alpha": 0.3}),
             "clip": ("clip", {"min": 0.1, "max": 0.9}),
             "hardsigmoid": ("hard_sigmoid", {"slope": 0.1, "offset": 0.3})}
    with versions.use(profile):
        expected = {name: call_forward(get_op_def(op), {"X": x}, given)[0]
                    for name, (op, given) in attrs.items()}
        for got in (_static_results(x), _eager_results(x)):
            for name, values in expected.items():
                assert got[name].dtype == np.float32
                np.testing.assert_array_equal(got[name], values, err_msg=name)


def test_eager_momentum_and_sgd_decay_steps_as_paddle_3():
    """Paddle 3.3.1 eager, float64, two steps of sum(w * x_t) from w = [0.5, -0.25]:
    Momentum's mu a 32-bit float, SGD's L2Decay a scale op that keeps 0.1 (a Scalar)."""
    def steps(make):
        w = paddle.create_parameter([2], "float64", default_initializer=paddle.nn.initializer
                                    .Assign(np.array([0.5, -0.25])))
        opt = make([w])
        for xt in ([0.3, -0.7], [-0.2, 0.9]):
            (w * paddle.to_tensor(np.array(xt))).sum().backward()
            opt.step()
            opt.clear_grad()
        return w.numpy()
    with versions.use("3"):
        paddle.disable_static()
        paddle.set_default_dtype("float64")
        try:
            momentum = steps(lambda p: paddle.optimizer.Momentum(0.1, 0.9, parameters=p))
            # multi_precision (no master weights for float64 / float32 parameters) and
            # use_multi_tensor (one merged op) give the same steps
            merged = steps(lambda p: paddle.optimizer.Momentum(
                0.1, 0.9, parameters=p, multi_precision=True, use_multi_tensor=True))
            with pytest.raises(ValueError, match="rescale_grad=0.5 is not implemented"):
                paddle.optimizer.Momentum(0.1, 0.9, rescale_grad=0.5)
            sgd = steps(lambda p: paddle.optimizer.SGD(
                0.1, parameters=p, weight_decay=paddle.regularizer.L2Decay(0.1)))
        finally:
            paddle.set_default_dtype("float32")
    np.testing.assert_allclose(momentum, [0.4630000007152557, -0.20700000166893007],
                               rtol=1e-15, atol=0)
    np.testing.assert_array_equal(merged, momentum)
    np.testing.assert_allclose(sgd, [0.48035, -0.265725], rtol=1e-15, atol=0)


def test_momentum_fuses_l2_decay_as_paddle_3():
    """Paddle 3.3.1 eager, float64, two steps of sum(w * x_t) from w = [0.5, -0.25] with
    Momentum(0.1, 0.9): an L2Decay(0.1) (the optimizer's, a float weight_decay, the
    parameter's own) fused into the momentum op, its coefficient a 32-bit float; a
    parameter's own L1Decay appended (a Scalar scale: exact) and the optimizer's L2Decay
    off for it. In a static program the same ops (switch momentum_l2_decay)."""
    l2, l1 = paddle.regularizer.L2Decay, paddle.regularizer.L1Decay
    fused = [0.44885000062435865, -0.20047500163167717]
    cases = [
        (dict(weight_decay=l2(0.1)), None, fused),
        (dict(weight_decay=0.1), None, fused),
        (dict(weight_decay=l2(0.1), use_nesterov=True), None,
         [0.43491350162521003, -0.22239225255665926]),
        ({}, l2(0.1), fused),
        (dict(weight_decay=l2(0.3)), l1(0.1), [0.4340000009536743, -0.17800000190734863])]
    with versions.use("3"):
        paddle.disable_static()
        paddle.set_default_dtype("float64")
        try:
            for kwargs, own, want in cases:
                w = paddle.create_parameter(
                    [2], "float64", attr=paddle.ParamAttr(regularizer=own),
                    default_initializer=paddle.nn.initializer.Assign(np.array([0.5, -0.25])))
                opt = paddle.optimizer.Momentum(0.1, 0.9, parameters=[w], **kwargs)
                for xt in ([0.3, -0.7], [-0.2, 0.9]):
                    (w * paddle.to_tensor(np.array(xt))).sum().backward()
                    opt.step()
                    opt.clear_grad()
                np.testing.assert_allclose(w.numpy(), want, rtol=1e-15, atol=0,
                                           err_msg=str((kwargs, own)))
        finally:
            paddle.set_default_dtype("float32")


def test_momentum_l2_decay_steps_as_paddle_18():
    """Paddle 1.8.5's fluid Momentum(0.1, 0.9, regularization=L2Decay(0.1)), float64 w =
    [0.5, 0.5], two steps of sum(w * x_t): the decay a scale op of float32(0.1) (dygraph
    measured the same)."""
    with versions.use("1.8"):
        paddle.enable_static()
        try:
            for nesterov, want in ((False, [0.44884999986737967, 0.5278499986305832]),
                                   (True, [0.4349135006741732, 0.4933034974741489])):
                main, startup = fluid.Program(), fluid.Program()
                with fluid.program_guard(main, startup):
                    w = fluid.layers.create_parameter(
                        [2], "float64", default_initializer=fluid.initializer.Constant(0.5))
                    x = fluid.data("x", [2], "float64")
                    fluid.optimizer.Momentum(
                        0.1, 0.9, use_nesterov=nesterov,
                        regularization=fluid.regularizer.L2Decay(0.1)).minimize(
                            fluid.layers.reduce_sum(w * x))
                exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
                exe.run(startup, scope=scope)
                for xt in ([0.3, -0.7], [-0.2, 0.9]):
                    exe.run(main, feed={"x": np.array(xt)}, scope=scope)
                np.testing.assert_allclose(np.array(scope.find_var(w.name).get_tensor()), want,
                                           rtol=1e-15, atol=0)
        finally:
            paddle.disable_static()


def test_momentum_l2_decay_op_by_profile():
    """Static Momentum + L2Decay: a scale op on the gradient under 1.8 (and fluid's
    Momentum everywhere), the momentum op's regularization_coeff under 2.0 (the
    optimizer's L2Decay; a float weight_decay appended) and 3 (a float too)."""
    def program(make, weight_decay):
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            w = fluid.layers.create_parameter([2], "float64")
            x = fluid.data("x", [2], "float64")
            make(0.1, 0.9, weight_decay).minimize(fluid.layers.reduce_sum(w * x))
        ops = main.global_block().ops
        update = [op for op in ops if op.type == "momentum"][0]
        return ("scale" in [op.type for op in ops],
                update.attr("regularization_method") or "",
                update.attr("regularization_coeff") or 0.0)
    paddle_momentum = lambda lr, mu, wd: paddle.optimizer.Momentum(lr, mu, weight_decay=wd)
    fluid_momentum = lambda lr, mu, wd: fluid.optimizer.Momentum(lr, mu, regularization=wd)
    l2 = paddle.regularizer.L2Decay(0.25)
    paddle.enable_static()
    try:
        for profile, make, wd, want in [
                ("1.8", fluid_momentum, l2, (True, "", 0.0)),
                ("2.0", fluid_momentum, l2, (True, "", 0.0)),
                ("2.0", paddle_momentum, l2, (False, "l2_decay", 0.25)),
                ("2.0", paddle_momentum, 0.25, (True, "", 0.0)),
                ("3", paddle_momentum, 0.25, (False, "l2_decay", 0.25))]:
            with versions.use(profile):
                assert program(make, wd) == want, (profile, make, wd)
    finally:
        paddle.disable_static()


def test_static_momentum_steps_as_paddle_18():
    """Paddle 1.8.5's fluid Momentum(0.1, 0.9), float64 w = [0.5, 0.5], two steps of
    sum(w * x_t): mu is float32(0.9) (and the learning rate a float32 variable)."""
    with versions.use("1.8"):
        paddle.enable_static()
        try:
            main, startup = fluid.Program(), fluid.Program()
            with fluid.program_guard(main, startup):
                w = fluid.layers.create_parameter(
                    [2], "float64", default_initializer=fluid.initializer.Constant(0.5))
                x = fluid.data("x", [2], "float64")
                fluid.optimizer.Momentum(0.1, 0.9).minimize(fluid.layers.reduce_sum(w * x))
            exe = fluid.Executor(fluid.CPUPlace())
            scope = fluid.Scope()
            exe.run(startup, scope=scope)
            for xt in ([0.3, -0.7], [-0.2, 0.9]):
                exe.run(main, feed={"x": np.array(xt)}, scope=scope)
            got = np.array(scope.find_var(w.name).get_tensor())
        finally:
            paddle.disable_static()
    np.testing.assert_allclose(got, [0.4630000001639128, 0.5429999989718198],
                               rtol=1e-15, atol=0)


def test_which_attrs_are_32_bit_by_profile_and_mode():
    scale, leaky, momentum = (get_op_def(t) for t in ("scale", "leaky_relu", "momentum"))
    with versions.use("3"):
        assert float32_attrs(scale) == ("scale", "bias")
        assert float32_attrs(scale, eager=True) == ()
        assert float32_attrs(leaky, eager=True) == ()
        with _ir(False):
            assert float32_attrs(get_op_def("leaky_relu_grad")) == ("alpha",)
        with _ir(True):
            assert float32_attrs(get_op_def("leaky_relu_grad")) == ()
            assert float32_attrs(scale) == ("scale", "bias")
        assert "mu" in float32_attrs(momentum, eager=True)
    with versions.use("1.8"):
        assert float32_attrs(scale, eager=True) == ("scale", "bias")
        # an op paddle_op_facts.json holds no proto of declares its own (1.8's source)
        assert float32_attrs(get_op_def("lars_momentum")) == ("mu", "lars_coeff",
                                                               "lars_weight_decay")
        attrs = round_float32_attrs(scale, {"scale": 0.1, "bias": 2, "bias_after_scale": True})
    assert attrs == {"scale": 0.10000000149011612, "bias": 2.0, "bias_after_scale": True}


def _one_weight_program(init, optimizer, feeds=()):
    """A static program minimizing sum(x w) for a float64 [1, 1] weight w = Constant(init)
    with `optimizer`: its startup run, then the program once a feed. (program, scope, w)"""
    paddle.enable_static()
    try:
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            x = fluid.data("x", [-1, 1], "float64")
            w = fluid.layers.create_parameter(
                [1, 1], "float64", default_initializer=fluid.initializer.Constant(init))
            optimizer.minimize(fluid.layers.reduce_sum(fluid.layers.matmul(x, w)))
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        for x_value in feeds:
            exe.run(main, feed={"x": x_value}, scope=scope)
    finally:
        paddle.disable_static()
    return main, scope, w


@pytest.mark.parametrize("profile,expected", [("1.8", 0.10000000149011612),
                                              ("2.0", 0.10000000149011612), ("3", 0.1)])
def test_constant_initializers_and_learning_rate_by_profile(profile, expected):
    """A float64 Constant(0.1) parameter and SGD(0.1)'s float64 learning rate: float32(0.1)
    in Paddle 1.8.5 (measured; 2.0's initializer.py sets no str_value either), 0.1 in
    3.3.1 (its initializers set str_value; measured), static and eager (switch
    init_str_value)."""
    with versions.use(profile):
        main, scope, w = _one_weight_program(0.1, fluid.optimizer.SGD(0.1))
        lr = [v for v in main.list_vars() if "learning_rate" in v.name][0]
        values = [np.array(scope.find_var(n).get_tensor()).ravel()[0]
                  for n in (w.name, lr.name)]
        eager = paddle.create_parameter([1], "float64",
                                        default_initializer=paddle.nn.initializer.Constant(0.1))
    assert values == [expected, expected]
    assert eager.numpy()[0] == expected


def test_a_static_program_run_eagerly_holds_its_ops_float_attrs_as_static():
    """jit.load's TranslatedLayer and dy2static run a program's ops through the tracer
    (dygraph/program_runner.py): its scale op rounds 0.1 as its OpDesc does in Paddle, also
    under 3, whose eager paddle.scale keeps 0.1."""
    from refimpl.dygraph.program_runner import run_ops
    with versions.use("3"):
        paddle.enable_static()
        try:
            main = static.Program()
            with static.program_guard(main, static.Program()):
                out = paddle.scale(static.data("x", [3], "float64"), 0.1, 0.3)
        finally:
            paddle.disable_static()
        env = {"x": paddle.to_tensor(X)}
        run_ops(main.global_block().ops, env)
    np.testing.assert_allclose(env[out.name].numpy(), ROUNDED["scale"], rtol=1e-15, atol=0)


@pytest.mark.parametrize("profile", ["1.8", "3"])
def test_global_norm_clip_limit_is_exact(profile):
    """The clip's limit is a fill_constant with its text, as Paddle's layers.fill_constant
    writes it: a float64 step of lr 1 on gradient 3 clipped to norm 0.1 gives exactly 0.9
    (float32(0.1) would give 0.8999999985)."""
    with versions.use(profile):
        _, scope, w = _one_weight_program(
            1.0, fluid.optimizer.SGD(1.0, grad_clip=fluid.clip.GradientClipByGlobalNorm(0.1)),
            [np.array([[3.0]])])
    assert np.array(scope.find_var(w.name).get_tensor())[0, 0] == 0.9


# Paddle's float64 p-norms of X = RandomState(0).uniform(0.2, 1, (3, 4)) (and dist's of
# X - Y, Y = the next uniform(-1, 1, (3, 4))): (out, d sum(out) / dX[0, :2]), p = 3 and 0.7
P_NORMS = {  # 1.8.5 (static, its p_norm op) and 3.3.1 (paddle.linalg.norm) alike
    3.0: ([1.0902736630796972, 1.1326886540669447, 1.231168445279053],
          [0.3435577322617324, 0.5015728134456285]),
    0.7: ([4.9393254441059895, 4.889875463455621, 5.266274840638396],
          [1.8468842925444682, 1.744976359222419])}
DISTS = {  # 1.8.5 (static, its dist op; 2.0's dist_op.h the same) and 3.3.1 (paddle.dist)
    "2.0": {3.0: (2.2259623547494143, [0.05105451641951028, -0.0012608918322007865]),
            0.7: (14.611842425536189, [2.7475843995343086, -4.786901617304181])},
    "3": {3.0: (2.2259624078330535, [0.05105451398445481, -0.001260891772062296]),
          0.7: (14.611842692473099, [2.7475844145864663, -4.78690164352838])}}


@pytest.mark.parametrize("profile", ["2.0", "3"])
def test_p_norm_and_dist_arithmetic_as_paddle(profile):
    """p_norm raises to float32(1 / float32(p)) and divides its gradient by norm^(p-1) +
    epsilon (1.8.5 and 3.3.1); dist does so under 3 (3.3.1 runs p_norm's kernel), and
    under 1.8 / 2.0 raises to 1 / float32(p) in double with the plain gradient (1.8.5)."""
    rng = np.random.RandomState(0)
    x0, y0 = rng.uniform(0.2, 1.0, (3, 4)), rng.uniform(-1, 1, (3, 4))
    with versions.use(profile):
        paddle.disable_static()
        for p, (norm, grad) in P_NORMS.items():
            x = paddle.to_tensor(x0, stop_gradient=False)
            out = paddle.norm(x, p=p, axis=1)
            out.sum().backward()
            np.testing.assert_allclose(out.numpy(), norm, rtol=1e-15, atol=0)
            np.testing.assert_allclose(x.gradient()[0, :2], grad, rtol=1e-15, atol=0)
        for p, (dist, grad) in DISTS[profile].items():
            x = paddle.to_tensor(x0, stop_gradient=False)
            out = paddle.dist(x, paddle.to_tensor(y0), p=p)
            out.backward()
            np.testing.assert_allclose(out.numpy().reshape(-1), [dist], rtol=1e-15, atol=0)
            np.testing.assert_allclose(x.gradient()[0, :2], grad, rtol=1e-15, atol=0)


# Paddle's float64 d sum(out * W) / dX[0] of selu on X = RandomState(0)'s uniform(-2, 2, (3, 4))
# after a uniform(0, 1, (1, 4)), W = 1..12 (row-major): default scale / alpha, then 1.1 / 1.3
SELU_GRADS = {  # 1.8.5 (static; 2.0's selu_op.h the same) and 3.3.1 (F.selu)
    "2.0": ([1.2954427003860474, 2.1014020442962646, 4.109060525894165, 4.202804088592529],
            [1.0536850690841675, 2.200000047683716, 3.342220902442932, 4.400000095367432]),
    "3": ([1.2954426919475948, 2.1014020442962646, 4.109060532038148, 4.202804088592529],
          [1.0536850560936728, 2.200000047683716, 3.3422209301832497, 4.400000095367432])}


@pytest.mark.parametrize("profile", ["2.0", "3"])
def test_selu_and_label_smooth_arithmetic_as_paddle(profile):
    """selu's gradient: out + float32(scale * alpha) where out <= 0, the sum in float32
    under 1.8 / 2.0 (switch selu_grad); label_smooth: (1 - eps) and eps / C in float32
    (1.8.5 and 3.3.1 alike; the gradient 3.3.1's)."""
    rng = np.random.RandomState(0)
    prior = rng.uniform(0, 1, (1, 4))
    xs = rng.uniform(-2, 2, (3, 4))
    with versions.use(profile):
        paddle.disable_static()
        for (scale, alpha), grad in zip(((1.0507009873554805, 1.6732632423543772), (1.1, 1.3)),
                                        SELU_GRADS[profile]):
            x = paddle.to_tensor(xs, stop_gradient=False)
            w = paddle.to_tensor(np.arange(1.0, 13).reshape(3, 4))
            (paddle.nn.functional.selu(x, scale, alpha) * w).sum().backward()
            np.testing.assert_allclose(x.gradient()[0], grad, rtol=1e-15, atol=0)
        for eps, prior_dist, c, want, grad in (
                (0.1, None, 4, [0.02500000037252903, 0.9249999765306711],
                 [0.8999999761581421, 1.7999999523162842]),
                (0.2, prior / prior.sum(), 4, [0.04551353985550388, 0.8593112342171904],
                 [0.800000011920929, 1.600000023841858]),
                (0.3, None, 3, [0.10000000149011612, 0.7999999895691872],
                 [0.699999988079071, 1.399999976158142])):
            x = paddle.to_tensor(np.eye(c)[[1, c - 1]], stop_gradient=False)
            out = paddle.nn.functional.label_smooth(
                x, None if prior_dist is None else paddle.to_tensor(prior_dist), eps)
            (out * paddle.to_tensor(np.arange(1.0, 2 * c + 1).reshape(2, c))).sum().backward()
            np.testing.assert_allclose(out.numpy()[0, :2], want, rtol=1e-15, atol=0)
            np.testing.assert_allclose(x.gradient()[0, :2], grad, rtol=1e-15, atol=0)


@pytest.mark.parametrize("profile, boxes", [
    ("1.8", ([0.0, 0.0, 0.37079081189859814, 0.5561862178478972],
             [-0.0934433607215401, -0.1901650418273682, 0.26011002987173365, 0.3401650440625424])),
    ("3", ([0.0, 0.0, 0.37079081932703656, 0.5561862289905548],
           [-0.09344335272908211, -0.19016502983868122, 0.2601100218792756, 0.3401650320738554]))])
def test_prior_box_sides_as_paddle(profile, boxes):
    """prior_box on a float64 [1, 2, 2, 3] feature of an [8, 12] image: 1.8.5 works the
    prior sides out in double, 3.3.1 in float32 (switch prior_box_sizes); the centers with
    float32(offset) in double in both. Paddle's boxes [0, 0, 7] and [0, 0, 1] (offset 0.2)."""
    results = []
    with versions.use(profile):
        paddle.enable_static()
        try:
            for kwargs in (dict(min_sizes=[2.0, 4.0], max_sizes=[5.0, 6.0], aspect_ratios=[2.0],
                                flip=True, clip=True),
                           dict(min_sizes=[3.0], max_sizes=[6.0], aspect_ratios=[2.0, 3.0],
                                min_max_aspect_ratios_order=True, steps=[5.0, 3.0],
                                offset=0.2, flip=False, clip=False)):
                main, startup = fluid.Program(), fluid.Program()
                with fluid.program_guard(main, startup):
                    feature = fluid.data("f", [1, 2, 2, 3], "float64")
                    image = fluid.data("im", [1, 3, 8, 12], "float64")
                    box, _ = fluid.layers.prior_box(feature, image, **kwargs)
                results.append(fluid.Executor(fluid.CPUPlace()).run(
                    main, feed={"f": np.zeros((1, 2, 2, 3)), "im": np.zeros((1, 3, 8, 12))},
                    fetch_list=[box])[0])
        finally:
            paddle.disable_static()
    np.testing.assert_allclose(results[0][0, 0, 7], boxes[0], rtol=1e-15, atol=0)
    np.testing.assert_allclose(results[1][0, 0, 1], boxes[1], rtol=1e-15, atol=0)


def test_fused_members_and_coalesced_updates_take_the_rounded_attrs():
    """The fused chain's reference (ops/fused.run_op, its GPU / LoD path) and the
    coalesced multi-place optimizer update (executor/direct._FlatUpdate) bind their member
    ops' attrs as the executor binds an op's: FLOAT ones 32-bit."""
    from refimpl.executor.direct import _FlatUpdate
    from refimpl.ops.fused import run_op
    env = {"x": np.array([1.0, 3.0])}
    run_op("scale", {"X": ["x"]}, {"Out": ["y"]}, {"scale": 0.1, "bias": 0.0,
                                                   "bias_after_scale": True}, env)
    np.testing.assert_array_equal(env["y"], np.array([1.0, 3.0]) * float(np.float32(0.1)))
    slots = {"Param": ["w"], "Grad": ["g"], "Velocity": ["v"], "LearningRate": ["lr"]}
    update = _FlatUpdate([("momentum", slots, {}, {"mu": 0.9, "use_nesterov": False})])
    assert update.attrs["mu"] == float(np.float32(0.9)) != 0.9
