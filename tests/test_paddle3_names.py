"""The Paddle 3 module names its code and its own unittest files import (paddle.base,
paddle.framework.in_pir_mode, paddle.pir_utils' guards, paddle.static.nn.control_flow,
paddle.utils' nested-structure helpers), checked against what Paddle 3.3.1 has and does."""
import subprocess
import sys
import textwrap

import pytest

import refimpl as paddle
from refimpl import fluid


def test_base_is_fluids_modules_under_paddle_3s_name():
    assert paddle.base.core is fluid.core and paddle.base.framework is fluid.framework
    assert paddle.base.Executor is fluid.Executor and paddle.base.dygraph is fluid.dygraph
    assert paddle.base.framework.in_pir_mode is paddle.framework.in_pir_mode
    assert paddle.base.default_scope_funcs is fluid.default_scope_funcs
    # Paddle 3's name of the eager parameter class (3.3.1: Linear's weight is one)
    paddle.disable_static()
    assert isinstance(paddle.nn.Linear(2, 2).weight, paddle.base.framework.EagerParamBase)
    # refimpl has no bfloat16: Paddle 3's tests skip their bfloat16 cases on False
    assert paddle.base.core.supports_bfloat16() is False


def test_nn_clip_is_where_paddle_3_keeps_fluid_clip():
    assert paddle.nn.clip.set_gradient_clip is fluid.clip.set_gradient_clip
    assert paddle.nn.clip.append_gradient_clip_ops is fluid.clip.append_gradient_clip_ops
    assert paddle.nn.clip.ClipGradByGlobalNorm is paddle.nn.ClipGradByGlobalNorm
    assert paddle.nn.clip.GradientClipByValue is fluid.clip.GradientClipByValue


def test_one_program_ir_is_never_pir_and_ir_guard_enters_static_mode():
    """refimpl's static programs are one IR with the legacy API: in_pir_mode() is False
    (3.3.1: True in static mode), so Paddle 3 code takes its legacy-IR branch; IrGuard still
    enters static mode as Paddle's does, and leaves it."""
    with fluid.dygraph.guard():
        assert paddle.framework.in_dynamic_or_pir_mode()
        with paddle.pir_utils.IrGuard():
            assert not paddle.in_dynamic_mode()
            assert not paddle.framework.in_pir_mode()
            assert not paddle.framework.in_dynamic_or_pir_mode()
        assert paddle.in_dynamic_mode()


@pytest.mark.paddle("3")
def test_pir_guards_set_and_restore_the_pir_flag():
    flag = "FLAGS_enable_pir_api"
    assert paddle.get_flags(flag)[flag] is True          # Paddle 3's default
    with paddle.pir_utils.OldIrGuard():
        assert paddle.get_flags(flag)[flag] is False
        with paddle.pir_utils.DygraphPirGuard():
            assert paddle.get_flags(flag)[flag] is True
        assert paddle.get_flags(flag)[flag] is False
    assert paddle.get_flags(flag)[flag] is True


def test_paddle_3_submodules_import():
    """`from paddle.static.nn.control_flow import Assert` (Paddle 3's test_assert_op): a
    submodule of the module paddle.static.nn, with 3.3.1's Assert, cond, while_loop...; so
    are paddle.static.nn.common (fc, conv2d, ...), paddle.static.nn.sequence_lod (the LoD
    sequence layers: Paddle 3's test_regularizer_api) and paddle.jit.api (to_static, ...)."""
    script = textwrap.dedent("""
        import refimpl._alias as alias
        alias.install()
        from paddle.static.nn.control_flow import Assert, cond, while_loop
        import paddle.static.nn as nn
        assert nn.cond is cond and not hasattr(nn, 'Assert')
        from paddle.static.nn.common import fc
        from paddle.jit.api import to_static
        from paddle.base.default_scope_funcs import enter_local_scope, get_cur_scope
        from paddle.nn.clip import ErrorClipByValue, set_gradient_clip
        from paddle.incubate.layers.nn import shuffle_batch, partial_sum
        from paddle.distributed.io import load_inference_model_distributed, save_persistables
        import paddle.fluid.io as fio
        assert load_inference_model_distributed is fio.load_inference_model
        assert save_persistables is fio.save_persistables
        import paddle.fluid.contrib.layers as contrib
        assert shuffle_batch is contrib.shuffle_batch and partial_sum is contrib.partial_sum
        import paddle
        assert fc is nn.fc and to_static is paddle.jit.to_static
        from paddle.static.nn.sequence_lod import sequence_pool
        assert sequence_pool is paddle.fluid.layers.sequence_pool
        assert paddle.static.nn.sequence_lod.sequence_mask is paddle.fluid.layers.sequence_mask
        print('ok')
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "ok", out.stderr


def test_utils_nested_structure_helpers():
    assert paddle.utils.map_structure(lambda v: v * 2, [1, (2, 3)]) == [2, (4, 6)]
    assert paddle.utils.flatten([1, (2, [3])]) == [1, 2, 3]
    assert paddle.utils.pack_sequence_as([0, (0, 0)], [4, 5, 6]) == [4, (5, 6)]
    assert paddle.utils.convert_to_list(3, 2, "kernel_size") == [3, 3]
    paddle.utils.assert_same_structure([1, (2, 3)], [4, (5, 6)])
    with pytest.raises(ValueError):
        paddle.utils.assert_same_structure([1, 2], [1])


def test_core_eager_tensor_is_the_eager_tensor_class_and_prim_is_off():
    """3.3.1: isinstance(paddle.to_tensor(...), core.eager.Tensor); prim (decomposition into
    primitive ops) is off, and refimpl has none."""
    core = paddle.base.core
    with fluid.dygraph.guard():
        assert isinstance(paddle.to_tensor([1.0]), core.eager.Tensor)
        assert core.eager.Tensor([1.0, 2.0]).numpy().tolist() == [1.0, 2.0]
    assert not core._is_fwd_prim_enabled() and not core._is_bwd_prim_enabled()


def test_set_grad_enabled_sets_now_restores_as_a_context_and_decorates():
    """3.3.1's set_grad_enabled: the call sets the mode; `with` restores the previous one;
    `@set_grad_enabled(False)` runs the function without recording."""
    with fluid.dygraph.guard():
        x = paddle.to_tensor([1.0], stop_gradient=False)
        with paddle.set_grad_enabled(False):
            assert (x * 2).stop_gradient
        assert not (x * 2).stop_gradient

        @paddle.set_grad_enabled(False)
        def double(v):
            return v * 2
        paddle.set_grad_enabled(True)
        assert double(x).stop_gradient and not (x * 2).stop_gradient
        paddle.set_grad_enabled(False)
        try:
            assert (x * 2).stop_gradient
        finally:
            paddle.set_grad_enabled(True)


def test_static_io_has_save_vars_and_load_vars(tmp_path):
    """Paddle 3 keeps fluid.io's save_vars / load_vars in paddle.static.io (the same
    functions here); a main_program that is no Program is a TypeError."""
    assert paddle.static.io.load_vars is fluid.io.load_vars
    assert paddle.static.io.save_vars is fluid.io.save_vars
    paddle.enable_static()
    try:
        with pytest.raises(TypeError):
            paddle.static.io.load_vars(None, str(tmp_path), main_program="program")
    finally:
        paddle.disable_static()


def test_compatible_non_tensor_spec_compares_cache_keys():
    from refimpl.jit.dy2static.utils import _compatible_non_tensor_spec as compatible

    class Unhashable:
        __hash__ = None

    assert compatible([1, 2, 3], [1, 2, 3]) and compatible((1, [2]), [1, (2,)])
    assert not compatible([1, 2, 3], [1, 2]) and not compatible([1, 2, 3], [1, 3, 2])
    assert compatible(Unhashable(), Unhashable())      # as 3.3.1: both unhashable


# -- what Paddle 3's OpTest machinery (test/legacy_test/op_test.py, op.py, prim_op_test.py,
# auto_parallel_op_test.py) takes from the package


def test_op_protos_serialize_and_an_op_desc_builds_a_runnable_operator():
    """core.get_all_op_protos() gives serialized OpProtos (framework_pb2 reads them, as
    Paddle 3's op.py does); core.Operator.create(serialized OpDesc) runs on a Scope."""
    import numpy as np
    from refimpl.fluid.proto import framework_pb2 as pb
    core = paddle.base.core
    protos = {p.type: p for p in map(pb.OpProto.FromString, core.get_all_op_protos())}
    scale = protos["scale"]
    assert [v.name for v in scale.inputs][0] == "X" and not scale.inputs[0].duplicable
    types = {a.name: a.type for a in scale.attrs}
    assert types["scale"] == pb.FLOAT and types["bias_after_scale"] == pb.BOOLEAN
    assert protos["concat"].inputs[0].duplicable and core.get_op_extra_attrs("scale") == {}

    desc = pb.OpDesc(type="scale")
    desc.inputs.add(parameter="X", arguments=["x"])
    desc.outputs.add(parameter="Out", arguments=["out"])
    desc.attrs.add(name="scale", type=pb.FLOAT, f=2.5)
    desc.attrs.add(name="bias", type=pb.FLOAT, f=1.0)
    scope, place = core.Scope(), core.CPUPlace()
    scope.var("x").get_tensor().set(np.array([1.0, -2.0], "float32"), place)
    scope.var("out").get_tensor()
    core.Operator.create(desc.SerializeToString()).run(scope, place)
    np.testing.assert_array_equal(np.array(scope.find_var("out").get_tensor()),
                                  [3.5, -4.0])     # 2.5 * x + 1


def test_framework_pb2_messages_copy_and_expose_nested_enums():
    from refimpl.fluid.proto import framework_pb2 as pb
    scalar = pb.Scalar(type=pb.Scalar.Type.LONG, i=7)
    attr = pb.OpDesc.Attr(name="s", type=pb.SCALAR)
    attr.scalar.CopyFrom(scalar)
    back = pb.OpDesc.Attr.FromString(attr.SerializeToString())
    assert back.scalar.i == 7 and back.scalar.type == pb.Scalar.LONG == 2
    assert pb.AttrType.Name(pb.FLOAT64) == "FLOAT64"
    with pytest.raises(TypeError):
        attr.scalar.CopyFrom(pb.Complex(r=1.0, i=0.0))


def test_tracer_kernel_signatures_are_paddle_3_3_1s():
    """The phi kernel signature Paddle 3's op tests call an op's python API with (measured
    on 3.3.1: add drops elementwise_add's axis at -1, sum orders dim, out_dtype, keep_dim);
    an op without one raises RuntimeError, which op_test.py takes as "no signature"."""
    paddle.disable_static()
    tracer = paddle.base.framework._dygraph_tracer()
    assert tracer._get_kernel_signature("elementwise_add", {}, {}, {}) == (
        ["X", "Y"], [], ["Out"])
    assert tracer._get_kernel_signature("reduce_sum", {}, {}, {}) == (
        ["X"], ["dim", "out_dtype", "keep_dim"], ["Out"])
    with pytest.raises(RuntimeError):
        tracer._get_kernel_signature("feed", {}, {}, {})
    # an attribute's tensor form takes its place: one_hot_v2's depth_tensor (name_tensor),
    # affine_grid's OutputShape (the CamelCase name), only when given
    assert tracer._get_kernel_signature("one_hot_v2", {"depth_tensor": [1]}, {}, {}) == (
        ["X"], ["depth_tensor", "dtype", "allow_out_of_range"], ["Out"])
    assert tracer._get_kernel_signature("affine_grid", {"OutputShape": [1]}, {}, {})[1] == \
        ["OutputShape", "align_corners"]
    assert tracer._get_kernel_signature("affine_grid", {}, {}, {})[1] == \
        ["output_shape", "align_corners"]
    from refimpl.jit.dy2static.utils import parse_arg_and_kwargs
    assert parse_arg_and_kwargs(lambda x, y, axis=-1, name=None: 0) == (
        ["x", "y", "axis", "name"], {"axis": -1, "name": None})
    assert paddle.base.framework.canonicalize_attrs({"axis": 1}, None) == {"axis": 1}


def test_prim_switches_leave_prim_off_and_there_is_no_cinn_or_auto_parallel():
    core = paddle.base.core
    core._set_prim_all_enabled(True)
    core._set_prim_forward_enabled(True)
    assert not core._is_fwd_prim_enabled() and not core._is_bwd_prim_enabled()
    assert not core.is_compiled_with_cinn() and not paddle.is_compiled_with_distribute()
    assert paddle.framework.in_dynamic_mode is paddle.in_dynamic_mode   # 3.3.1 has both
    assert paddle.base.libpaddle.CPUPlace is core.CPUPlace
    assert not paddle.base.framework.use_pir_api()
    with pytest.raises(ValueError):
        core.CustomPlace("npu", 0)
    dist = paddle.distributed
    assert dist.Shard(1).get_dim() == 1 and dist.Shard(1) == dist.Shard(1) != dist.Shard(0)
    mesh = dist.ProcessMesh([0, 1], dim_names=["x"])
    assert mesh.shape == [2] and mesh.dim_names == ["x"]
    with pytest.raises(NotImplementedError):
        dist.shard_tensor(paddle.to_tensor([1.0]), mesh, [dist.Replicate()])


def test_ir_backward_grad_appends_the_gradient_ops():
    import numpy as np
    from refimpl.autograd.ir_backward import grad
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [3], "float32")
            x.stop_gradient = False
            (dx,) = grad([paddle.sum(x * x)], [x])
        exe = paddle.static.Executor(paddle.CPUPlace())
        out, = exe.run(main, feed={"x": np.array([1, 2, 3], "float32")}, fetch_list=[dx])
        np.testing.assert_allclose(out, [2, 4, 6])
    finally:
        paddle.disable_static()


def test_kernel_signature_takes_an_attributes_tensor_form_when_given():
    """3.3.1 measured: scale with a ScaleTensor input maps to (['X'], ['ScaleTensor',
    'bias', 'bias_after_scale'], ['Out']); concat with AxisTensor to (['X'], ['AxisTensor'],
    ['Out'])."""
    paddle.disable_static()
    tracer = paddle.base.framework._dygraph_tracer()
    one = [paddle.to_tensor([1.0])]
    assert tracer._get_kernel_signature("scale", {"X": one, "ScaleTensor": one}, {}, {}) == (
        ["X"], ["ScaleTensor", "bias", "bias_after_scale"], ["Out"])
    assert tracer._get_kernel_signature("concat", {"X": one, "AxisTensor": one}, {}, {}) == (
        ["X"], ["AxisTensor"], ["Out"])
    assert tracer._get_kernel_signature("concat", {"X": one, "AxisTensor": []}, {}, {}) == (
        ["X"], ["axis"], ["Out"])
