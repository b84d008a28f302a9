"""paddle.summary and paddle.flops: LeNet's and ResNet18's tables and counts against Paddle
3.3.1's output (recorded here) and against counts by hand; both modes; static Programs;
custom counters; errors."""
import numpy as np
import pytest

import refimpl as paddle
from refimpl.static import InputSpec
from refimpl.vision.models import LeNet, resnet18

# paddle.summary(LeNet(), (1, 1, 28, 28)) as Paddle 3.3.1 prints it
PADDLE_LENET_SUMMARY = """\
---------------------------------------------------------------------------
 Layer (type)       Input Shape          Output Shape         Param #    
===========================================================================
   Conv2D-1       [[1, 1, 28, 28]]      [1, 6, 28, 28]          60       
    ReLU-1        [[1, 6, 28, 28]]      [1, 6, 28, 28]           0       
  MaxPool2D-1     [[1, 6, 28, 28]]      [1, 6, 14, 14]           0       
   Conv2D-2       [[1, 6, 14, 14]]     [1, 16, 10, 10]         2,416     
    ReLU-2       [[1, 16, 10, 10]]     [1, 16, 10, 10]           0       
  MaxPool2D-2    [[1, 16, 10, 10]]      [1, 16, 5, 5]            0       
   Linear-1          [[1, 400]]            [1, 120]           48,120     
   Linear-2          [[1, 120]]            [1, 84]            10,164     
   Linear-3          [[1, 84]]             [1, 10]              850      
===========================================================================
Total params: 61,610
Trainable params: 61,610
Non-trainable params: 0
---------------------------------------------------------------------------
Input size (MB): 0.00
Forward/backward pass size (MB): 0.11
Params size (MB): 0.24
Estimated Total Size (MB): 0.35
---------------------------------------------------------------------------

"""

# paddle.flops(LeNet(), [1, 1, 28, 28], print_detail=True) in Paddle 3.3.1 (class paths
# are refimpl's here)
PADDLE_LENET_FLOPS = """\
<class 'refimpl.nn.layer.conv.Conv2D'>'s flops has been counted
<class 'refimpl.nn.layer.activation.ReLU'>'s flops has been counted
Cannot find suitable count function for <class 'refimpl.nn.layer.pooling.MaxPool2D'>. \
Treat it as zero FLOPs.
<class 'refimpl.nn.layer.common.Linear'>'s flops has been counted
+--------------+-----------------+-----------------+--------+--------+
|  Layer Name  |   Input Shape   |   Output Shape  | Params | Flops  |
+--------------+-----------------+-----------------+--------+--------+
|   conv2d_0   |  [1, 1, 28, 28] |  [1, 6, 28, 28] |   60   | 47040  |
|   re_lu_0    |  [1, 6, 28, 28] |  [1, 6, 28, 28] |   0    |   0    |
| max_pool2d_0 |  [1, 6, 28, 28] |  [1, 6, 14, 14] |   0    |   0    |
|   conv2d_1   |  [1, 6, 14, 14] | [1, 16, 10, 10] |  2416  | 241600 |
|   re_lu_1    | [1, 16, 10, 10] | [1, 16, 10, 10] |   0    |   0    |
| max_pool2d_1 | [1, 16, 10, 10] |  [1, 16, 5, 5]  |   0    |   0    |
|   linear_0   |     [1, 400]    |     [1, 120]    | 48120  | 48000  |
|   linear_1   |     [1, 120]    |     [1, 84]     | 10164  | 10080  |
|   linear_2   |     [1, 84]     |     [1, 10]     |  850   |  840   |
+--------------+-----------------+-----------------+--------+--------+
Total Flops: 347560     Total Params: 61610
"""

# by hand: conv = output elements x (in channels x kernel + bias), linear = in x out
LENET_FLOPS = (6 * 28 * 28 * (1 * 3 * 3 + 1) + 16 * 10 * 10 * (6 * 5 * 5 + 1)
               + 400 * 120 + 120 * 84 + 84 * 10)
LENET_PARAMS = (6 * 9 + 6) + (16 * 6 * 25 + 16) + (400 * 120 + 120) + (120 * 84 + 84) + \
    (84 * 10 + 10)


def resnet18_by_hand(size, classes, batch=1):
    """(flops, params, trainable params) of ResNet18 on size x size images: convolutions
    (no bias) count output elements x in channels x kernel, batch norms 2 per element and 4
    values per channel (2 trainable), the adaptive average pool (window + 1) per output."""
    flops = params = trainable = 0

    def conv(cin, cout, k, hw):
        nonlocal flops, params, trainable
        flops += cout * hw * hw * cin * k * k
        params += cout * cin * k * k
        trainable += cout * cin * k * k

    def bn(c, hw):
        nonlocal flops, params, trainable
        flops += 2 * c * hw * hw
        params += 4 * c
        trainable += 2 * c

    hw = size // 2
    conv(3, 64, 7, hw)
    bn(64, hw)
    hw //= 2
    cin = 64
    for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        for block in range(2):
            s = stride if block == 0 else 1
            hw //= s
            conv(cin, cout, 3, hw)
            bn(cout, hw)
            conv(cout, cout, 3, hw)
            bn(cout, hw)
            if block == 0 and (s != 1 or cin != cout):
                conv(cin, cout, 1, hw)
                bn(cout, hw)
            cin = cout
    flops += (hw * hw + 1) * 512 + 512 * classes
    params += 512 * classes + classes
    trainable += 512 * classes + classes
    return flops * batch, params, trainable


def test_lenet_summary_is_paddles_table(capsys, dygraph):
    assert paddle.summary(LeNet(), (1, 1, 28, 28)) == {"total_params": LENET_PARAMS,
                                                       "trainable_params": LENET_PARAMS}
    assert capsys.readouterr().out == PADDLE_LENET_SUMMARY


def test_lenet_flops_is_paddles_table(capsys, dygraph):
    assert paddle.flops(LeNet(), [1, 1, 28, 28], print_detail=True) == LENET_FLOPS == 347560
    assert capsys.readouterr().out == PADDLE_LENET_FLOPS


def test_resnet18_counts(capsys, dygraph):
    flops, params, trainable = resnet18_by_hand(224, 1000)
    assert (flops, params, trainable) == (1819066368, 11699112, 11689512)    # Paddle 3.3.1
    net = resnet18()
    assert paddle.summary(net, (1, 3, 224, 224)) == {"total_params": params,
                                                     "trainable_params": trainable}
    out = capsys.readouterr().out.splitlines()
    # the lines Paddle 3.3.1 printed
    assert out[-10:-2] == [
        "Total params: 11,699,112", "Trainable params: 11,689,512",
        "Non-trainable params: 9,600", "-" * 79, "Input size (MB): 0.57",
        "Forward/backward pass size (MB): 57.05", "Params size (MB): 44.63",
        "Estimated Total Size (MB): 102.25"]
    # a residual block's layers come before the block, which has no parameters of its own
    assert [line.split()[0] for line in out[7:12]] == [
        "Conv2D-2", "BatchNorm2D-2", "ReLU-2", "Conv2D-3", "BatchNorm2D-3"]
    assert out[12].split() == ["BasicBlock-1", "[[1,", "64,", "56,", "56]]", "[1,", "64,",
                               "56,", "56]", "0"]
    assert paddle.flops(net, [1, 3, 224, 224]) == flops
    cifar = resnet18_by_hand(32, 10, batch=2)[0]
    assert cifar == 74237952                                                  # Paddle 3.3.1
    assert paddle.flops(resnet18(num_classes=10), [2, 3, 32, 32]) == cifar


def test_summary_in_static_mode_and_of_a_model(capsys):
    counts = paddle.summary(LeNet(), (None, 1, 28, 28))
    assert counts == {"total_params": LENET_PARAMS, "trainable_params": LENET_PARAMS}
    assert capsys.readouterr().out == PADDLE_LENET_SUMMARY
    model = paddle.Model(LeNet(), [InputSpec([None, 1, 28, 28], "float32", "image")])
    assert model.summary() == counts
    assert "[[1, 1, 28, 28]]" in capsys.readouterr().out
    # nothing was added to the programs the Model will train
    assert not paddle.static.default_main_program().global_block().ops
    assert paddle.flops(LeNet(), [1, 1, 28, 28]) == LENET_FLOPS


def test_summary_inputs(capsys, dygraph):
    class Two(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.a, self.b = paddle.nn.Linear(3, 2), paddle.nn.Linear(4, 2)

        def forward(self, x, y):
            return self.a(x) + self.b(y)

    counts = paddle.summary(Two(), [(2, 3), InputSpec([-1, 4])], dtypes=["float32"] * 2)
    assert counts == {"total_params": 8 + 10, "trainable_params": 18}
    out = capsys.readouterr().out
    assert "Linear-1" in out and "[[2, 3]]" in out and "[[1, 4]]" in out
    assert "Input size (MB): 0.00" in out
    counts = paddle.summary(LeNet(), input=paddle.rand([3, 1, 28, 28]))
    assert counts["total_params"] == LENET_PARAMS
    assert "Conv2D-1       [[3, 1, 28, 28]]      [3, 6, 28, 28]" in capsys.readouterr().out
    frozen = paddle.nn.Linear(3, 2)
    frozen.weight.stop_gradient = True
    assert paddle.summary(frozen, (1, 3)) == {"total_params": 8, "trainable_params": 2}


# paddle.summary(LSTM(16, 32, 2), [(-1, 23, 16), ((2, None, 32), (2, -1, 32))]): its row
# as Paddle 3.3.1 prints it (2.0's test_model asserts the same count)
PADDLE_LSTM_ROW = ("    LSTM-1      [[1, 23, 16], [[2, 1, 32], [2, 1, 32]]] "
                   "[[1, 23, 32], [[2, 1, 32], [2, 1, 32]]]     14,848     ")


def test_summary_of_an_rnn_with_nested_initial_state_shapes(capsys, dygraph):
    # the fused-op RNN layer is one row (could_use_cudnn); its (h, c) argument is a list
    # of two shapes. Parameters by hand: layer 0 128*16 + 128*32 + 2*128, layer 1
    # 2 * 128*32 + 2*128 = 6400 + 8448
    lstm = paddle.nn.LSTM(16, 32, 2)
    assert lstm.could_use_cudnn
    counts = paddle.summary(lstm, [(-1, 23, 16), ((2, None, 32), (2, -1, 32))])
    assert counts == {"total_params": 14848, "trainable_params": 14848}
    out = capsys.readouterr().out
    assert PADDLE_LSTM_ROW in out.splitlines()
    assert "Input size (MB): 0.00" in out and "Forward/backward pass size (MB): 0.01" in out
    # bidirectional GRU: 2 directions * (96*16 + 96*32 + 2*96 + 96*64 + 96*32 + 2*96)
    assert paddle.summary(paddle.nn.GRU(16, 32, 2, direction="bidirectional"),
                          (4, 23, 16))["total_params"] == 28416


def test_summary_errors(dygraph):
    with pytest.raises(ValueError, match="only the batch dim of input_size may be None"):
        paddle.summary(LeNet(), (None, 1, -1, 28))
    with pytest.raises(ValueError, match="dims must be > 0"):
        paddle.summary(LeNet(), (1, 0, 28, 28))
    with pytest.raises(ValueError, match="give input_size or input"):
        paddle.summary(LeNet())
    with pytest.raises(TypeError, match="net must be a paddle.nn.Layer"):
        paddle.summary("lenet", (1, 1, 28, 28))


def test_summary_of_a_static_program_lists_its_parameters(capsys):
    x = paddle.static.data("x", [None, 3], "float32")
    paddle.static.nn.fc(x, 2)
    assert paddle.summary(paddle.static.default_main_program()) == {
        "total_params": 8, "trainable_params": 8}
    assert "fc_0.w_0" in capsys.readouterr().out


def test_flops_of_a_static_program_per_op(capsys):
    x = paddle.static.data("x", [None, 3, 8, 8], "float32")
    conv = paddle.static.nn.conv2d(x, 4, 3)
    pooled = paddle.fluid.layers.pool2d(conv, 2, pool_stride=2)
    paddle.static.nn.batch_norm(paddle.static.nn.fc(pooled, 5))
    program = paddle.static.default_main_program()
    # per sample, by hand: conv 4*6*6 outputs x 27; its bias add 144; pool (2*2 + 1) x 36;
    # fc's mul 36 x 5 and bias add 5; batch norm 2 x 5
    expected = 144 * 27 + 144 + 5 * 36 + 36 * 5 + 5 + 10
    assert paddle.flops(program, None, print_detail=True) == expected == 4407
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == lines[2] == lines[-1] == "+-----------------+--------------+-------+"
    assert lines[1] == "|     OP Type     |  Param name  | Flops |"
    assert lines[3] == "|      conv2d     | conv2d_0.w_0 |  3888 |"
    assert lines[6] == "|       mul       |   fc_0.w_0   |  180  |"


def test_flops_rules_per_layer(capsys, dygraph):
    net = paddle.nn.Sequential(
        paddle.nn.Conv2D(2, 4, 3, groups=2, bias_attr=False), paddle.nn.BatchNorm2D(4),
        paddle.nn.LeakyReLU(), paddle.nn.AvgPool2D(2), paddle.nn.AdaptiveAvgPool2D(1),
        paddle.nn.Flatten(), paddle.nn.Dropout(), paddle.nn.Linear(4, 3))
    # conv: 4*6*6 outputs x (2/2 x 9); bn: 2 x 144; leaky relu: 144; avg pool: 4*3*3;
    # adaptive avg pool: window 3x3 + 1 per output (4); linear 4 x 3; flatten, dropout 0
    expected = 144 * 9 + 2 * 144 + 144 + 36 + 10 * 4 + 4 * 3
    assert paddle.flops(net, [1, 2, 8, 8]) == expected
    out = capsys.readouterr().out
    assert "Cannot find suitable count function for <class 'refimpl.nn.layer.common.Flatten'>" \
        in out
    assert out.splitlines()[-1] == "Total Flops: %d     Total Params: %d" % (
        expected, 4 * 9 + 4 * 4 + 4 * 3 + 3)


def test_custom_counters_and_repeated_layers(capsys, dygraph):
    class Twice(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 4)
            self.pool = paddle.nn.MaxPool2D(2)

        def forward(self, x):
            return self.fc(self.fc(x))

    def count_pool(layer, x, y):
        layer.total_ops += 1000

    def count_fc(layer, x, y):
        layer.total_ops += int(np.prod(y.shape))

    net = Twice()
    # the shared Linear counts both calls; the never-called pool is not counted
    assert paddle.flops(net, [2, 4], custom_ops={paddle.nn.MaxPool2D: count_pool}) == \
        2 * 4 * 2 * 4
    assert paddle.flops(net, [2, 4], custom_ops={paddle.nn.Linear: count_fc},
                        print_detail=True) == 2 * 8
    out = capsys.readouterr().out
    assert "Customize Function has been applied to <class 'refimpl.nn.layer.common.Linear'>" \
        in out
    assert not hasattr(net.fc, "total_ops")
    with pytest.raises(TypeError, match="net must be a paddle.nn.Layer or a static Program"):
        paddle.flops("net", [1])
    with pytest.raises(ValueError, match="input_size must be a list of positive ints"):
        paddle.flops(net, [0, 4])
    with pytest.raises(TypeError, match="custom_ops must be a dict"):
        paddle.flops(net, [1, 4], custom_ops=[count_fc])
