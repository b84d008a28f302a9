"""Training programs Paddle saved (with its own backward and optimizer ops) run in refimpl
and train as in Paddle: tests/fixtures/paddle_models/paddle*/training (make_training.py),
each the main program and its initial persistables saved by static.save (1.8.5's
fluid.save), then three steps on fixed batches recorded with Paddle's losses and final
parameters."""
import os

import numpy as np
import pytest

import refimpl as paddle
from refimpl import static
from refimpl.framework.paddle_formats import program_desc
from refimpl.framework.scope import Scope, scope_guard

from helpers import paddle_loss_name

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "paddle_models")
CASES = [(release, name[:-len("_steps.npz")])
         for release in ("paddle1.8.5", "paddle3.3.1")
         for name in sorted(os.listdir(os.path.join(FIXTURES, release, "training")))
         if name.endswith("_steps.npz")]


def test_every_release_has_its_training_programs():
    assert len(CASES) == 13 and ("paddle1.8.5", "embedding_momentum") in CASES and \
        ("paddle3.3.1", "grouped_conv_adamw") in CASES


@pytest.mark.parametrize("release, net", CASES)
def test_paddle_training_program_trains_as_in_paddle(release, net, paddle_version):
    # as the Paddle that wrote the program (Adam's epsilon differs: switch adam_epsilon)
    with paddle_version({"paddle1.8.5": "1.8", "paddle3.3.1": "3"}[release]):
        _train_as_recorded(release, net)


def _train_as_recorded(release, net):
    directory = os.path.join(FIXTURES, release, "training")
    prefix = os.path.join(directory, net, "model")
    with open(prefix + ".pdmodel", "rb") as f:
        main = static.deserialize_program(f.read())
    record = np.load(os.path.join(directory, net + "_steps.npz"))
    feed_name = "img" if net.startswith("conv_") else "x"
    loss = paddle_loss_name(main)
    exe = static.Executor(paddle.CPUPlace())
    scope = Scope()
    with scope_guard(scope):
        static.load(main, prefix)
        for step in range(3):
            value, = exe.run(main, feed={feed_name: record["x%d" % step],
                                         "label": record["label%d" % step]},
                             fetch_list=[loss])
            np.testing.assert_allclose(np.asarray(value).reshape(-1),
                                       record["loss%d" % step].reshape(-1),
                                       rtol=1e-5, atol=1e-6, err_msg="step %d" % step)
        for key in record.files:
            if key.startswith("param:"):
                np.testing.assert_allclose(np.asarray(scope.find_var(key[6:]).get_tensor()),
                                           record[key], rtol=1e-5, atol=1e-6, err_msg=key)


def _grad_op(desc_path, op_type):
    with open(desc_path, "rb") as f:
        program = static.deserialize_program(f.read())
    return next(op for op in program.global_block().ops if op.type == op_type)


def test_paddle_grad_op_slots_are_reconciled():
    conv = os.path.join(FIXTURES, "paddle3.3.1", "training", "conv_momentum", "model.pdmodel")
    # Paddle's reduce_mean_grad has no Out: refimpl's takes it from the forward reduce_mean
    mean_grad = _grad_op(conv, "reduce_mean_grad")
    assert mean_grad.input("Out") == [mean_grad.input("Out@GRAD")[0][:-len("@GRAD")]]
    # Paddle's batch_norm_grad reads Bias, refimpl's does not
    assert "Bias" not in _grad_op(conv, "batch_norm_grad").inputs


def test_paddle18_cross_entropy_grad2_reads_and_writes_under_paddles_name():
    path = os.path.join(FIXTURES, "paddle1.8.5", "mlp_adam_checkpoint", "model.pdmodel")
    with open(path, "rb") as f:
        data = f.read()
    program = static.deserialize_program(data)
    types = [op.type for op in program.global_block().ops]
    assert "cross_entropy2_grad" in types and "cross_entropy_grad2" not in types
    written = program_desc.decode_desc(program_desc.encode_program(program))
    assert [op["type"] for op in written["blocks"][0]["ops"]] == \
        [op["type"] for op in program_desc.decode_desc(data)["blocks"][0]["ops"]]
