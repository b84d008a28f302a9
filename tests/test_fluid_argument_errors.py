"""Argument errors Paddle raises from Python, with Paddle's exception types: redeclared
variables, reshape's asserted shapes, backward's argument types, 1.8's dtype list
(specs/fluid_core.md, "Argument errors")."""
import numpy as np
import pytest

from refimpl import fluid, nn
from refimpl.framework.errors import LayerAssertionError


def test_redeclaring_a_variable_must_agree_with_it():
    block = fluid.Program().global_block()
    w = block.create_var(name="w", shape=[784, 100], dtype="float64")
    assert block.create_var(name="w") is w
    assert block.create_var(name="w", shape=(784, 100), dtype="float64") is w
    with pytest.raises(ValueError, match="previous shape is \\(784, 100\\).*\\(24, 100\\)"):
        block.create_var(name="w", shape=(24, 100))
    with pytest.raises(ValueError, match="previous data type is float64"):
        block.create_var(name="w", dtype="float32")


@pytest.mark.parametrize("shape, message", [([-1, -1, 5], "Only one dimension"),
                                            ([2, 5, 5, 0], "index of 0"),
                                            ([-1, -2, 5], "must not be negative")])


def test_reshape_shape_asserts(shape, message):
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [2, 25], "float32")
        # Paddle asserts (AssertionError); refimpl's errors are ValueErrors: both
        with pytest.raises(AssertionError, match=message):
            fluid.layers.reshape(x, shape)
        with pytest.raises(ValueError, match=message):
            fluid.layers.reshape(x, shape)
    assert issubclass(LayerAssertionError, ValueError)


def test_backward_argument_types():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [None, 4], "float32")
        x.stop_gradient = False
        y = fluid.layers.fc(x, 2)
        with pytest.raises(TypeError, match="targets"):
            fluid.gradients(y.name, x)
        with pytest.raises(TypeError, match="inputs"):
            fluid.gradients(y, x.name)
        with pytest.raises(TypeError, match="target_gradients"):
            fluid.gradients([y], [x], target_gradients=x.name)
        with pytest.raises(TypeError, match="no_grad_set should be set or list or tuple"):
            fluid.gradients([y], x, no_grad_set=y)
        with pytest.raises(TypeError, match="no_grad_set's member"):
            fluid.backward.append_backward(fluid.layers.mean(y), no_grad_set=[x, "a", 3])
        with pytest.raises(TypeError, match="parameter_list should be"):
            fluid.backward.append_backward(fluid.layers.mean(y), parameter_list="w")


@pytest.mark.paddle("1.8")
def test_fluid18_dtype_arguments_outside_its_list_are_value_errors():
    # Paddle 1.8's convert_dtype knows nine dtypes; complex ones raise ValueError there
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.raises(ValueError, match="dtype must be any of"):
            fluid.layers.create_global_var([1, 2, 3], 2.0, np.complex128)
        with pytest.raises(TypeError, match="must be"):
            fluid.layers.create_global_var(1, 2.0, np.float32)


def test_variable_to_string():
    block = fluid.Program().global_block()
    v = block.create_var(name="v", dtype="float64", shape=[1, 1])
    text = v.to_string(True)
    assert text.startswith('name: "v"') and "data_type: FP64" in text
    assert "stop_gradient" in v.to_string(True, True)
    with pytest.raises(TypeError, match="with_details must be a bool"):
        v.to_string(True, 1)


def test_pool2d_arguments_and_unknown_dims():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data("x", [2, 5, 5, 3], append_batch_size=False, dtype="float32")
        with pytest.raises(TypeError, match="use_cudnn"):
            fluid.layers.pool2d(x, 3, use_cudnn=[0], data_format="NHWC")
        with pytest.raises(ValueError, match="data_format"):
            fluid.layers.pool2d(x, 3, data_format="NHWCC")
        with pytest.raises(ValueError, match="VALID"):
            fluid.layers.pool2d(x, 3, pool_padding="VALID", ceil_mode=True)
        # a dim unknown at build time stays -1; the others are computed (Paddle's shapes)
        y = fluid.layers.data("y", [2, -1, 5, 3], append_batch_size=False, dtype="float32")
        out = fluid.layers.pool2d(y, [3, 3], "avg", pool_padding=[0, 0], data_format="NHWC")
        assert out.shape == (2, -1, 3, 3)
        z = fluid.layers.data("z", [2, 3, -1, -1], append_batch_size=False, dtype="float32")
        assert fluid.layers.pool2d(z, 3).shape == (2, 3, -1, -1)
        assert fluid.layers.adaptive_pool2d(z, [2, 2]).shape == (2, 3, 2, 2)


def test_pool3d_arguments_raise_paddle_1_8_error_types():
    """The types Paddle 1.8.5's pool3d raises: TypeError for use_cudnn, ValueError else."""
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data("x", [2, 5, 5, 5, 3], append_batch_size=False, dtype="float32")
        with pytest.raises(TypeError, match="pool3d: use_cudnn must be True or False"):
            fluid.layers.pool3d(x, 3, use_cudnn=[0], data_format="NDHWC")
        with pytest.raises(ValueError, match="pool3d: pool_size must be given"):
            fluid.layers.pool3d(x)
        with pytest.raises(ValueError, match="pool3d: with pool_padding \"VALID\""):
            fluid.layers.pool3d(x, 3, pool_padding="VALID", ceil_mode=True,
                                data_format="NDHWC")
        with pytest.raises(ValueError, match="data_format"):
            fluid.layers.pool3d(x, 3, data_format="NDHWCC")
        assert fluid.layers.pool3d(x, 3, global_pooling=True, data_format="NDHWC").shape == \
            (2, 1, 1, 1, 3)


def test_rnn_cells_check_their_arguments():
    from refimpl.fluid.layers import GRUCell, LSTMCell
    with pytest.raises(TypeError, match="dtype must be float32 or float64"):
        GRUCell(8, dtype="int32")
    with pytest.raises(TypeError, match="hidden_size must be an int"):
        LSTMCell(8.0)
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [None, 4], "float32")
        h = fluid.data("h", [None, 8], "float32")
        bad = fluid.data("bad", [None, 8], "int32")
        with pytest.raises(TypeError, match="states\\[0\\] 'bad' must be float32"):
            GRUCell(8)(x, bad)
        with pytest.raises(TypeError, match="states\\[1\\] 'bad'"):
            LSTMCell(8)(x, [h, bad])
        with pytest.raises(TypeError, match="must be a static Variable"):
            GRUCell(8)(x, np.zeros((2, 8), "float32"))
        with pytest.raises(TypeError, match="list \\[hidden, cell\\]"):
            LSTMCell(8)(x, h)


@pytest.mark.paddle("1.8")
def test_fluid18_layer_arguments_paddle_1_8_5_refuses():
    # each raised the same exception type in Paddle 1.8.5 (its test_*_op.py error cases)
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [None, 2], "float32")
        with pytest.raises(TypeError, match="'input' in assign must be"):
            fluid.layers.assign(fluid.data("u8", [4], "uint8"))
        for array in (np.array([2.5], "float64"), np.array([2], "uint8")):
            with pytest.raises(TypeError, match="when it is a numpy.ndarray"):
                fluid.layers.assign(array)
        assert fluid.layers.assign(np.array([1.5], "float32")).dtype.name == "float32"
        with pytest.raises(TypeError, match="'input' in meshgrid must be list"):
            fluid.layers.meshgrid(x)
        with pytest.raises(TypeError, match="non-negative int"):
            fluid.layers.eye(-1)
        with pytest.raises(TypeError, match="num_columns should be a non-negative int"):
            fluid.layers.eye(3, num_columns=5.2)
        with pytest.raises(ValueError, match="at least 2"):
            fluid.layers.multiplex([x], fluid.data("i", [None, 1], "int32"))
        with pytest.raises(ValueError, match="data_format must be"):
            fluid.layers.lrn(fluid.data("img", [2, 4, 5, 5], "float32"), data_format="NDHW")
        gru = fluid.dygraph.GRUUnit(size=6)
        with pytest.raises(TypeError, match="float16"):
            gru(fluid.data("h16", [None, 6], "float16"), fluid.data("h", [None, 2], "float32"))
        with pytest.raises(TypeError, match="float32, float64"):
            fluid.dygraph.SpectralNorm([2, 4], dim=1)(fluid.data("w", [2, 4], "int32"))
        with pytest.raises(TypeError, match="'out' in randperm must be Variable"):
            fluid.layers.randperm(n=10, out=np.arange(10))
        # full: shape may be a list (1.8's check that shape is a Variable is made only when
        # `out` is given)
        assert fluid.layers.full([2, 1], 1.5, dtype="float32").shape == (2, 1)
        with pytest.raises(TypeError, match="'shape' in full must be"):
            fluid.layers.full("2", 1.5)
        # the resize layers take only a bool align_corners (test_bicubic_interp_op)
        image = fluid.data("image", [2, 3, 6, 6], "float32")
        for resize in (fluid.layers.resize_nearest, fluid.layers.resize_bilinear,
                       fluid.layers.image_resize, fluid.layers.interpolate):
            with pytest.raises(TypeError, match="'align_corners' in .* must be bool"):
                resize(image, out_shape=[12, 12], align_corners=3)
        for resize in (fluid.layers.resize_bilinear, fluid.layers.image_resize,
                       fluid.layers.interpolate, nn.functional.interpolate):
            with pytest.raises(ValueError, match="align_mode must be 0 or 1, got 2"):
                resize(image, [12, 12], align_corners=False, align_mode=2)
        # paddle.nn.functional.interpolate takes a bool only (Paddle 2.0's test_bicubic_interp_op)
        with pytest.raises(TypeError, match="align_corners must be a bool, got int"):
            nn.functional.interpolate(image, [12, 12], mode="bicubic", align_corners=3)
        # the two NMS layers take the same argument types (test_multiclass_nms_op)
        boxes = fluid.data("boxes", [2, 3, 4], "float32")
        scores = fluid.data("scores", [2, 1, 3], "float32")
        for nms in ("multiclass_nms", "locality_aware_nms"):
            with pytest.raises(TypeError, match="'nms_threshold' in %s must be float, but "
                               "received int" % nms):
                getattr(fluid.layers, nms)(boxes, scores, 0.1, 10, 5, nms_threshold=1)
            with pytest.raises(TypeError, match="'keep_top_k' in %s must be int" % nms):
                getattr(fluid.layers, nms)(boxes, scores, 0.1, 10, 5.0)
        # roll: 1.8 makes an int shift a list before checking it
        out = fluid.layers.roll(x, shifts=1)
    got, = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": np.array([[1.0, 2.0]], "float32")}, fetch_list=[out])
    assert got.tolist() == [[2.0, 1.0]]


def test_fluid_embedding_takes_integer_ids_and_a_float_table():
    # Paddle 1.8.5's test_lookup_table_v2_op error cases; fluid.input.embedding is the same
    assert fluid.input.embedding is fluid.embedding and fluid.input.one_hot is fluid.one_hot
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.raises(TypeError, match="static Variable"):
            fluid.embedding(input=np.zeros((4, 6), "int64"), size=(10, 64))
        with pytest.raises(TypeError, match="input must have dtype in"):
            fluid.embedding(input=fluid.data("f", [4, 6], "float32"), size=(10, 64))
        ids = fluid.data("ids", [4, 6], "int64")
        with pytest.raises(TypeError, match="dtype must be float16, float32 or float64"):
            fluid.embedding(input=ids, size=(10, 64), dtype="int64")
        assert fluid.embedding(input=ids, size=(10, 64), dtype="float16").shape == (4, 6, 64)
        with pytest.raises(TypeError, match="int64"):     # 1.8's dygraph Embedding: int64 ids
            fluid.dygraph.Embedding([10, 4])(fluid.data("i32", [3], "int32"))


@pytest.mark.paddle("1.8")
def test_fluid18_checks_that_relate_arguments():
    # Paddle 1.8.5 raised each of these (its test_addcmul, test_is_empty_op,
    # test_get_tensor_from_selected_rows_op, test_randn_op and test_logsumexp error cases)
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [2, 3], "float32")
        ints = fluid.data("ints", [2, 3], "int32")
        with pytest.raises(TypeError, match="'value' in addcmul must be float for a float32"):
            fluid.layers.addcmul(x, x, x, value=1)
        with pytest.raises(TypeError, match="'value' in addcmul must be int for a int32"):
            fluid.layers.addcmul(ints, ints, ints, value=1.0)
        assert fluid.layers.addcmul(x, x, x, value=0.5).shape == (2, 3)
        with pytest.raises(TypeError, match="'cond' in is_empty must be \\['bool'\\]"):
            fluid.layers.is_empty(x, cond=fluid.data("c", [1], "float32"))
        with pytest.raises(TypeError, match="must be SELECTED_ROWS, but received LOD_TENSOR"):
            fluid.layers.get_tensor_from_selected_rows(x)
        with pytest.raises(AssertionError, match="randn: the size of argument 'shape'"):
            fluid.layers.randn(shape=[])
        with pytest.raises(AssertionError, match="logsumexp: 'x' cannot be None"):
            fluid.layers.logsumexp(None)
        # crop_tensor: each listed offset, then each size, that is not a Variable
        offset = fluid.data("offset", [1], "int32")
        with pytest.raises(TypeError, match="crop_tensor: shape\\[1\\] must be an int or a"):
            fluid.layers.crop_tensor(x, shape=[2, 2.0])
        with pytest.raises(ValueError, match="shape\\[1\\] must be positive or -1, got -2"):
            fluid.layers.crop_tensor(x, shape=[2, -2])
        with pytest.raises(ValueError, match="shape\\[0\\] must be positive or -1, got 0"):
            fluid.layers.crop_tensor(x, shape=[0, offset])
        with pytest.raises(TypeError, match="offsets\\[1\\] must be an int or a Variable"):
            fluid.layers.crop_tensor(x, shape=[2, 2], offsets=[0, 1.0])
        with pytest.raises(ValueError, match="offsets\\[0\\] must be >= 0, got -1"):
            fluid.layers.crop_tensor(x, shape=[-1, 2], offsets=[-1, offset])
        assert fluid.layers.crop_tensor(x, shape=[-1, 2], offsets=[0, 1]).shape[1] == 2


def test_scaled_dot_product_attention_arguments():
    # the exception types of Paddle 1.8.5's test_scaled_dot_product_attention error cases
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        queries = fluid.data("q", [3, 5, 9], "float32")
        keys = fluid.data("k", [3, 6, 9], "float32")
        values = fluid.data("v", [3, 6, 10], "float32")
        attention = fluid.nets.scaled_dot_product_attention
        with pytest.raises(TypeError, match="'keys' must be a static Variable"):
            attention(queries, np.zeros((3, 6, 9), "float32"), values)
        with pytest.raises(TypeError, match="one dtype, got float32, float64 and float64"):
            attention(queries, fluid.data("k64", [3, 6, 9], "float64"),
                      fluid.data("v64", [3, 6, 10], "float64"))
        with pytest.raises(ValueError, match="same length, got 7 and 6"):
            attention(queries, fluid.data("k7", [3, 7, 9], "float32"), values)
        assert attention(queries, keys, values).shape == (3, 5, 10)


def test_batch_norm_layer_checks_the_dtype_before_the_channels():
    """Paddle 1.8.5's dygraph BatchNorm(10) called on a static int32 [-1, 3, 4, 5, 6] input
    raises TypeError ('The data type of 'input' in BatchNorm must be ['float16', 'float32',
    'float64'], but received int32') before any shape check; a float input with 3 channels
    fails its shape check."""
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        batch_norm = fluid.dygraph.BatchNorm(10)
        ints = fluid.layers.data(name="x2", shape=[3, 4, 5, 6], dtype="int32")
        with pytest.raises(TypeError, match="'x2' has dtype int32, expected one of float16"):
            batch_norm(ints)
        floats = fluid.layers.data(name="x3", shape=[3, 4, 5, 6], dtype="float32")
        with pytest.raises(ValueError, match="has 3 at dim 1, expected num_channels=10"):
            batch_norm(floats)


def test_fluid20_layer_checks_are_18s_with_20s_changes(paddle_version):
    # Paddle 2.0's fluid.layers keep 1.8.5's checks (its test_sequence_first_step refuses an
    # int64 input), widen some lists (bool reshape, float64 sequence_pool, tuple squeeze
    # axes) and, as 2.0's check_type / check_dtype, skip eager calls
    def build():
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            ids = fluid.data("ids", [None, 1], "int64", lod_level=1)
            with pytest.raises(TypeError, match="'input' in sequence_first_step must be"):
                fluid.layers.sequence_first_step(ids)
            flags = fluid.data("flags", [2, 3], "bool")
            seq = fluid.data("seq", [None, 3], "float64", lod_level=1)
            return (fluid.layers.reshape(flags, [3, 2]).shape,
                    fluid.layers.sequence_pool(seq, "sum").dtype.name,
                    fluid.layers.squeeze(fluid.data("one", [2, 1], "float32"), (1,)).shape)

    with paddle_version("2.0"):
        assert build() == ((3, 2), "float64", (2,))
        with fluid.program_guard(fluid.Program(), fluid.Program()):    # a 2.0 check
            with pytest.raises(TypeError, match="'input' in ctc_greedy_decoder must be"):
                fluid.layers.ctc_greedy_decoder(fluid.data("ids", [None, 1], "int64"), 0)
        # 2.0's convert_dtype knows complex128: the layer's own check refuses it
        with pytest.raises(TypeError, match="'dtype' in create_global_var must be"):
            fluid.layers.create_global_var([1, 2, 3], 2.0, np.complex128)
        with fluid.dygraph.guard():
            eager = fluid.dygraph.to_variable(np.zeros((2, 3), "int8"))
            assert fluid.layers.shape(eager).numpy().tolist() == [2, 3]
    with paddle_version("1.8"):
        with pytest.raises(TypeError, match="'x' in reshape must be"):
            build()


def test_paddle20_functions_check_their_arguments_in_static_mode(paddle_version):
    # Paddle 2.0's paddle.allclose / concat / assign / metric.accuracy (its test_allclose_op,
    # test_concat_op, test_assign_op, test_accuracy_op); 3 keeps refimpl's own rules
    import refimpl as paddle
    with paddle_version("2.0"), fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [2, 2], "float64")
        ints = fluid.data("ints", [2, 2], "int32")
        with pytest.raises(TypeError, match="'y' in paddle.allclose must be"):
            paddle.allclose(x, ints)
        with pytest.raises(TypeError, match="'rtol' in paddle.allclose must be float"):
            paddle.allclose(x, x, rtol=True)
        with pytest.raises(TypeError, match="'axis' in paddle.concat must be"):
            paddle.concat([x, x], 3.2)
        with pytest.raises(TypeError, match="'x' in paddle.assign must be Variable or ndarray"):
            paddle.assign(fluid.create_lod_tensor(np.ones((1, 1)), [[1]], fluid.CPUPlace()))
        with pytest.raises(TypeError, match="'x' in paddle.assign must be .* numpy.ndarray"):
            paddle.assign(np.ones(2, "float64"))
        with pytest.raises(TypeError, match="'input' in metric.accuracy must be"):
            paddle.metric.accuracy(ints, fluid.data("label", [2, 1], "int64"))
        with pytest.raises(TypeError, match="'x' in paddle.is_empty must be"):
            paddle.is_empty(fluid.data("flags", [4], "bool"))
        with pytest.raises(TypeError, match="'x' in paddle.dot must be"):     # test_dot_op
            paddle.dot(fluid.data("u1", [4], "uint8"), fluid.data("u2", [4], "uint8"))
        with pytest.raises(TypeError, match="'dtype' in paddle.eye must be"):
            paddle.eye(10, num_columns=10, dtype="int8")
        with pytest.raises(TypeError, match="'dtype' in eye must be"):
            fluid.layers.eye(3, dtype="int8")
        assert paddle.concat([x, x], 1).shape == (2, 4)
    with paddle_version("3"), fluid.program_guard(fluid.Program(), fluid.Program()):
        assert paddle.assign([[1.5, 2.5]]).shape == (1, 2)     # 3.3.1 takes lists too


def test_paddle3_functions_check_their_arguments_in_static_mode(paddle_version):
    # 3.3.1 under FLAGS_enable_pir_api=0 (measured; Paddle 3's test_is_empty_op,
    # test_multiplex_op, test_linspace, test_arange assert these)
    import refimpl as paddle
    with paddle_version("3"), fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.raises(TypeError, match="'x' in paddle.is_empty must be"):
            paddle.is_empty(fluid.data("flags", [4], "bool"))
        small = [fluid.data(n, [None, 2], "int16") for n in "ab"]
        index = fluid.data("index", [None, 1], "int32")
        with pytest.raises(TypeError, match=r"'inputs\[0\]' in paddle.multiplex must be"):
            paddle.multiplex(small, index)
        with pytest.raises(TypeError, match="'index' in paddle.multiplex must be"):
            paddle.multiplex([fluid.data("f", [None, 2], "float32")] * 2,
                             fluid.data("i16", [None, 1], "int16"))
        with pytest.raises(TypeError, match="'dtype' in paddle.linspace must be"):
            paddle.linspace(0, 10, 1, dtype="int8")
        with pytest.raises(TypeError, match="'num' in paddle.linspace must be Variable or int"):
            paddle.linspace(0, 10, 1.33, dtype="int32")
        with pytest.raises(ValueError, match="float64 would overflow dtype float32"):
            paddle.linspace(fluid.data("start", [1], "float64"), 10, 1, dtype="float32")
        with pytest.raises(TypeError, match="'dtype' in paddle.arange must be"):
            paddle.arange(10, dtype="int16")
        with pytest.raises(TypeError, match="'x' in paddle.unique must be"):
            paddle.unique(fluid.data("u16", [10], "int16"))
        with pytest.raises(TypeError, match="'dtype' in paddle.unique must be"):
            paddle.unique(fluid.data("u", [10], "float32"), dtype="float32")
        with pytest.raises(TypeError, match="'dtype' in paddle.eye must be"):
            paddle.eye(10, num_columns=10, dtype="int8")
        image = fluid.data("image", [2, 3, 6, 6], "float32")
        with pytest.raises(TypeError, match=r"crop_tensor: shape\[1\] must be an int"):
            paddle.crop(image, shape=[2, 2.0, 3, 3])
        with pytest.raises(ValueError, match=r"crop_tensor: shape\[1\] must be positive or -1"):
            paddle.crop(image, shape=[2, -2, 3, 3])
        with pytest.raises(TypeError, match="'x' in paddle.crop must be"):
            paddle.crop(fluid.data("half", [2, 3, 6, 6], "float16"), shape=[2, 2, 3, 3])
        assert paddle.crop(image, shape=[2, 2, 3, 3]).shape == (2, 2, 3, 3)
        label = fluid.data("label", [None, 1], "int32")
        for accuracy in (paddle.static.accuracy, paddle.metric.accuracy):
            with pytest.raises(TypeError, match="'input' in .*accuracy must be"):
                accuracy(fluid.data("scores", [None, 4], "int32"), label)
        # 3.3.1's arange knows its length when start, end and step are numbers
        assert paddle.arange(-1, 11, 2, "float32").shape == (6,)
        assert paddle.arange(fluid.data("end", [1], "float32")).shape == (-1,)
        assert paddle.is_empty(fluid.data("floats", [4], "float32")).dtype == "bool"
    with paddle_version("2.0"), fluid.program_guard(fluid.Program(), fluid.Program()):
        assert paddle.arange(-1, 11, 2, "float32").shape == (-1,)      # the range op's
        small = [fluid.data(n, [None, 2], "int16") for n in "ab"]
        assert paddle.multiplex(small, fluid.data("index", [None, 1], "int32")).dtype == "int16"


def test_paddle_tensor_array_functions_are_fluids_with_its_checks(paddle_version):
    # Paddle 2.0's paddle.tensor.array_* (its test_array_read_write_op): eager lists in
    # dynamic mode, fluid.layers' checks in static mode
    import refimpl as paddle
    with fluid.dygraph.guard():
        arr = paddle.tensor.create_array("float32")
        x = paddle.full([1, 3], 5.0, "float32")
        i = paddle.zeros([1], "int64")
        arr = paddle.tensor.array_write(x, i, array=arr)
        assert paddle.tensor.array_read(arr, i).numpy().tolist() == [[5.0, 5.0, 5.0]]
        assert paddle.tensor.array.array_length(arr).numpy().tolist() == [1]
    with paddle_version("2.0"), fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.raises(TypeError, match="'i' in tensor.array_read must be"):
            paddle.tensor.array_read(np.zeros((2, 4), "int32"), paddle.ones([1], "int32"))
