"""refimpl.nn Layer classes in static mode: parameters made at construction (startup ops,
Paddle's names), calls appending ops whose results match numpy, containers, train/eval,
state_dict, hooks, and errors that name the layer."""
import inspect
import math
import re

import numpy as np
import pytest

import refimpl as paddle
import refimpl.nn as nn
from refimpl import fluid, static, versions
from helpers import scope_value, startup_executor
from test_conv_pool import conv_loops

RNG = np.random.RandomState(7)


def _ops(program=None):
    return [op.type for op in (program or static.default_main_program()).global_block().ops]


def _softmax(a, axis=-1):
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


# -- Linear, parameters and their initialization


@pytest.mark.paddle("3")   # startup ops in creation order, as Paddle 3 lists them
def test_linear_is_x_at_w_plus_b_with_parameters_from_the_startup_program():
    x = static.data("x", [None, 2, 4], "float32")
    layer = nn.Linear(4, 3)
    startup = static.default_startup_program().global_block()
    assert [(op.type, op.output_arg_names) for op in startup.ops] == \
        [("uniform_random", ["linear_0.w_0"]), ("fill_constant", ["linear_0.b_0"])]
    assert _ops() == []                                  # nothing built until called
    y = layer(x)
    assert _ops() == ["matmul_v2", "elementwise_add"]
    assert y.shape == (-1, 2, 3)
    exe = startup_executor()
    a = RNG.randn(5, 2, 4).astype("float32")
    w, b = scope_value(layer.weight), scope_value(layer.bias)
    limit = np.sqrt(6.0 / (4 + 3))                       # XavierUniform by default
    assert w.shape == (4, 3) and np.all(np.abs(w) <= limit) and np.std(w) > 0.1
    np.testing.assert_array_equal(b, np.zeros(3))
    out, = exe.run(feed={"x": a}, fetch_list=[y])
    np.testing.assert_allclose(out, a @ w + b, rtol=1e-5, atol=1e-6)


def test_linear_attrs_initializer_and_no_bias():
    x = static.data("x", [None, 3], "float32")
    layer = nn.Linear(3, 2, weight_attr=paddle.ParamAttr(
        name="my_w", initializer=nn.initializer.Constant(0.5)), bias_attr=False)
    assert layer.bias is None and [p.name for p in layer.parameters()] == ["my_w"]
    y = layer(x)
    assert _ops() == [versions.switch("linear_op")]   # 2.0's F.linear: matmul; 3: matmul_v2
    out, = startup_executor().run(feed={"x": np.ones((2, 3), "float32")}, fetch_list=[y])
    np.testing.assert_allclose(out, np.full((2, 2), 1.5))


def test_calling_a_layer_twice_shares_its_parameters():
    x = static.data("x", [None, 3], "float32")
    layer = nn.Linear(3, 3)
    y1, y2 = layer(x), layer(layer(x))
    assert len(static.default_main_program().all_parameters()) == 2
    exe = startup_executor()
    a = RNG.randn(2, 3).astype("float32")
    w, b = scope_value(layer.weight), scope_value(layer.bias)
    o1, o2 = exe.run(feed={"x": a}, fetch_list=[y1, y2])
    np.testing.assert_allclose(o1, a @ w + b, rtol=1e-5)
    np.testing.assert_allclose(o2, (a @ w + b) @ w + b, rtol=1e-5, atol=1e-6)


def test_linear_wrong_inner_dim_names_the_layer_expected_and_got():
    x = static.data("x", [None, 5], "float32")
    with pytest.raises(ValueError, match=r"Linear linear_0: input 'x' \[-1, 5\] has 5 at dim "
                                         r"1, expected in_features=4"):
        nn.Linear(4, 3)(x)
    with pytest.raises(TypeError, match="Linear linear_1: input 'x' must be a static "
                                        "Variable, got ndarray"):
        nn.Linear(4, 3)(np.ones((2, 4)))


# -- Layer bookkeeping


class Block(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.norm = nn.LayerNorm(4)
        self.scale = self.create_parameter([4], default_initializer=nn.initializer.Constant(2.))
        self.register_buffer("steps", paddle.zeros([1], "int64"))
        self.register_buffer("scratch", paddle.zeros([1]), persistable=False)

    def forward(self, x):
        return self.norm(self.fc(x)) * self.scale


def test_named_parameters_sublayers_buffers_and_state_dict():
    model = nn.Sequential(("block", Block()), ("act", nn.ReLU()), ("head", nn.Linear(4, 2)))
    assert [(n, p.name, p.shape) for n, p in model.named_parameters()] == [
        ("block.scale", "block_0.w_0", (4,)),
        ("block.fc.weight", "linear_0.w_0", (4, 4)), ("block.fc.bias", "linear_0.b_0", (4,)),
        ("block.norm.weight", "layer_norm_0.w_0", (4,)),
        ("block.norm.bias", "layer_norm_0.b_0", (4,)),
        ("head.weight", "linear_1.w_0", (4, 2)), ("head.bias", "linear_1.b_0", (2,))]
    assert [n for n, _ in model.named_sublayers()] == ["block", "block.fc", "block.norm",
                                                       "act", "head"]
    assert [n for n, _ in model.named_children()] == ["block", "act", "head"]
    assert len(model.parameters()) == 7 and model[0].parameters(include_sublayers=False) == \
        [model[0].scale]
    assert [n for n, _ in model.named_buffers()] == ["block.steps", "block.scratch"]
    state = model.state_dict()
    assert list(state) == ["block.scale", "block.steps", "block.fc.weight", "block.fc.bias",
                           "block.norm.weight", "block.norm.bias", "head.weight", "head.bias"]
    assert state["head.weight"] is model.head.weight             # variables, not values
    assert model.full_name() == "sequential_0" and model.act.full_name() == "re_lu_0"


def test_state_dict_values_live_in_the_scope_and_set_state_dict_writes_them():
    x = static.data("x", [None, 3], "float32")
    layer = nn.Linear(3, 2)
    y = layer(x)
    exe = startup_executor()
    w = RNG.randn(3, 2)
    layer.set_state_dict({"weight": w, "bias": np.array([1.0, -1.0])})
    got = scope_value(layer.state_dict()["weight"])
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, w.astype("float32"))
    out, = exe.run(feed={"x": np.eye(3, dtype="float32")}, fetch_list=[y])
    np.testing.assert_allclose(out, w + [1.0, -1.0], rtol=1e-6)
    # Paddle 2.0 skips a value of another shape with a warning and sets the others
    # (switch state_dict_shape_mismatch; 1.8 refuses before setting any)
    mismatch = r"'weight' \(linear_0.w_0\) has shape \[2, 3\], expected \[3, 2\]"
    if versions.switch("state_dict_shape_mismatch") == "skip":
        with pytest.warns(UserWarning, match=r"Skip loading for weight\. .*" + mismatch):
            layer.set_state_dict({"weight": np.zeros((2, 3)), "bias": np.zeros(2)})
        np.testing.assert_array_equal(scope_value(layer.bias), [0.0, 0.0])
    else:
        with pytest.raises(AssertionError, match=mismatch):
            layer.set_state_dict({"weight": np.zeros((2, 3)), "bias": np.zeros(2)})
        np.testing.assert_array_equal(scope_value(layer.bias), [1.0, -1.0])
    np.testing.assert_allclose(scope_value(layer.weight), w.astype("float32"))
    with pytest.warns(UserWarning, match="no value for 'linear_0.b_0'"):
        layer.set_state_dict({"linear_0.w_0": np.zeros((3, 2))}, use_structured_name=False)
    np.testing.assert_array_equal(scope_value(layer.weight), np.zeros((3, 2)))


def test_setattr_registers_and_guards_parameters_and_layers():
    layer = nn.Layer()
    layer.sub = nn.Linear(2, 2)
    p = layer.create_parameter([3])
    layer.extra = p
    assert list(layer._sub_layers) == ["sub"] and list(layer._parameters) == ["extra"]
    assert layer.extra is p and "extra" not in layer.__dict__
    with pytest.raises(TypeError, match="'extra' holds a Parameter"):
        layer.extra = 3
    layer.extra = None
    assert layer.parameters() == layer.sub.parameters()
    del layer.sub
    assert layer.sublayers() == [] and not hasattr(layer, "sub")
    with pytest.raises(KeyError, match="can not contain '.'"):
        layer.add_parameter("a.b", p)
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        layer.nothing

    class Early(nn.Layer):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(RuntimeError, match=r"super\(\).__init__\(\) must be called"):
        Early()


def test_add_parameter_and_register_buffer_check_name_value_and_init_alike():
    layer = nn.Layer()
    p = layer.create_parameter([3])
    buf = paddle.zeros([1])
    layer.taken = 1
    words = re.escape(versions.switch("buffer_type_words"))    # 2.0's or 3.3.1's words
    for add, value, kind, expected in ((layer.add_parameter, p, "parameter", "a Parameter"),
                                       (layer.register_buffer, buf, "buffer",
                                        words + r" \(a Variable, not a Parameter\)")):
        method = add.__name__
        with pytest.raises(TypeError, match="the name of %s should be a string, but received "
                           "int" % kind):
            add(3, value)
        with pytest.raises(KeyError, match="the name of %s can not be empty" % kind):
            add("", value)
        with pytest.raises(KeyError, match="the name of %s can not contain '.'" % kind):
            add("a.b", value)
        with pytest.raises(KeyError, match="attribute 'taken' already exists"):
            add("taken", value)
        with pytest.raises(TypeError, match=r"\.%s\('w'\): the %s should be %s, but "
                           "received ndarray" % (method, kind, expected)):
            add("w", np.zeros(3))
        add("w_" + kind, value)
        add("none_" + kind, None)
    assert layer._parameters == {"w_parameter": p, "none_parameter": None}
    assert layer._buffers == {"w_buffer": buf, "none_buffer": None}
    with pytest.raises(TypeError, match="the buffer should be " + words):
        layer.register_buffer("param", p)

    class Early(nn.Layer):
        def __init__(self, method):
            getattr(self, method)("x", None)

    for method in ("add_parameter", "register_buffer"):
        with pytest.raises(RuntimeError, match=r"must be called before %s" % method):
            Early(method)


def test_eager_tensor_attributes_are_non_persistable_buffers():
    # Paddle 2.0's Layer.__setattr__ (its test_base_layer's BufferNet): an eager Tensor
    # set as an attribute is a buffer left out of state_dict, unless registered persistable
    with paddle.fluid.dygraph.guard():
        layer = nn.Layer()
        layer.register_buffer("kept", paddle.to_tensor([1.0]))
        layer.note = paddle.to_tensor([2.0])
        layer.kept = paddle.to_tensor([3.0])
        layer.count = 4
        assert [n for n, _ in layer.named_buffers()] == ["kept", "note"]
        assert layer.note.numpy().tolist() == [2.0]
        assert list(layer.state_dict()) == ["kept"]
        assert layer.state_dict()["kept"].numpy().tolist() == [3.0]
        # add_parameter takes a parameter's value from Paddle's _loaddict_holder
        source = layer.create_parameter([2], default_initializer=nn.initializer.Constant(5.))
        target = layer.create_parameter([2])
        layer._loaddict_holder[target.name] = source
        layer.add_parameter("w", target)
        assert target.numpy().tolist() == [5.0, 5.0]
        with pytest.raises(AssertionError, match="not found in the loaded state_dict"):
            layer.add_parameter("v", layer.create_parameter([2]))


def test_forward_hooks_change_inputs_and_outputs_and_can_be_removed():
    x = static.data("x", [None, 2], "float32")
    layer = nn.ReLU()
    pre = layer.register_forward_pre_hook(lambda lyr, inputs: inputs[0] * 2.0)
    post = layer.register_forward_post_hook(lambda lyr, inputs, out: out + 1.0)
    y = layer(x)
    pre.remove()
    post.remove()
    z = layer(x)
    a = np.array([[-1.0, 3.0]], "float32")
    oy, oz = startup_executor().run(feed={"x": a}, fetch_list=[y, z])
    np.testing.assert_allclose(oy, [[1.0, 7.0]])
    np.testing.assert_allclose(oz, [[0.0, 3.0]])


def test_repr_follows_paddle():
    model = nn.Sequential(nn.Conv2D(3, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(),
                          nn.MaxPool2D(2), nn.Flatten(), nn.Linear(8, 2), nn.Dropout(0.3))
    assert repr(model) == "\n".join([
        "Sequential(",
        "  (0): Conv2D(3, 8, kernel_size=[3, 3], padding=1, data_format=NCHW)",
        "  (1): BatchNorm2D(num_features=8, momentum=0.9, epsilon=1e-05)",
        "  (2): ReLU()",
        "  (3): MaxPool2D(kernel_size=2, stride=None, padding=0)",
        "  (4): Flatten()",
        "  (5): Linear(in_features=8, out_features=2, dtype=float32)",
        "  (6): Dropout(p=0.3, axis=None, mode=upscale_in_train)",
        ")"])


# -- containers


def test_sequential_indexing_slicing_and_deletion():
    layers = [nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)]
    seq = nn.Sequential(*layers)
    assert len(seq) == 3 and seq[0] is layers[0] and seq[-1] is layers[2]
    assert list(seq) == layers and seq["1"] is layers[1]
    sliced = seq[1:]
    assert isinstance(sliced, nn.Sequential) and list(sliced) == layers[1:]
    with pytest.raises(IndexError, match="Sequential index 3 is out of range for 3 items"):
        seq[3]
    del seq[1]
    assert list(seq) == [layers[0], layers[2]]


def test_layer_list_append_insert_extend_and_parameters():
    layers = nn.LayerList([nn.Linear(2, 2)])
    layers.append(nn.Linear(2, 3))
    layers.insert(0, nn.ReLU())
    layers.extend([nn.Tanh()])
    assert [type(layer).__name__ for layer in layers] == ["ReLU", "Linear", "Linear", "Tanh"]
    assert list(layers._sub_layers) == ["0", "1", "2", "3"]
    assert [n for n, _ in layers.named_parameters()] == ["1.weight", "1.bias", "2.weight",
                                                         "2.bias"]
    assert isinstance(layers[1:3], nn.LayerList) and len(layers[1:3]) == 2
    del layers[0]
    assert type(layers[0]).__name__ == "Linear" and len(layers) == 3


def test_parameter_list_registers_its_parameters():
    holder = nn.Layer()
    params = nn.ParameterList([holder.create_parameter([2, 2]) for _ in range(2)])
    assert [n for n, _ in params.named_parameters()] == ["0", "1"]
    assert params[1].shape == (2, 2) and len(params) == 2
    with pytest.raises(TypeError, match="must be Parameters"):
        params.append(static.data("x", [2], "float32"))


# -- training: a Sequential equals the hand-built fc program


def _train(build, steps=4):
    """Losses of `steps` SGD steps on a fixed regression batch; `build(x)` -> prediction."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        label = static.data("label", [None, 2], "float32")
        pred = build(x)
        loss = paddle.mean((pred - label) * (pred - label))
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    exe = static.Executor()
    exe.run(startup)
    rng = np.random.RandomState(0)
    feed = {"x": rng.randn(8, 3).astype("float32"),
            "label": rng.randn(8, 2).astype("float32")}
    return [float(exe.run(main, feed=feed, fetch_list=[loss])[0]) for _ in range(steps)]


def test_sequential_mlp_trains_like_the_fluid_fc_program():
    init = [np.random.RandomState(s).uniform(-0.8, 0.8, shape).astype("float32")
            for s, shape in enumerate([(3, 5), (5,), (5, 2), (2,)])]
    attrs = [paddle.ParamAttr(initializer=nn.initializer.Assign(v)) for v in init]

    def with_layers(x):
        return nn.Sequential(nn.Linear(3, 5, attrs[0], attrs[1]), nn.ReLU(),
                             nn.Linear(5, 2, attrs[2], attrs[3]))(x)

    def with_fc(x):
        hidden = fluid.layers.fc(x, 5, param_attr=attrs[0], bias_attr=attrs[1], act="relu")
        return fluid.layers.fc(hidden, 2, param_attr=attrs[2], bias_attr=attrs[3])

    layer_losses, fc_losses = _train(with_layers), _train(with_fc)
    assert layer_losses[-1] < layer_losses[0] * 0.9
    np.testing.assert_allclose(layer_losses, fc_losses, rtol=1e-5)


# -- conv, pooling, embedding, flatten


def test_conv2d_matches_the_loop_reference_and_checks_channels():
    x = static.data("x", [None, 4, 6, 5], "float32")
    conv = nn.Conv2D(4, 6, (3, 2), stride=(2, 1), padding=1, groups=2)
    assert conv.weight.shape == (6, 2, 3, 2) and conv.bias.shape == (6,)
    y = conv(x)
    exe = startup_executor()
    a = RNG.randn(2, 4, 6, 5).astype("float32")
    w = scope_value(conv.weight)
    assert 0.2 < np.std(w) < 0.6          # Normal(0, sqrt(2 / (3 * 2 * 4))) = 0.41
    conv.set_state_dict({"weight": w, "bias": np.arange(6.0)})
    out, = exe.run(feed={"x": a}, fetch_list=[y])
    want = conv_loops(a, w, (2, 1), (1, 1, 1, 1), groups=2) + np.arange(6.0)[:, None, None]
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"Conv2D conv2d_0: input 'z' \[-1, 3, 6, 5\] has 3 "
                                         r"at dim 1, expected in_channels=4"):
        conv(static.data("z", [None, 3, 6, 5], "float32"))
    with pytest.raises(ValueError, match="rank 3, expected rank 4"):
        conv(static.data("r", [4, 6, 5], "float32"))


def test_pool_layers_match_numpy():
    x = static.data("x", [None, 2, 4, 4], "float32")
    outs = [nn.MaxPool2D(2)(x), nn.AvgPool2D(2, stride=2)(x), nn.AdaptiveAvgPool2D(1)(x),
            nn.AdaptiveMaxPool2D(2)(x)]
    a = RNG.randn(3, 2, 4, 4).astype("float32")
    mx, avg, gavg, amx = startup_executor().run(feed={"x": a}, fetch_list=outs)
    blocks = a.reshape(3, 2, 2, 2, 2, 2)
    np.testing.assert_allclose(mx, blocks.max(axis=(3, 5)), rtol=1e-6)
    np.testing.assert_allclose(avg, blocks.mean(axis=(3, 5)), rtol=1e-5)
    np.testing.assert_allclose(gavg, a.mean(axis=(2, 3), keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(amx, blocks.max(axis=(3, 5)), rtol=1e-6)


def test_embedding_and_flatten():
    ids = static.data("ids", [None, 3], "int64")
    emb = nn.Embedding(10, 4, padding_idx=-1)
    vec = emb(ids)
    flat = nn.Flatten()(vec)
    assert vec.shape == (-1, 3, 4) and flat.shape == (-1, 12)
    exe = startup_executor()
    w = scope_value(emb.weight)
    i = np.array([[1, 9, 3], [0, 0, 2]])
    v, f = exe.run(feed={"ids": i}, fetch_list=[vec, flat])
    want = w[i] * (i != 9)[..., None]                  # padding_idx -1 is row 9: zeros
    np.testing.assert_allclose(v, want)
    np.testing.assert_allclose(f, want.reshape(2, 12))


# -- train / eval


def _is_test_of(op_type):
    return [op.attr("is_test") for op in static.default_main_program().global_block().ops
            if op.type == op_type]


def test_dropout_follows_train_and_eval():
    x = static.data("x", [None, 1000], "float32")
    drop = nn.Dropout(0.5)
    y_train = drop(x)
    drop.eval()
    y_eval = drop(x)
    assert _is_test_of("dropout") == [False, True]
    a = np.ones((2, 1000), "float32")
    yt, ye = startup_executor().run(feed={"x": a}, fetch_list=[y_train, y_eval])
    assert set(np.unique(yt)) == {0.0, 2.0} and 0.4 < (yt == 0).mean() < 0.6
    np.testing.assert_array_equal(ye, a)


@pytest.mark.parametrize("mode", ["upscale_in_train", "downscale_in_infer"])
def test_dropout_along_axes_drops_whole_slices(mode):
    # Paddle 2.0's axis: one draw per index of the given axes, broadcast over the others
    # (PaddleNLP's word_embedding: Dropout(p=0.3, axis=1)); eval: x, or x (1 - p)
    x = static.data("x", [4, 50, 6], "float32")
    drop = nn.Dropout(0.5, axis=[0, 2], mode=mode)
    y_train = drop(x)
    drop.eval()
    y_eval = drop(x)
    a = np.arange(1, 1201, dtype="float32").reshape(4, 50, 6)
    yt, ye = startup_executor().run(feed={"x": a}, fetch_list=[y_train, y_eval])
    kept = yt != 0
    assert (kept == kept[:, :1, :]).all() and 0.2 < kept.mean() < 0.8
    scale = 2.0 if mode == "upscale_in_train" else 1.0
    np.testing.assert_allclose(yt[kept], scale * a[kept], rtol=1e-6)
    np.testing.assert_allclose(ye, a if mode == "upscale_in_train" else 0.5 * a, rtol=1e-6)
    with pytest.raises(ValueError, match=r"axis must be ints in \[0, 3\)"):
        nn.functional.dropout(x, 0.5, axis=3)


def test_batch_norm_training_uses_batch_stats_and_eval_the_running_ones():
    x = static.data("x", [None, 3, 2, 2], "float32")
    model = nn.Sequential(nn.BatchNorm2D(3, momentum=0.5))
    bn = model[0]
    y_train = model(x)
    model.eval()
    assert not bn.training
    y_eval = model(x)
    model.train()
    assert bn.training
    assert _is_test_of("batch_norm") == [False, True]
    a = RNG.randn(4, 3, 2, 2).astype("float32") * 2 + 1
    exe = startup_executor()
    yt, ye = exe.run(feed={"x": a}, fetch_list=[y_train, y_eval])   # the eval op runs after
    mean, var = a.mean(axis=(0, 2, 3)), a.var(axis=(0, 2, 3))
    bshape = (1, 3, 1, 1)
    np.testing.assert_allclose(yt, (a - mean.reshape(bshape)) /
                               np.sqrt(var.reshape(bshape) + 1e-5), rtol=1e-4, atol=1e-5)
    running_mean, running_var = scope_value(bn._mean), scope_value(bn._variance)
    np.testing.assert_allclose(running_mean, 0.5 * mean, rtol=1e-5)
    np.testing.assert_allclose(running_var, 0.5 + 0.5 * var, rtol=1e-5)
    np.testing.assert_allclose(ye, (a - running_mean.reshape(bshape)) /
                               np.sqrt(running_var.reshape(bshape) + 1e-5), rtol=1e-4,
                               atol=1e-5)


def test_batch_norm_variants_check_ranks_and_layouts():
    assert [p.name for p in nn.BatchNorm(3).parameters()] == \
        ["batch_norm_0.w_0", "batch_norm_0.b_0", "batch_norm_0.w_1", "batch_norm_0.w_2"]
    bn1 = nn.BatchNorm1D(4, data_format="NLC")
    y = bn1(static.data("x", [None, 5, 4], "float32"))
    op = static.default_main_program().global_block().ops[-1]
    assert op.attr("data_layout") == "NHWC" and y.shape == (-1, 5, 4)
    with pytest.raises(ValueError, match=r"BatchNorm1D batch_norm1d_0: input 'x4' "
                                         r"\[2, 4, 1, 1\] has rank 4, expected rank 2 or 3"):
        bn1(static.data("x4", [2, 4, 1, 1], "float32"))
    with pytest.raises(ValueError, match="data_format must be one of"):
        nn.BatchNorm3D(2, data_format="NCHW")
    bn3 = nn.BatchNorm3D(2)
    with pytest.raises(ValueError, match="has 3 at dim 1, expected num_features=2"):
        bn3(static.data("v", [1, 3, 2, 2, 2], "float32"))
    frozen = nn.BatchNorm2D(2, weight_attr=False, bias_attr=False)
    assert [p.trainable for p in frozen.parameters()] == [False] * 4
    fluid_style = nn.BatchNorm(2, act="relu")
    fluid_style.eval()
    fluid_style(static.data("z", [None, 2, 3, 3], "float32"))
    assert _ops()[-2:] == ["batch_norm", "relu"] and _is_test_of("batch_norm")[-1] is True


def test_sync_batch_norm_and_conversion_share_parameters():
    x = static.data("x", [None, 2, 3], "float32")
    model = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1D(2))
    bn = model[1]
    params_before = static.default_main_program().all_parameters()
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert converted is model and isinstance(model[1], nn.SyncBatchNorm)
    assert model[1].parameters() == bn.parameters()
    assert static.default_main_program().all_parameters() == params_before
    y = model(x)
    assert _ops()[-1] == "sync_batch_norm"
    model.eval()
    model(x)
    assert _is_test_of("sync_batch_norm") == [False, True]
    a = RNG.randn(4, 2, 3).astype("float32")
    out, = startup_executor().run(feed={"x": a}, fetch_list=[y])
    h = a @ scope_value(model[0].weight) + scope_value(model[0].bias)
    mean, var = h.mean(axis=(0, 2), keepdims=True), h.var(axis=(0, 2), keepdims=True)
    np.testing.assert_allclose(out, (h - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-4)


def test_layer_norm_layer():
    x = static.data("x", [None, 2, 3], "float32")
    ln = nn.LayerNorm([2, 3], epsilon=1e-6)
    assert ln.weight.shape == (6,)
    y = ln(x)
    a = RNG.randn(4, 2, 3).astype("float32")
    out, = startup_executor().run(feed={"x": a}, fetch_list=[y])
    flat = a.reshape(4, 6)
    want = (flat - flat.mean(1, keepdims=True)) / np.sqrt(flat.var(1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(out, want.reshape(4, 2, 3), rtol=1e-4, atol=1e-5)
    assert nn.LayerNorm(3, weight_attr=False, bias_attr=False).parameters() == []


# -- activations and losses


ACTIVATIONS = [
    (nn.ReLU, (), lambda a: np.maximum(a, 0)),
    (nn.ReLU6, (), lambda a: np.clip(a, 0, 6)),
    (nn.Sigmoid, (), lambda a: 1 / (1 + np.exp(-a))),
    (nn.Tanh, (), np.tanh),
    (nn.Softmax, dict(axis=0), lambda a: _softmax(a, 0)),
    (nn.LogSoftmax, (), lambda a: np.log(_softmax(a))),
    (nn.ELU, dict(alpha=0.5), lambda a: np.where(a > 0, a, 0.5 * (np.exp(a) - 1))),
    (nn.LeakyReLU, (0.2,), lambda a: np.where(a > 0, a, 0.2 * a)),
    (nn.Hardshrink, (0.8,), lambda a: np.where(np.abs(a) > 0.8, a, 0)),
    (nn.Softshrink, (0.8,), lambda a: np.sign(a) * np.maximum(np.abs(a) - 0.8, 0)),
    (nn.Hardtanh, (-0.5, 0.7), lambda a: np.clip(a, -0.5, 0.7)),
    (nn.Hardsigmoid, (), lambda a: np.clip(a / 6 + 0.5, 0, 1)),
    (nn.Hardswish, (), lambda a: a * np.clip(a + 3, 0, 6) / 6),
    (nn.LogSigmoid, (), lambda a: -np.log1p(np.exp(-a))),
    (nn.Softplus, dict(beta=2), lambda a: np.log1p(np.exp(2 * a)) / 2),
    (nn.Softsign, (), lambda a: a / (1 + np.abs(a))),
    (nn.Swish, (), lambda a: a / (1 + np.exp(-a))),
    (nn.Tanhshrink, (), lambda a: a - np.tanh(a)),
    (nn.ThresholdedReLU, (0.5,), lambda a: np.where(a > 0.5, a, 0)),
    (nn.SELU, (), lambda a: 1.0507009873554805 * np.where(
        a > 0, a, 1.6732632423543772 * (np.exp(a) - 1))),
    (nn.GELU, (), lambda a: 0.5 * a * (1 + np.vectorize(math.erf)(a / np.sqrt(2)))),
]


@pytest.mark.parametrize("cls,args,reference", ACTIVATIONS,
                         ids=[cls.__name__ for cls, _, _ in ACTIVATIONS])


def test_activation_layers_match_numpy(cls, args, reference):
    x = static.data("x", [3, 4], "float64")
    y = cls(**args)(x) if isinstance(args, dict) else cls(*args)(x)
    a = np.array([[-2.5, -0.9, -0.3, 0.2], [0.6, 1.1, 3.0, 7.0], [-7.0, 0.45, -0.55, 2.0]])
    out, = startup_executor().run(feed={"x": a}, fetch_list=[y])
    np.testing.assert_allclose(out, reference(a), rtol=1e-6, atol=1e-6)


def test_activation_and_pool_layers_take_their_settings_in_paddles_order_then_name():
    assert str(inspect.signature(nn.Hardtanh)) == "(min=-1.0, max=1.0, name=None)"
    assert str(inspect.signature(nn.Maxout)) == "(groups, axis=1, name=None)"
    layer = nn.Softplus(3, 10, "sp")
    assert (layer._settings, layer._name) == ({"beta": 3, "threshold": 10}, "sp")
    assert repr(nn.Maxout(4)) == "Maxout(groups=4, axis=1)"
    with pytest.raises(TypeError, match=r"Maxout\(\): missing a required argument: 'groups'"):
        nn.Maxout()
    with pytest.raises(TypeError, match=r"ELU\(\): got an unexpected keyword argument 'beta'"):
        nn.ELU(beta=1)
    pool = nn.AvgPool2D(2, 1, 0, True)
    assert pool._settings == dict(kernel_size=2, stride=1, padding=0, ceil_mode=True,
                                  exclusive=True, divisor_override=None, data_format="NCHW")
    assert repr(pool) == "AvgPool2D(kernel_size=2, stride=1, padding=0)"
    with pytest.raises(ValueError, match=r"has rank 3, expected rank 4"):
        pool(static.data("x3", [2, 3, 4], "float32"))


def test_loss_layers_match_numpy():
    logits = static.data("logits", [4, 3], "float64")
    label = static.data("label", [4, 1], "int64")
    target = static.data("target", [4, 3], "float64")
    ce, ce_sum = nn.CrossEntropyLoss()(logits, label), \
        nn.CrossEntropyLoss(reduction="sum")(logits, label)
    mse, mse_none = nn.MSELoss()(logits, target), nn.MSELoss("none")(logits, target)
    a, t = RNG.randn(4, 3), RNG.randn(4, 3)
    lab = np.array([[0], [2], [1], [2]])
    got = startup_executor().run(feed={"logits": a, "label": lab, "target": t},
                     fetch_list=[ce, ce_sum, mse, mse_none])
    nll = -np.log(_softmax(a))[np.arange(4), lab[:, 0]]
    np.testing.assert_allclose(got[0], nll.mean(), rtol=1e-10)
    np.testing.assert_allclose(got[1], nll.sum(), rtol=1e-10)
    np.testing.assert_allclose(got[2], ((a - t) ** 2).mean(), rtol=1e-10)
    np.testing.assert_allclose(got[3], (a - t) ** 2, rtol=1e-10)
    with pytest.raises(ValueError, match="MSELoss: reduction must be one of"):
        nn.MSELoss("avg")


# -- attention


def test_multi_head_attention_matches_numpy_with_a_bool_mask():
    q_in = static.data("q", [None, 3, 4], "float32")
    kv_in = static.data("kv", [None, 5, 6], "float32")
    mask = static.data("mask", [None, 1, 3, 5], "bool")
    mha = nn.MultiHeadAttention(4, 2, kdim=6, vdim=6, need_weights=True)
    assert [n for n, _ in mha.named_parameters()][:3] == ["q_proj.weight", "q_proj.bias",
                                                           "k_proj.weight"]
    assert mha.k_proj.weight.shape == (6, 4)
    out, weights = mha(q_in, kv_in, kv_in, attn_mask=mask)
    assert out.shape == (-1, 3, 4) and weights.shape == (-1, 2, 3, 5)
    exe = startup_executor()
    proj = {name: (scope_value(getattr(mha, name).weight), scope_value(getattr(mha, name).bias))
            for name in ("q_proj", "k_proj", "v_proj", "out_proj")}
    a, b = RNG.randn(2, 3, 4).astype("float32"), RNG.randn(2, 5, 6).astype("float32")
    m = RNG.rand(2, 1, 3, 5) > 0.3
    m[..., 0] = True                                     # every query attends somewhere
    got_out, got_w = exe.run(feed={"q": a, "kv": b, "mask": m}, fetch_list=[out, weights])

    def heads(x, name):
        w, bias = proj[name]
        return (x @ w + bias).reshape(2, -1, 2, 2).transpose(0, 2, 1, 3)

    scores = heads(a, "q_proj") @ heads(b, "k_proj").transpose(0, 1, 3, 2) / np.sqrt(2)
    want_w = _softmax(np.where(m, scores, scores - 1e9))
    context = (want_w @ heads(b, "v_proj")).transpose(0, 2, 1, 3).reshape(2, 3, 4)
    np.testing.assert_allclose(got_w, want_w, rtol=1e-4, atol=1e-6)
    # masked keys get exp(-64) / row sum at most: Paddle's softmax floor (activation.md)
    masked = got_w[~np.broadcast_to(m, got_w.shape)]
    assert masked.size and np.all((masked > 0) & (masked <= np.exp(-64)))
    np.testing.assert_allclose(got_out, context @ proj["out_proj"][0] + proj["out_proj"][1],
                               rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="embed_dim \\(5\\) must be a positive multiple"):
        nn.MultiHeadAttention(5, 2)


def test_transformer_incremental_decoding_with_caches_matches_the_full_causal_pass(dygraph):
    # Paddle 2.0's caches: a decoder fed one target step at a time with gen_cache's
    # (Cache, StaticCache) gives the rows of one pass under a causal mask (a float64 mask,
    # cast to the float32 scores as 2.0 does)
    paddle.seed(5)
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0), 2)
    decoder.eval()
    tgt = RNG.randn(2, 3, 4).astype("float32")
    memory = paddle.to_tensor(RNG.randn(2, 5, 4).astype("float32"))
    causal = np.triu(np.full([3, 3], -np.inf), 1)
    full = decoder(paddle.to_tensor(tgt), memory, paddle.to_tensor(causal)).numpy()
    cache = decoder.gen_cache(memory)
    (incremental, static_kv), _ = cache
    assert incremental.k.shape == [2, 2, 0, 2] and static_kv.v.shape == [2, 2, 5, 2]
    steps = []
    for t in range(3):
        out, cache = decoder(paddle.to_tensor(tgt[:, t:t + 1]), memory, None, None, cache)
        steps.append(out.numpy())
    assert [c[0].k.shape for c in cache] == [[2, 2, 3, 2]] * 2      # three steps each
    assert [c[1].k.shape for c in cache] == [[2, 2, 5, 2]] * 2      # the memory's, kept
    caches, statics = decoder.gen_cache(memory, do_zip=True)
    assert len(caches) == len(statics) == 2 and caches[0].k.shape == [2, 2, 0, 2]
    np.testing.assert_allclose(np.concatenate(steps, axis=1), full, rtol=1e-5, atol=1e-6)


def test_multi_head_attention_cache_appends_and_static_cache_replaces_keys(dygraph):
    mha = nn.MultiHeadAttention(4, 2)
    x = paddle.to_tensor(RNG.randn(1, 2, 4).astype("float32"))
    past = mha.Cache(paddle.to_tensor(RNG.randn(1, 2, 3, 2).astype("float32")),
                     paddle.to_tensor(RNG.randn(1, 2, 3, 2).astype("float32")))
    out, new = mha(x, x, x, None, past)
    k, v = mha.compute_kv(x, x)
    np.testing.assert_array_equal(new.k.numpy(), np.concatenate([past.k.numpy(), k.numpy()], 2))
    np.testing.assert_array_equal(new.v.numpy(), np.concatenate([past.v.numpy(), v.numpy()], 2))
    fixed = mha.StaticCache(past.k, past.v)
    out, same = mha(x, x, x, None, fixed)
    assert same is fixed
    q = (x.numpy() @ mha.q_proj.weight.numpy() + mha.q_proj.bias.numpy()).reshape(
        1, 2, 2, 2).transpose(0, 2, 1, 3)
    w = _softmax(q @ past.k.numpy().transpose(0, 1, 3, 2) / np.sqrt(2))
    context = (w @ past.v.numpy()).transpose(0, 2, 1, 3).reshape(1, 2, 4)
    np.testing.assert_allclose(out.numpy(), context @ mha.out_proj.weight.numpy()
                               + mha.out_proj.bias.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="Cache or StaticCache"):
        mha(x, x, x, None, (past.k, past.v))
