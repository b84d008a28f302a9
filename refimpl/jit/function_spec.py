"""Paddle 2.0's FunctionSpec (dygraph_to_static/function_spec.py): a to_static function's
signature and input_spec, and how its call arguments become the InputSpecs of the
program recorded for them (specs/jit.md)."""
import inspect

import numpy as np

from ..dygraph.tensor import Tensor
from ..framework.nest import flatten, map_structure
from ..static.input_spec import InputSpec

__all__ = ["FunctionSpec"]


class FunctionSpec:
    """`function` (with `signature`, by default its own: a bound method's leaves out
    self) and its input_spec (a list or tuple of InputSpecs, nested lists / tuples /
    dicts of them: else TypeError / ValueError)."""

    def __init__(self, function, input_spec=None, signature=None):
        if input_spec is not None:
            if not isinstance(input_spec, (list, tuple)):
                raise TypeError("The type(input_spec) should be one of (tuple, list), but "
                                "received %s." % type(input_spec).__name__)
            for spec in flatten(list(input_spec)):
                if not isinstance(spec, InputSpec):
                    raise ValueError("The type(elem) from input_spec should be `InputSpec`, "
                                     "but received %s." % type(spec).__name__)
            input_spec = list(input_spec)
        self._function, self._input_spec = function, input_spec
        self._signature = signature or inspect.signature(function)
        self._name = getattr(function, "__name__", type(function).__name__)

    @property
    def dygraph_function(self):
        return self._function

    @property
    def input_spec(self):
        return self._input_spec

    @property
    def flat_input_spec(self):
        return None if self._input_spec is None else flatten(self._input_spec)

    @property
    def args_name(self):
        return list(self._signature.parameters)

    def unified_args_and_kwargs(self, args, kwargs):
        """2.0's unified_args_and_kwargs: the positional parameters as a list, those not
        given taken from kwargs or their defaults (so foo(x) and foo(x, c=1) are one
        signature), kwargs what is left (for **kwargs). A function with *args as given."""
        params = list(self._signature.parameters.values())
        if any(p.kind == p.VAR_POSITIONAL for p in params):
            return tuple(args), dict(kwargs)
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD)]
        if len(args) > len(positional):
            raise ValueError("The decorated function `%s` requires %d arguments: %s, but "
                             "received %d" % (self._name, len(positional),
                                              [p.name for p in positional], len(args)))
        args, kwargs = list(args), dict(kwargs)
        for p in positional[len(args):]:
            if p.name in kwargs:
                args.append(kwargs.pop(p.name))
            elif p.default is not p.empty:
                args.append(p.default)
            else:
                raise ValueError("`%s()` requires `%s` arguments, but not found in input "
                                 "`args`: %s and `kwargs`: %s."
                                 % (self._name, p.name, args, kwargs))
        return tuple(args), kwargs

    def args_to_input_spec(self, args, kwargs):
        """2.0's args_to_input_spec: the arguments with their Tensors as InputSpecs (the
        declared input_spec where there is one), unnamed specs named after the
        arguments."""
        if self._input_spec is not None:
            if kwargs:
                raise ValueError("%s got unexpected keyword arguments: %s. Cannot trace the "
                                 "function when `input_spec` is specificed."
                                 % (self._name, sorted(kwargs)))
            if len(args) < len(self._input_spec):
                raise ValueError("Requires len(arguments) >= len(input_spec), but received "
                                 "len(args):%d < len(InputSpec): %d"
                                 % (len(args), len(self._input_spec)))
            args = _with_declared_specs(list(args), self._input_spec)
        else:
            args = map_structure(_as_spec, list(args))
            kwargs = map_structure(_as_spec, dict(kwargs))
        names = self.args_name
        return [_named(a, names[i]) if i < len(names) else a for i, a in enumerate(args)], \
            kwargs


def _named(spec, name):
    """`spec` named `name` where it has no name (2.0's replace_spec_empty_name: an argument
    `x` names its spec x, a list argument x_0, x_1, ..., a dict argument its keys)."""
    if isinstance(spec, InputSpec):
        return spec if spec.name is not None else InputSpec(spec.shape, spec.dtype, name)
    if isinstance(spec, (list, tuple)):
        return type(spec)(_named(s, "%s_%d" % (name, i)) for i, s in enumerate(spec))
    if isinstance(spec, dict):
        return {key: _named(s, key) for key, s in spec.items()}
    return spec


def _as_spec(value):
    if isinstance(value, Tensor):
        return InputSpec.from_tensor(value)
    if isinstance(value, np.ndarray):
        return InputSpec.from_numpy(value)
    return value


def _with_declared_specs(args, specs):
    """2.0's convert_to_input_spec: each argument replaced by its declared spec, nested
    alike; arguments past the specs stay values."""
    if isinstance(specs, InputSpec):
        return specs
    if isinstance(specs, (list, tuple)):
        if not isinstance(args, (list, tuple)) or len(args) < len(specs):
            raise ValueError("to_static: the arguments %r do not match input_spec %r (a "
                             "list or tuple of at least %d)" % (args, specs, len(specs)))
        return [_with_declared_specs(a, s) for a, s in zip(args, specs)] + \
            list(args[len(specs):])
    if isinstance(specs, dict):
        if not isinstance(args, dict):
            raise TypeError("to_static: argument %r must be a dict, as its input_spec %r"
                            % (args, specs))
        return {k: _with_declared_specs(v, specs[k]) if k in specs else v
                for k, v in args.items()}
    raise TypeError("to_static: input_spec must hold InputSpecs in lists, tuples or dicts, "
                    "got %s" % type(specs).__name__)
