"""core.Graph (a program's ops and variables as nodes), CompiledProgram of a graph, and
core.ProgramDesc's constructors."""
import numpy as np
import pytest

from refimpl import fluid
from refimpl.fluid import core


def _program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 3], "float32")
        y = fluid.layers.fc(x, 4, param_attr=fluid.initializer.Constant(0.5),
                            bias_attr=fluid.initializer.Constant(0.25))
    return main, startup, y


def test_graph_nodes_follow_the_program():
    main, _, y = _program()
    graph = core.Graph(main.desc)
    ops = graph.all_op_nodes()
    assert [n.name() for n in ops] == ["mul", "elementwise_add"]
    mul, add = ops
    assert sorted(v.name() for v in mul.inputs) == ["fc_0.w_0", "x"]
    assert [v.name() for v in mul.outputs] == [v.name() for v in add.inputs if v.inputs]
    assert [v.name() for v in add.outputs] == [y.name]
    assert mul.op().type() == "mul" and add.outputs[0].var().name() == y.name
    assert {n.name() for n in graph.all_var_nodes()} == set(main.global_block().vars)
    main.global_block().ops[0].desc      # the graph holds a copy: editing main leaves it
    main.global_block().ops.pop()
    assert len(graph.all_op_nodes()) == 2


def test_compiled_program_of_a_graph_runs_the_program():
    main, startup, y = _program()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    xs = np.arange(6, dtype="float32").reshape(2, 3)
    want, = exe.run(main, feed={"x": xs}, fetch_list=[y.name])
    compiled = fluid.CompiledProgram(core.Graph(main.desc))
    assert compiled._program is None
    got, = exe.run(compiled, feed={"x": xs}, fetch_list=[y.name])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want, xs.sum(1, keepdims=True) * 0.5 + 0.25 + np.zeros(4))
    with pytest.raises(TypeError, match="received None"):
        fluid.io._get_valid_program(compiled)      # Paddle 1.8's test_io_save_load
    with pytest.raises(TypeError, match="Program or a core.Graph"):
        fluid.CompiledProgram("program")


def test_program_desc_constructors():
    main, _, _ = _program()
    assert core.ProgramDesc().num_blocks() == 1
    copied = core.ProgramDesc(main.desc)
    assert copied.block(0).op_size() == 2 and copied._program is not main
    parsed = core.ProgramDesc(main.desc.serialize_to_string())
    assert [parsed.block(0).op(i).type() for i in range(2)] == ["mul", "elementwise_add"]
    with pytest.raises(TypeError, match="ProgramDesc"):
        core.Graph(main)


def test_ir_graph_queries_clone_and_to_program():
    main, startup, y = _program()
    graph = fluid.framework.IrGraph(core.Graph(main.desc), for_test=True)
    assert graph.is_test() and graph.graph_num() == 1
    assert {n.name() for n in graph.all_op_nodes()} == {"mul", "elementwise_add"}
    assert {n.name() for n in graph.all_persistable_nodes()} == {"fc_0.w_0", "fc_0.b_0"}
    assert len(graph.all_nodes()) == len(graph.all_var_nodes()) + 2
    program = graph.clone().to_program()
    assert [op.type for op in program.global_block().ops] == ["mul", "elementwise_add"]
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    xs = np.ones((2, 3), "float32")
    out, = exe.run(program, feed={"x": xs}, fetch_list=[y.name])
    np.testing.assert_allclose(out, np.full((2, 4), 3 * 0.5 + 0.25))
    with pytest.raises(TypeError, match="graph must be a core.Graph"):
        fluid.framework.IrGraph(main.desc)


def test_quantization_passes_import_and_say_they_are_not_implemented():
    from refimpl.fluid.contrib.slim.quantization import (QuantizationFreezePass,
                                                         QuantizationTransformPass)
    for cls in (QuantizationTransformPass, QuantizationFreezePass):
        with pytest.raises(NotImplementedError, match="quantization .* not implemented"):
            cls(scope=None, place=fluid.CPUPlace())
