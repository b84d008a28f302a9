"""core.Graph: Paddle's IR graph of a program (`core.Graph(program.desc)`), what
`CompiledProgram(graph)` compiles and graph passes read. Nodes are the ops of block 0 and
its variables; an op node's inputs / outputs are the nodes of the variables it reads /
writes. Paddle makes a new node for each write of a variable (SSA versions); here a
variable is one node. specs/compiled_program.md#graphs."""
from .desc import ProgramDesc, VarDesc

__all__ = ["Graph", "Node", "IrGraph"]


class Node:
    def __init__(self, kind, item):
        self._kind, self._item = kind, item
        self.inputs, self.outputs = [], []

    def name(self):
        return self._item.type if self._kind == "op" else self._item.name

    def is_op(self):
        return self._kind == "op"

    def is_var(self):
        return self._kind == "var"

    def op(self):
        """The OpDesc of an op node."""
        if self._kind != "op":
            raise TypeError("Node %r is a variable node, not an op node" % self.name())
        return self._item.desc

    def var(self):
        """The VarDesc of a variable node."""
        if self._kind != "var":
            raise TypeError("Node %r is an op node, not a variable node" % self.name())
        return VarDesc(self._item)

    def __repr__(self):
        return "Node(%s %s)" % (self._kind, self.name())


class Graph:
    def __init__(self, program_desc):
        if not isinstance(program_desc, ProgramDesc):
            raise TypeError("core.Graph: expected a ProgramDesc (program.desc), got %s"
                            % type(program_desc).__name__)
        self._program = program_desc._program.clone()   # Paddle copies the desc too
        block = self._program.global_block()
        variables = {name: Node("var", v) for name, v in block.vars.items()}
        self._nodes = list(variables.values())
        for op in block.ops:
            node = Node("op", op)
            for name in op.input_arg_names:
                if name in variables:
                    node.inputs.append(variables[name])
                    variables[name].outputs.append(node)
            for name in op.output_arg_names:
                if name in variables:
                    node.outputs.append(variables[name])
                    variables[name].inputs.append(node)
            self._nodes.append(node)

    def nodes(self):
        return list(self._nodes)

    def all_op_nodes(self):
        return [n for n in self._nodes if n.is_op()]

    def all_var_nodes(self):
        return [n for n in self._nodes if n.is_var()]

    def clone(self):
        return Graph(self._program.desc)

    def program(self):
        """A copy of the program the graph holds (Paddle's graph_to_program_pass)."""
        return self._program.clone()


class IrGraph:
    """fluid.framework.IrGraph: Paddle's Python view of a core.Graph, here its queries
    and to_program (graph passes that rewrite nodes are refimpl's compiler passes, not
    IrGraph edits). Node sets are sets, as Paddle's."""

    def __init__(self, graph, for_test=False):
        if not isinstance(graph, Graph):
            raise TypeError("IrGraph: graph must be a core.Graph, got %s"
                            % type(graph).__name__)
        self.graph, self._for_test = graph, for_test

    def clone(self):
        return IrGraph(self.graph.clone(), self._for_test)

    def is_test(self):
        return self._for_test

    def all_nodes(self):
        return set(self.graph.nodes())

    def all_var_nodes(self):
        return set(self.graph.all_var_nodes())

    def all_persistable_nodes(self):
        return {n for n in self.graph.all_var_nodes() if n._item.persistable}

    def all_op_nodes(self):
        return set(self.graph.all_op_nodes())

    def graph_num(self):
        return 1    # refimpl's graphs are one block's

    def to_program(self):
        return self.graph.program()
