"""LayerHelper: what every layer function uses to create parameters, temporaries and ops.

In dynamic mode the same calls make eager Tensors: temporaries are placeholders that
append_op fills by running the op now (dygraph/tracer.py), and parameters are created
with their values. An op follows its inputs: eager Tensors run now, static Variables
append to the program, whatever the mode (specs/dygraph.md#mode-rules)."""
import copy

import numpy as np

from . import mode
from . import unique_name
from .. import versions
from .paddle_formats.op_facts import undeclared_attr_defaults
from .initializer import Constant, XavierUniform, global_initializers
from .errors import OpError
from .param_attr import ParamAttr, WeightNormParamAttr
from .program import (Variable, check_new_parameter_shape, default_main_program, op_definition,
                      default_startup_program)

__all__ = ["LayerHelper", "LayerObjectHelper"]


# append_activation's act when the caller gives none: the helper's own (its kwargs)
_FROM_HELPER = object()


class LayerHelper:
    def __init__(self, layer_type, **kwargs):
        self.layer_type = layer_type
        self.kwargs = kwargs
        name = kwargs.get("name")
        if name is not None and not isinstance(name, str):
            # Paddle joins the name into its outputs' names: a TypeError there too
            raise TypeError("%s: name must be a str, got %s" % (layer_type, type(name).__name__))
        # eager temporaries need no names: generated only if asked for (parameters)
        self._name = name if name else (None if mode.dynamic
                                        else unique_name.generate(layer_type))

    @property
    def name(self):
        if self._name is None:
            self._name = unique_name.generate(self.layer_type)
        return self._name

    @property
    def main_program(self):
        return default_main_program()

    @property
    def startup_program(self):
        return default_startup_program()

    def block(self):
        return self.main_program.current_block()

    # what a layer written against Paddle's LayerHelper reads from its keyword arguments
    def multiple_input(self, input_param_name="input"):
        inputs = self.kwargs.get(input_param_name, [])
        return list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]

    def input(self, input_param_name="input"):
        inputs = self.multiple_input(input_param_name)
        if len(inputs) != 1:
            raise ValueError("%s layer takes one %r input, got %d"
                             % (self.layer_type, input_param_name, len(inputs)))
        return inputs[0]

    def input_dtype(self, input_param_name="input"):
        """The dtype the inputs under `input_param_name` share (ValueError if they differ)."""
        dtypes = {x.dtype for x in self.multiple_input(input_param_name)}
        if len(dtypes) > 1:
            raise ValueError("%s: the %r inputs have different dtypes %s"
                             % (self.layer_type, input_param_name,
                                sorted(d.name for d in dtypes)))
        return dtypes.pop() if dtypes else None

    @property
    def param_attr(self):
        return ParamAttr._to_attr(self.kwargs.get("param_attr"))

    @property
    def bias_attr(self):
        return ParamAttr._to_attr(self.kwargs.get("bias_attr"))

    def append_op(self, *args, **kwargs):
        if mode.dynamic or mode.eager.has_eager_input(kwargs.get("inputs")):
            return mode.eager.append_op(self.block(), *args, **kwargs)
        return self.block().append_op(*args, **kwargs)

    def create_variable_for_type_inference(self, dtype, stop_gradient=False, shape=None):
        if mode.dynamic:
            return mode.eager.placeholder(dtype, shape, stop_gradient)
        return self.block().create_var(
            name=unique_name.generate(self.name + ".tmp"),
            dtype=dtype, shape=shape, stop_gradient=stop_gradient, persistable=False)

    create_tmp_variable = create_variable_for_type_inference

    def create_variable(self, **kwargs):
        if mode.dynamic:
            return mode.eager.placeholder(kwargs.get("dtype"), kwargs.get("shape"),
                                          kwargs.get("stop_gradient", False),
                                          kwargs.get("name"), kwargs.get("persistable", False))
        return self.block().create_var(**kwargs)

    def to_variable(self, value, name=None):
        """An eager tensor holding the ndarray `value` (a Variable is returned as it is);
        anything else is a TypeError, as Paddle 1.8's LayerHelperBase.to_variable."""
        if isinstance(value, Variable):
            return value
        if not isinstance(value, np.ndarray):
            raise TypeError("The type of input value is invalid, expected type is 'ndarray' "
                            "or 'Variable', but received %s" % type(value))
        return mode.eager.Tensor(value, stop_gradient=True, name=name)

    def create_global_variable(self, persistable=False, **kwargs):
        if mode.dynamic:
            return mode.eager.placeholder(kwargs.get("dtype"), kwargs.get("shape"),
                                          kwargs.get("stop_gradient", False),
                                          kwargs.get("name"), persistable)
        return self.main_program.global_block().create_var(persistable=persistable, **kwargs)

    def create_parameter(self, attr, shape, dtype, is_bias=False, default_initializer=None):
        """A parameter in the main program plus its initializer op in the startup program.
        A ParamAttr name that already names a parameter shares that parameter."""
        attr = copy.copy(ParamAttr._to_attr(attr))
        if attr is False:
            return None
        if attr.name is None:
            attr.name = unique_name.generate(self.name + (".b" if is_bias else ".w"))
        # set_global_initializer's wins over the layer's default, not over the ParamAttr's
        # (Paddle 2.0 and 3.3.1's LayerHelperBase)
        g_weight, g_bias = global_initializers()
        init = attr.initializer or (g_bias if is_bias else g_weight) or default_initializer
        if init is None:
            init = Constant(0.0) if is_bias else XavierUniform()
        if mode.dynamic:
            check_new_parameter_shape(attr.name, shape)
            if isinstance(attr, WeightNormParamAttr):
                raise NotImplementedError(
                    "WeightNormParamAttr %r: weight normalization by ParamAttr builds static "
                    "programs (paddle.static), as in Paddle" % attr.name)
            param = mode.eager.ParamBase(
                None, attr.name, trainable=attr.trainable, regularizer=attr.regularizer,
                optimize_attr={"learning_rate": attr.learning_rate},
                do_model_average=attr.do_model_average, need_clip=attr.need_clip)
            param._decl = (dtype, list(shape))
            init(param)     # an eager parameter gets its value now
            return param
        block = self.main_program.global_block()
        if attr.name in block.vars:
            existing = block.vars[attr.name]
            if tuple(existing.shape) != tuple(shape):
                raise ValueError("parameter %r is shared but its shape %s differs from %s"
                                 % (attr.name, list(existing.shape), list(shape)))
            return existing
        if isinstance(attr, WeightNormParamAttr):
            return self._weight_normalized(attr, list(shape), dtype, init)
        param = block.create_parameter(
            name=attr.name, shape=list(shape), dtype=dtype, trainable=attr.trainable,
            regularizer=attr.regularizer, optimize_attr={"learning_rate": attr.learning_rate},
            need_clip=attr.need_clip, do_model_average=attr.do_model_average)
        with _startup_guard(self.startup_program):
            init(param)
        return param

    def _weight_normalized(self, attr, shape, dtype, init):
        """w = g * v / ||v|| (norm over every dim but attr.dim) from the parameters
        `<name>_v` (initialized by `init`) and `<name>_g` (initialized to ||v|| by ops
        appended to the startup program), as Paddle 1.8 builds a WeightNormParamAttr."""
        g_shape = [1] * len(shape)
        if attr.dim is not None:
            g_shape[attr.dim] = shape[attr.dim]
        fields = dict(initializer=init, learning_rate=attr.learning_rate,
                      regularizer=attr.regularizer, trainable=attr.trainable,
                      do_model_average=attr.do_model_average, need_clip=attr.need_clip)
        v = self.create_parameter(ParamAttr(name=attr.name + "_v", **fields), shape, dtype)
        fields["initializer"] = Constant(0.0)   # replaced by ||v|| below, in the startup
        g = self.create_parameter(ParamAttr(name=attr.name + "_g", **fields), g_shape, dtype)
        axes = [i for i in range(len(shape)) if i != attr.dim]
        startup = self.startup_program.global_block()
        _append_norm(startup, startup.var(v.name), axes, startup.var(g.name))
        block = self.main_program.global_block()
        norm = _append_norm(block, v, axes)
        scaled = _append(block, "elementwise_div", {"X": [v], "Y": [norm]}, dtype)
        return _append(block, "elementwise_mul", {"X": [scaled], "Y": [g]}, dtype)

    def append_bias_op(self, input_var, bias_attr, dim_start=1):
        """input + bias (bias shape = input.shape[dim_start:]), or input if bias_attr is False."""
        if bias_attr is False:
            return input_var
        size = list(input_var.shape[dim_start:dim_start + 1])
        b = self.create_parameter(bias_attr, size, input_var.dtype, is_bias=True)
        if b is None:
            return input_var
        out = self.create_variable_for_type_inference(input_var.dtype)
        self.append_op(type="elementwise_add", inputs={"X": [input_var], "Y": [b]},
                       outputs={"Out": [out]}, attrs={"axis": dim_start})
        return out

    def _check_activation(self, act_type):
        try:
            known = isinstance(act_type, str) and op_definition(act_type) is not None
        except OpError:
            known = False
        if not known:
            raise ValueError("%s: act must name an activation op ('relu', 'sigmoid', 'tanh', "
                             "'softmax', ...), got %r" % (self.layer_type, act_type))

    def append_activation(self, input_var, act=_FROM_HELPER, use_cudnn=False):
        """`act`(input_var); a layer's use_cudnn=True (conv2d's) reaches the activation op
        where Paddle's op declares use_cudnn (1.8.5's relu: its LayerHelper passes it).
        Called with the input alone, as Paddle's LayerHelper is (`append_activation(x)`),
        the act and use_cudnn given to the helper's constructor apply (its use_mkldnn is
        an engine choice that changes no value)."""
        if act is _FROM_HELPER:
            act, use_cudnn = self.kwargs.get("act"), bool(self.kwargs.get("use_cudnn"))
        if act is None:
            return input_var
        if isinstance(act, dict):
            act = dict(act)
            act_type = act.pop("type")
            attrs = act
        else:
            act_type, attrs = act, {}
        self._check_activation(act_type)
        if use_cudnn and "use_cudnn" in undeclared_attr_defaults(versions.release(), act_type):
            attrs = dict(attrs, use_cudnn=True)
        out = self.create_variable_for_type_inference(input_var.dtype)
        self.append_op(type=act_type, inputs={"X": [input_var]}, outputs={"Out": [out]},
                       attrs=attrs)
        return out


class LayerObjectHelper(LayerHelper):
    """The helper a Layer keeps as `_helper` (Paddle 1.8's dygraph LayerObjectHelper): its
    input methods take the inputs themselves (a Variable, an ndarray or a list of them)
    where LayerHelper's take the name of a keyword argument. 1.8-era layers written
    against it (the models repository's similarity_net FC) pair inputs with weights by
    `self._helper.iter_inputs_and_params(input, self._param_attr)`."""

    def __init__(self, name):
        super().__init__(name, name=name)

    def _inputs(self, inputs_in):
        items = [] if inputs_in is None else inputs_in
        items = items if isinstance(items, (list, tuple)) else [items]
        return [self.to_variable(x) for x in items]

    def iter_inputs_and_params(self, inputs_in, param_attr_in=None):
        """(input, ParamAttr) pairs: one param_attr is copied for each input, a list must
        give one per input."""
        attrs = ParamAttr._to_attr(param_attr_in)
        if attrs is False:
            raise ValueError("%s: iter_inputs_and_params needs a param_attr for its inputs, "
                             "got False" % self.name)
        inputs = self._inputs(inputs_in)
        attrs = attrs if isinstance(attrs, list) else [attrs]
        if len(attrs) == 1 and len(inputs) != 1:
            attrs = [copy.deepcopy(attrs[0]) for _ in inputs]
        if len(attrs) != len(inputs):
            raise ValueError("%s: %d param_attrs for %d inputs (give one, or one per input)"
                             % (self.name, len(attrs), len(inputs)))
        return zip(inputs, attrs)

    def input_dtype(self, inputs_in):
        """The dtype `inputs_in` share (ValueError if they differ; None for no inputs)."""
        dtypes = {x.dtype for x in self._inputs(inputs_in)}
        if len(dtypes) > 1:
            raise ValueError("%s: the inputs have different dtypes %s"
                             % (self.name, sorted(d.name for d in dtypes)))
        return dtypes.pop() if dtypes else None


def _append(block, op_type, inputs, dtype, attrs=None, out=None):
    out = out or block.create_var(name=unique_name.generate(
        "weight_norm_" + op_type + ".tmp"), dtype=dtype)
    block.append_op(type=op_type, inputs=inputs, outputs={"Out": [out]}, attrs=attrs or {})
    return out


def _append_norm(block, v, axes, out=None):
    """sqrt(sum(v^2)) over `axes`, dims kept (into `out` when given)."""
    squared = _append(block, "square", {"X": [v]}, v.dtype)
    total = _append(block, "reduce_sum", {"X": [squared]}, v.dtype,
                    {"dim": axes, "keep_dim": True, "reduce_all": False})
    return _append(block, "sqrt", {"X": [total]}, v.dtype, out=out)


class _startup_guard:
    """Initializers append to default_startup_program(); make that the helper's."""

    def __init__(self, program):
        self.program = program

    def __enter__(self):
        from .program import switch_startup_program
        self.old = switch_startup_program(self.program)

    def __exit__(self, *exc):
        from .program import switch_startup_program
        switch_startup_program(self.old)
