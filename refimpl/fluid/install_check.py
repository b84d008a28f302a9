"""paddle.fluid.install_check (Paddle 1.8): run_check() trains a tiny linear layer for one
step in static mode and says whether that works."""
import numpy as np

__all__ = ["run_check"]


def run_check():
    """Build, initialize and run one SGD step of y = fc(x) on this process's place;
    prints Paddle 1.8's success line, or raises what went wrong."""
    from .. import fluid
    from ..framework import mode
    print("Running Verify Fluid Program ... ")
    main, startup = fluid.Program(), fluid.Program()
    with mode.dygraph_guard(False), fluid.program_guard(main, startup), \
            fluid.unique_name.guard():
        x = fluid.data(name="inp", shape=[None, 2], dtype="float32")
        loss = fluid.layers.reduce_sum(fluid.layers.fc(x, size=3))
        fluid.optimizer.SGD(learning_rate=0.01).minimize(loss)
        exe = fluid.Executor(fluid.CPUPlace())
        scope = fluid.Scope()
        with fluid.scope_guard(scope):
            exe.run(startup)
            out, = exe.run(main, feed={"inp": np.ones([2, 2], np.float32)}, fetch_list=[loss])
    if not np.all(np.isfinite(out)):
        raise RuntimeError("install_check: the check program's loss is not finite: %s" % out)
    print("Your Paddle Fluid works well on SINGLE GPU or CPU.")
