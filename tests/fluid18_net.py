"""The small static program several fluid 1.8 tests train and compare with values
recorded on Paddle 1.8.5: y = fc(x, 2) without bias (w "w" of 0.5s), loss = mean(y * y),
on one fixed batch."""
import numpy as np

from refimpl import fluid

BATCH = np.array([[1., 2., 3.], [-1., 0.5, 2.]], np.float32)


def build(train=None):
    """(main, startup, what train(loss) returned): train(loss) appends the optimizer
    (default: SGD(0.1).minimize(loss))."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 3], dtype="float32")
        y = fluid.layers.fc(x, size=2, bias_attr=False, param_attr=fluid.ParamAttr(
            "w", initializer=fluid.initializer.Constant(0.5)))
        loss = fluid.layers.reduce_mean(y * y)
        made = train(loss) if train else fluid.optimizer.SGD(0.1).minimize(loss)
    return main, startup, made


def w_value(scope):
    return np.array(scope.find_var("w").get_tensor()).ravel()
