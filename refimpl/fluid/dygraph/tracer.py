"""fluid.dygraph.tracer: the Tracer object Paddle code reaches through
`framework._dygraph_tracer()`. refimpl's tracer is refimpl.dygraph.tracer (a module, one
per process); this object shows its settings. Whether eager ops are recorded for autograd
(framework.mode.grad_enabled, what no_grad switches off) is `_train_mode` under Paddle 1.8
and `_has_grad` from 2.0, where `_train_mode` is a flag of its own that train_mode() /
eval_mode() set and no_grad leaves (switch tracer_grad_attribute)."""
from ... import versions
from ...framework import mode

__all__ = ["Tracer"]


def _records_grad_as_train_mode():
    return versions.switch("tracer_grad_attribute") == "_train_mode"


class Tracer:
    """The process's one tracer (`Tracer.instance`)."""

    instance = None

    def __init__(self):
        self._names_made = 0

    def _generate_unique_name(self, key="dygraph_tmp"):
        """key_N, N counting the names this tracer made under any key (Paddle 2.0's
        tracer; its test_unique_name: dygraph_tmp_0, then dygraph_tmp_1)."""
        name = "%s_%d" % (key, self._names_made)
        self._names_made += 1
        return name

    @property
    def _has_grad(self):
        return mode.grad_enabled

    @_has_grad.setter
    def _has_grad(self, value):
        mode.set_grad_enabled(value)

    @property
    def _train_mode(self):
        return mode.grad_enabled if _records_grad_as_train_mode() else mode.train_mode

    @_train_mode.setter
    def _train_mode(self, value):
        if _records_grad_as_train_mode():
            mode.set_grad_enabled(value)
        else:
            mode.train_mode = bool(value)

    def train_mode(self):
        self._train_mode = True

    def eval_mode(self):
        self._train_mode = False

    @staticmethod
    def _get_kernel_signature(op_type, inputs, outputs, attrs):
        """Paddle 3: (input slots, attributes, output slots) of the kernel an op runs, in
        the kernel's argument order (what its op tests call an op's python API with). The
        signatures are Paddle 3.3.1's, measured (framework/paddle_formats/op_facts.py); an
        op with none there raises RuntimeError, as for an op without a phi kernel. Where
        `inputs` gives the tensor form of an attribute (scale's ScaleTensor, concat's
        AxisTensor, slice's StartsTensorList: the attribute's name in CamelCase, then
        Tensor or TensorList; isclose's Rtol, clip's Min, affine_grid's OutputShape: the
        CamelCase name alone; one_hot_v2's depth_tensor: the name, then _tensor), that slot
        takes the attribute's place, as in Paddle's argument mappings."""
        from ...framework.paddle_formats.op_facts import kernel_signature
        signature = kernel_signature(op_type)
        if signature is None:
            raise RuntimeError("%s has no kernel signature (Paddle 3.3.1 maps it to no phi "
                               "kernel, or refimpl did not measure it)" % op_type)
        slots, attr_names, outs = signature
        given = {slot for slot, values in (inputs or {}).items() if values}

        def forms(attr):
            """attr's tensor forms, the input slot of its own name (isclose's Rtol, clip's
            Min) and its name then _tensor (one_hot_v2's depth_tensor)."""
            camel = "".join(part.capitalize() for part in attr.split("_"))
            return camel + "Tensor", camel + "TensorList", camel, attr + "_tensor"

        def tensor_form(attr):
            return next((slot for slot in forms(attr) if slot in given), attr)
        # a signature holding both an attribute and its tensor form (3.3.1 merges
        # repeat_interleave's two kernels: X, RepeatsTensor; Repeats, dim) keeps the one
        # the op is given, as the argument mapping of Paddle 3's earlier revisions does
        paired = {slot: attr for attr in attr_names for slot in forms(attr)[:2] if slot in slots}
        slots = [s for s in slots if s in given or s not in paired]
        attr_names = [a for a in attr_names if not any(
            paired.get(slot) == a for slot in slots)]
        return slots, [tensor_form(a) for a in attr_names], outs


Tracer.instance = Tracer()
