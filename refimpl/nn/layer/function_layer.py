"""Layers that hold nothing but the settings given at construction and call one
nn.functional function with them (activations, pools): `function_layer` makes each such
class from its function and its constructor's settings."""
import inspect

from .base import Layer

REQUIRED = inspect.Parameter.empty   # a setting without a default


class FunctionLayer(Layer):
    """Calls `_function(x, name=name, **settings)` on an input of one of `_ranks` (any when
    None); the repr names the settings in `_shown` (all when None)."""
    _function = None
    _ranks = None
    _shown = None

    def __init__(self, name=None, **settings):
        super().__init__()
        self._name = name
        self._settings = settings

    def forward(self, x):
        self._expect_input(x, ranks=self._ranks)
        return type(self)._function(x, name=self._name, **self._settings)

    def extra_repr(self):
        shown = self._settings if self._shown is None else self._shown
        return ", ".join("%s=%s" % (k, self._settings[k]) for k in shown)


def bound_settings(class_name, signature, layer, args, kwargs):
    """{setting: value} of a constructor call `class_name`(*args, **kwargs) by its
    `signature` (self first), defaults filled in; a TypeError naming the class."""
    try:
        given = signature.bind(layer, *args, **kwargs)
    except TypeError as e:
        raise TypeError("%s(): %s" % (class_name, e)) from None
    given.apply_defaults()
    values = dict(given.arguments)
    del values["self"]
    return values


def function_layer(class_name, module, function, ranks=None, shown=None, **settings):
    """The FunctionLayer class `class_name` (of `module`) calling `function`; its
    constructor takes `settings` (in this order, with these defaults; REQUIRED: none),
    then name."""
    attributes = {"_function": staticmethod(function), "_ranks": ranks, "_shown": shown,
                  "__module__": module, "__qualname__": class_name,
                  "__doc__": "%s as a layer." % getattr(function, "__name__", class_name)}
    if settings:
        positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
        signature = inspect.Signature(
            [inspect.Parameter(p, positional, default=default) for p, default in
             [("self", REQUIRED)] + list(settings.items()) + [("name", None)]])

        def __init__(self, *args, **kwargs):
            values = bound_settings(class_name, signature, self, args, kwargs)
            FunctionLayer.__init__(self, values.pop("name"), **values)

        __init__.__signature__ = signature
        attributes["__init__"] = __init__
    return type(class_name, (FunctionLayer,), attributes)
