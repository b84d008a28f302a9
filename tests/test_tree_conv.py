"""tree_conv (refimpl/ops/tree_conv.py) and fluid.contrib.layers.tree_conv: outputs derived
by hand and recorded from Paddle 1.8.5, and the parameters 1.8.5 creates."""
import numpy as np

from refimpl import fluid
from refimpl.ops.tree_conv import patch_weights

# Filter [1, 3, 1, 1] = (left 1, right 10, top 100) reads each patch weight set apart
FILTER = np.array([1.0, 10.0, 100.0], "float32").reshape(1, 3, 1, 1)


def _run(x, edges, max_depth):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        nodes = fluid.data("v", list(x.shape), "float32")
        edge_set = fluid.data("e", list(edges.shape), "int32")
        out = fluid.contrib.layers.tree_conv(
            nodes, edge_set, 1, 1, max_depth, act=None, bias_attr=False,
            param_attr=fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(
                FILTER)))
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        return exe.run(main, feed={"v": x, "e": edges}, fetch_list=[out])[0].ravel()


def test_two_children_by_hand():
    # node 1's patch: itself (top 1) = 100 x1; child 2, first of two at depth 1: eta_t 1/2,
    # eta_l 0, eta_r 1/2 -> 55 x2; child 3: eta_l 1/2, eta_r 1/4 -> 53 x3. Leaves: 100 x.
    # Row 4 is past the tree's 3 nodes (the (0, 0) edge ends the edge list).
    x = np.array([1, 2, 3, 7], "float32").reshape(1, 4, 1)
    edges = np.array([[[1, 2], [1, 3], [0, 0]]], "int32")
    np.testing.assert_allclose(_run(x, edges, 2), [369, 200, 300, 0])


def test_a_deeper_tree_matches_paddle_1_8_5():
    x = np.arange(1, 8, dtype="float32").reshape(1, 7, 1)
    edges = np.array([[[1, 2], [1, 3], [1, 4], [2, 5], [5, 6]]], "int32")
    np.testing.assert_allclose(_run(x, edges, 3),
                               [916.2778, 776.7223, 300, 400, 917.6667, 600, 0], rtol=1e-6)


def test_patch_weights_of_a_single_child():
    # eta_t = 1/2, eta_l = (1 - 1/2) * 1/2, eta_r = (1 - 1/2) * (1 - eta_l): Paddle's rule
    eta = patch_weights(np.array([[1, 2]]), 2, 2)
    np.testing.assert_allclose(eta[:, 0, 1], [0.25, 0.375, 0.5])
    np.testing.assert_allclose(eta[:, 1, 1], [0, 0, 1])


def test_parameters_as_paddle_1_8_5_names_and_shapes_them():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()), fluid.unique_name.guard():
        out = fluid.contrib.layers.tree_conv(fluid.data("v", [-1, 10, 5], "float32"),
                                             fluid.data("e", [-1, 10, 2], "float32"), 6, 1, 2)
    assert tuple(out.shape) == (-1, 10, 6, 1)
    assert sorted((p.name, tuple(p.shape)) for p in main.all_parameters()) == [
        ("tree_conv_0.b_0", (10, 6, 1)), ("tree_conv_0.w_0", (5, 3, 6, 1))]
    assert [op.type for op in main.global_block().ops] == ["tree_conv", "elementwise_add",
                                                           "tanh"]


def test_dygraph_tree_conv_has_no_bias_unless_asked_and_computes_the_same():
    x = np.array([1, 2, 3, 7], "float32").reshape(1, 4, 1)
    edges = np.array([[[1, 2], [1, 3], [0, 0]]], "int32")
    with fluid.dygraph.guard():
        layer = fluid.dygraph.TreeConv(1, 1, act=None, param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.NumpyArrayInitializer(FILTER)))
        assert [p.name for p in layer.parameters()] == ["tree_conv_0.w_0"]
        out = layer(fluid.dygraph.to_variable(x), fluid.dygraph.to_variable(edges))
        np.testing.assert_allclose(out.numpy().ravel(), [369, 200, 300, 0])
        assert fluid.dygraph.TreeConv(5, 6, num_filters=2, bias_attr=True).bias.shape == [2]
