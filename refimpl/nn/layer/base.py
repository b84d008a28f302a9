"""paddle.nn.Layer in static-graph mode.

A Layer creates its parameters when constructed (each one a Parameter in the current main
program's global block plus its initializer op in the startup program) and appends ops to
the current main program each time it is called; calling returns Variables. Values live in
the scope once the startup program has run, never in the Layer.
"""
import collections
import functools
import re
import warnings

import numpy as np

from ... import versions
from ...dygraph.tensor import Tensor, on_place_of
from ...framework import mode, unique_name
from ...framework.errors import LayerAssertionError
from ...framework.layer_helper import LayerObjectHelper
from ...framework.program import Parameter, Variable
from ...framework.scope import global_scope

__all__ = ["Layer", "accepts_stat_dict"]


def accepts_stat_dict(set_state_dict):
    """set_state_dict taking its first argument also as `stat_dict=` (Paddle 1.8's name of
    it; 2.0 and 3.3.1 still take it, with a DeprecationWarning)."""
    @functools.wraps(set_state_dict)
    def setter(self, *args, **kwargs):
        if "stat_dict" in kwargs:
            warnings.warn("The argument `stat_dict` has deprecated, please change it to "
                          "`state_dict`.", DeprecationWarning)
            kwargs["state_dict"] = kwargs.pop("stat_dict")
        return set_state_dict(self, *args, **kwargs)
    return setter


def _snake_case(class_name):
    """Paddle's default name scope: Linear -> linear, BatchNorm1D -> batch_norm1d,
    ReLU -> re_lu."""
    words = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", class_name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", words).lower()


class HookRemoveHelper:
    """What register_forward_*_hook returns: `.remove()` unregisters the hook."""

    _next_id = 0

    def __init__(self, hooks):
        self._hooks = hooks
        self._id = HookRemoveHelper._next_id
        HookRemoveHelper._next_id += 1

    def remove(self):
        self._hooks.pop(self._id, None)


class Layer:
    """Base class of every paddle.nn layer. Subclasses create parameters in __init__ with
    `create_parameter` and build their computation in `forward`."""

    def __init__(self, name_scope=None, dtype=None):
        from ...framework.dtypes import get_default_dtype
        self.training = True
        # parameters follow paddle.set_default_dtype unless the layer is given a dtype
        self._dtype = dtype if dtype is not None else get_default_dtype()
        self._full_name = unique_name.generate(name_scope or _snake_case(type(self).__name__))
        self._helper = LayerObjectHelper(self._full_name)
        self._parameters = collections.OrderedDict()
        self._sub_layers = collections.OrderedDict()
        self._buffers = collections.OrderedDict()
        self._non_persistable_buffer_names = set()
        # Paddle's values waiting for parameters not added yet, by parameter name:
        # add_parameter takes a parameter's value from it (Paddle code fills it directly)
        self._loaddict_holder = collections.OrderedDict()
        self._forward_pre_hooks = collections.OrderedDict()
        self._forward_post_hooks = collections.OrderedDict()
        self._built = False
        # paddle.jit.to_static records only Layers made in dynamic mode (2.0's check)
        self._init_in_dynamic_mode = mode.in_dynamic_mode()

    # -- building
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError("%s.forward is not implemented" % type(self).__name__)

    def _build_once(self, *inputs, **kwargs):
        """Runs once, before the first forward, with its inputs (after the pre-hooks), as
        in Paddle 1.8 to 3.x: layers that size their parameters by the first input define
        it (the models repository's 1.8 similarity_net FC)."""

    def __call__(self, *inputs, **kwargs):
        if self._forward_pre_hooks:
            for hook in list(self._forward_pre_hooks.values()):
                result = hook(self, inputs)
                if result is not None:
                    inputs = result if isinstance(result, tuple) else (result,)
        if not self._built:
            self._build_once(*inputs, **kwargs)
            self._built = True
        outputs = self.forward(*inputs, **kwargs)
        if self._forward_post_hooks:
            for hook in list(self._forward_post_hooks.values()):
                result = hook(self, inputs, outputs)
                if result is not None:
                    outputs = result
        return outputs

    def register_forward_pre_hook(self, hook):
        """hook(layer, inputs) -> None or new inputs, run before each forward."""
        handle = HookRemoveHelper(self._forward_pre_hooks)
        self._forward_pre_hooks[handle._id] = hook
        return handle

    def register_forward_post_hook(self, hook):
        """hook(layer, inputs, outputs) -> None or new outputs, run after each forward."""
        handle = HookRemoveHelper(self._forward_post_hooks)
        self._forward_post_hooks[handle._id] = hook
        return handle

    # -- input checks for forward, naming this layer in the error
    def _where(self):
        return "%s %s" % (type(self).__name__, self._full_name)

    def _expect_input(self, x, arg="x", ranks=None, dtypes=None):
        """x must be a Variable, of one of the dtype names `dtypes` (a TypeError, checked
        first as Paddle does) and of one of `ranks`, when given."""
        if not isinstance(x, Variable):
            raise TypeError("%s: input %r must be %s, got %s"
                            % (self._where(), arg, mode.variable_kind(), type(x).__name__))
        if dtypes is not None and x.dtype.name not in dtypes:
            raise TypeError("%s: input %r has dtype %s, expected one of %s"
                            % (self._where(), x.name, x.dtype.name, ", ".join(dtypes)))
        if ranks is not None and len(x.shape) not in ranks:
            raise ValueError("%s: input %r %s has rank %d, expected rank %s"
                             % (self._where(), x.name, list(x.shape), len(x.shape),
                                " or ".join(str(r) for r in ranks)))

    def _expect_dim(self, x, axis, expected, what):
        """x.shape[axis] must be `expected` (the layer's `what`), unless unknown (-1)."""
        got = x.shape[axis]
        if got >= 0 and got != expected:
            raise ValueError("%s: input %r %s has %d at dim %d, expected %s=%d"
                             % (self._where(), x.name, list(x.shape), got, axis, what,
                                expected))

    def full_name(self):
        """The unique name scope (e.g. 'linear_0') the parameters are named after."""
        return self._full_name

    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None):
        """A Parameter named `<full_name>.w_N` (`.b_N` for a bias) with its initializer op in
        the startup program. Default initializer: XavierUniform for weights, Constant(0)
        for biases (or set_global_initializer's). attr=False -> None."""
        if isinstance(attr, str) and attr == "":
            attr = None
        return self._helper.create_parameter(attr, list(shape), dtype or self._dtype, is_bias,
                                             default_initializer)

    def create_variable(self, name=None, persistable=None, dtype=None):
        """A variable in the current block of the main program."""
        name = name or unique_name.generate(self._full_name + "._generated_var")
        return self._helper.main_program.current_block().create_var(
            name=name, persistable=bool(persistable), dtype=dtype or self._dtype)

    create_tensor = create_variable

    # -- modes
    def train(self):
        """Training mode for this layer and every sublayer (the mode is read when the layer
        is called: it decides the ops built, e.g. dropout's and batch_norm's is_test)."""
        self._set_tracer_train_mode(True)
        for layer in self.sublayers(include_self=True):
            layer.training = True

    def eval(self):
        """Evaluation mode for this layer and every sublayer (see train)."""
        self._set_tracer_train_mode(False)
        for layer in self.sublayers(include_self=True):
            layer.training = False

    @staticmethod
    def _set_tracer_train_mode(training):
        """In dynamic mode Paddle's train() / eval() also set the tracer's train mode,
        which an eager fluid.layers.dropout(is_test=None) follows. Done where that mode is
        a flag of its own (2.0 on); 1.8's is the gradient switch (eval() there stops
        recording gradients; refimpl leaves that, specs/divergences.md)."""
        if mode.dynamic and versions.switch("tracer_grad_attribute") == "_has_grad":
            mode.train_mode = training

    def to(self, device=None, dtype=None, blocking=None):
        """Dynamic mode: cast every floating-point parameter and buffer (and its gradient)
        to `dtype`; `device` may only be the CPU. Returns self."""
        if device is not None and not str(device).lower().startswith("cpu") and \
                type(device).__name__ != "CPUPlace":
            raise ValueError("%s.to(device=%r): refimpl computes on the CPU"
                             % (type(self).__name__, device))
        # Paddle's check (2.1+, 3.3.1's words); a copy is always blocking here
        assert blocking is None or isinstance(blocking, bool), \
            "blocking value error, must be the True, False or None"
        if dtype is None:
            return self
        self._cast_floating(self.sublayers(include_self=True), dtype, "to(dtype=...)")
        return self

    def _cast_floating(self, layers, dtype, method):
        """Cast the floating-point parameters and buffers of `layers` (their own) and
        their gradients to dtype; each layer's dtype becomes it."""
        from ...framework.dtypes import convert_dtype
        tensors = [t for layer in layers for t in list(layer.parameters(False)) +
                   list(layer.buffers(False))]
        for t in tensors:
            if not isinstance(t, Tensor):
                raise RuntimeError("%s.%s: the layer was built in static mode; its "
                                   "variables' dtypes are fixed in the program"
                                   % (type(self).__name__, method))
        tensors = [t for t in tensors if t.dtype.name in ("float16", "float32", "float64")]
        if str(dtype) == "bfloat16":
            if tensors:
                raise NotImplementedError("%s.%s: refimpl has no bfloat16 tensors (%r would "
                                          "be cast)" % (type(self).__name__, method,
                                                        tensors[0].name))
            return
        dtype = convert_dtype(dtype)
        for t in tensors:
            t._value = t._array().astype(dtype)
            if t._grad is not None:
                t._grad = t._grad.astype(dtype)
        for layer in layers:
            layer._dtype = dtype

    def _cast_floating_except(self, dtype, excluded_layers, method):
        """Paddle 2.5+'s float / float16 / bfloat16: every layer of the tree whose type is
        not among excluded_layers (a Layer class or a list / tuple of them) is cast."""
        if excluded_layers is None:
            excluded_layers = []
        elif isinstance(excluded_layers, type):
            excluded_layers = [excluded_layers]
        elif not isinstance(excluded_layers, (list, tuple)):
            raise TypeError("excluded_layers should be type nn.Layer or list, but got %s."
                            % type(excluded_layers).__name__)
        self._cast_floating([layer for layer in self.sublayers(include_self=True)
                             if type(layer) not in excluded_layers], dtype, method)
        return self

    def float(self, excluded_layers=None):
        return self._cast_floating_except("float32", excluded_layers, "float()")

    def float16(self, excluded_layers=None):
        return self._cast_floating_except("float16", excluded_layers, "float16()")

    def bfloat16(self, excluded_layers=None):
        return self._cast_floating_except("bfloat16", excluded_layers, "bfloat16()")

    def clear_gradients(self):
        """Dynamic mode: clear the gradient of every parameter (as Tensor.clear_grad)."""
        for p in self.parameters():
            if isinstance(p, Tensor):
                p.clear_grad()

    def apply(self, fn):
        """fn(layer) for every sublayer, then this layer; returns self."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    # -- registration
    def _register_checked(self, registry, method, kind, name, value, value_type, expected):
        """registry[name] = value (None allowed) after add_parameter's and register_buffer's
        common checks; `kind` and `expected` word their errors (with the phrases of Paddle
        2.0's messages, which its test_base_layer matches)."""
        if registry not in self.__dict__:
            raise RuntimeError("super().__init__() must be called before %s" % method)
        if not isinstance(name, str):
            raise TypeError("%s: the name of %s should be a string, but received %s"
                            % (self._full_name, kind, type(name).__name__))
        if "." in name:
            raise KeyError("%s: the name of %s can not contain '.', got %r"
                           % (self._full_name, kind, name))
        if name == "":
            raise KeyError("%s: the name of %s can not be empty" % (self._full_name, kind))
        if hasattr(self, name) and name not in self.__dict__[registry]:
            raise KeyError("%s: attribute %r already exists" % (self._full_name, name))
        if value is not None and (not isinstance(value, value_type)
                                  or registry == "_buffers" and isinstance(value, Parameter)):
            raise TypeError("%s.%s(%r): the %s should be %s, but received %s"
                            % (self._full_name, method, name, kind, expected,
                               type(value).__name__))
        self.__dict__[registry][name] = value

    def add_sublayer(self, name, sublayer):
        if not isinstance(sublayer, Layer) and sublayer is not None:
            raise TypeError("%s.add_sublayer(%r): expected a Layer, got %s"
                            % (self._full_name, name, type(sublayer).__name__))
        self._sub_layers[name] = sublayer
        return sublayer

    def add_parameter(self, name, parameter):
        """Register `parameter` (a Parameter, or None) under `name`."""
        self._register_checked("_parameters", "add_parameter", "parameter", name, parameter,
                               Parameter, "a Parameter")
        if parameter is not None and self._loaddict_holder:
            if parameter.name not in self._loaddict_holder:
                raise LayerAssertionError("%s.add_parameter(%r): parameter %s not found in "
                                          "the loaded state_dict" % (self._full_name, name,
                                                                     parameter.name))
            parameter.set_value(self._loaddict_holder[parameter.name])
        return parameter

    def register_buffer(self, name, tensor, persistable=True):
        """A non-parameter Variable owned by the layer (e.g. a running statistic). Persistable
        buffers appear in state_dict."""
        self._register_checked("_buffers", "register_buffer", "buffer", name, tensor,
                               Variable, "%s (a Variable, not a Parameter)"
                               % versions.switch("buffer_type_words"))
        if persistable:
            self._non_persistable_buffer_names.discard(name)
        else:
            self._non_persistable_buffer_names.add(name)

    def __setattr__(self, name, value):
        registries = self.__dict__.get("_parameters"), self.__dict__.get("_sub_layers"), \
            self.__dict__.get("_buffers")
        if isinstance(value, (Parameter, Layer)) and registries[0] is None:
            raise RuntimeError("super().__init__() must be called before assigning %s %r"
                               % (type(value).__name__, name))
        params, layers, buffers = registries
        if isinstance(value, Parameter):
            self._forget(name)
            params[name] = value
        elif isinstance(value, Layer):
            self._forget(name)
            layers[name] = value
        elif params is not None and name in params:
            self._replace(params, name, value, "a Parameter")
        elif layers is not None and name in layers:
            self._replace(layers, name, value, "a Layer")
        elif buffers is not None and isinstance(value, Tensor):
            # an eager Tensor assigned to an attribute is a non-persistable buffer, unless
            # register_buffer made that name persistable (Paddle 2.0's Layer.__setattr__)
            for registry in (self.__dict__, params, layers):
                registry.pop(name, None)
            if name not in buffers:
                self._non_persistable_buffer_names.add(name)
            buffers[name] = value
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Variable):
                raise TypeError("%s: buffer %r must be set to a Variable or None, got %s"
                                % (self._full_name, name, type(value).__name__))
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _replace(self, registry, name, value, kind):
        if value is not None:
            raise TypeError("%s: %r holds %s; it can only be replaced by one or None, got %s"
                            % (self._full_name, name, kind, type(value).__name__))
        registry[name] = None

    def _forget(self, name):
        self.__dict__.pop(name, None)
        for registry in (self._parameters, self._sub_layers, self._buffers):
            registry.pop(name, None)

    def __getattr__(self, name):
        # only called when normal lookup fails: the registries hold the rest
        for registry in ("_parameters", "_sub_layers", "_buffers"):
            values = self.__dict__.get(registry)
            if values is not None and name in values:
                return values[name]
        raise AttributeError("%r object has no attribute %r" % (type(self).__name__, name))

    def __delattr__(self, name):
        for registry in (self._parameters, self._sub_layers, self._buffers):
            if name in registry:
                del registry[name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._sub_layers)
                      | set(self._buffers))

    # -- traversal
    def named_sublayers(self, prefix="", *flag, include_self=False, layers_set=None,
                        include_sublayers=True):
        """(dotted name, layer) for every sublayer, depth first, each layer once
        (include_sublayers=False: the direct children only, as Paddle 1.8). A positional
        flag after `prefix` is include_self, or include_sublayers under Paddle 1.8
        (the `sublayers_flag` switch)."""
        include_self, include_sublayers = self._sublayers_flags(
            flag, include_self, include_sublayers)
        if layers_set is None:
            layers_set = set()
        if include_self and id(self) not in layers_set:
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None or id(layer) in layers_set:
                continue
            name = prefix + ("." if prefix else "") + key
            layers_set.add(id(layer))
            yield name, layer
            if include_sublayers:
                yield from layer.named_sublayers(name, layers_set=layers_set)

    def sublayers(self, *flag, include_self=False, include_sublayers=True):
        return [layer for _, layer in self.named_sublayers(
            "", *flag, include_self=include_self, include_sublayers=include_sublayers)]

    @staticmethod
    def _sublayers_flags(flag, include_self, include_sublayers):
        if len(flag) > 1:
            raise TypeError("sublayers / named_sublayers take one positional flag, got %d"
                            % len(flag))
        if flag:
            from ... import versions
            if versions.switch("sublayers_flag") == "include_self":
                include_self = flag[0]
            else:
                include_sublayers = flag[0]
        return include_self, include_sublayers

    def named_children(self):
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self):
        for _, layer in self.named_children():
            yield layer

    def _named_members(self, registry, prefix, include_sublayers):
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers \
            else [(prefix, self)]
        seen = set()
        for layer_prefix, layer in layers:
            for key, value in getattr(layer, registry).items():
                if value is None or id(value) in seen:
                    continue
                seen.add(id(value))
                yield layer_prefix + ("." if layer_prefix else "") + key, value

    def named_parameters(self, prefix="", include_sublayers=True):
        """(dotted attribute path, Parameter), e.g. ('0.weight', linear_0.w_0); a parameter
        shared by several layers appears once."""
        return self._named_members("_parameters", prefix, include_sublayers)

    def parameters(self, include_sublayers=True):
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True):
        return self._named_members("_buffers", prefix, include_sublayers)

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    # -- state
    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix=""):
        """OrderedDict dotted name -> Parameter / persistable buffer Variable. These are the
        program's variables, not values: read a value with
        `np.array(global_scope().find_var(v.name).get_tensor())` after the startup program
        has run."""
        destination = collections.OrderedDict() if destination is None else destination
        for name, param in self._parameters.items():
            if param is not None:
                destination[structured_name_prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistable_buffer_names:
                destination[structured_name_prefix + name] = buf
        if include_sublayers:
            for name, layer in self._sub_layers.items():
                if layer is not None:
                    layer.state_dict(destination, True, structured_name_prefix + name + ".")
        return destination

    @accepts_stat_dict
    def set_state_dict(self, state_dict, use_structured_name=True, scope=None):
        """Set this layer's values from arrays, eager Tensors, or anything np.asarray takes:
        eager parameters and buffers take them directly, static ones in `scope` (default:
        the global scope). Keys are state_dict's dotted names, or the variable names when
        use_structured_name=False. Missing keys are warned about; a value of another shape
        is an error raised before any value is set (1.8: Paddle's AssertionError), or from
        2.0 a warning and that value skipped, as Paddle 2.0 / 3.3.1 do (switch
        state_dict_shape_mismatch)."""
        scope = scope or global_scope()
        values, eager = {}, []
        for key, var in self.state_dict().items():
            lookup = key if use_structured_name else var.name
            if lookup not in state_dict:
                warnings.warn("%s.set_state_dict: no value for %r; it is left as it is"
                              % (self._full_name, lookup))
                continue
            value = np.asarray(state_dict[lookup])
            if tuple(value.shape) != tuple(var.shape):
                message = ("%s.set_state_dict: %r (%s) has shape %s, expected %s"
                           % (self._full_name, lookup, var.name, list(value.shape),
                              list(var.shape)))
                if versions.switch("state_dict_shape_mismatch") == "error":
                    raise LayerAssertionError(message)
                warnings.warn("Skip loading for %s. %s" % (key, message))
                continue
            value = np.array(value, dtype=var.dtype.name)
            if isinstance(var, Tensor):
                eager.append((var, value))
            else:
                values[var.name] = value
        for var, value in eager:
            var._value = on_place_of(var._array(), value)    # a GPU model stays there
        scope.set_values(values)

    set_dict = load_dict = set_state_dict

    # -- printing
    def extra_repr(self):
        """This layer's own settings, shown inside its repr."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(%s): %s" % (name, repr(layer).replace("\n", "\n  "))
                       for name, layer in self._sub_layers.items()]
        lines = extra_lines + child_lines
        body = ""
        if len(extra_lines) == 1 and not child_lines:
            body = extra_lines[0]
        elif lines:
            body = "\n  " + "\n  ".join(lines) + "\n"
        return "%s(%s)" % (type(self).__name__, body)
