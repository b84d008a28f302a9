"""Containers: Sequential, LayerList, ParameterList, and Paddle 3's LayerDict and
ParameterDict."""
from collections.abc import Iterable, Mapping

from ...framework.program import Parameter
from .base import Layer

__all__ = ["Sequential", "LayerList", "ParameterList", "LayerDict", "ParameterDict"]


def _position(index, length, container):
    """A non-negative position for `index` in a container of `length` items."""
    if not -length <= index < length:
        raise IndexError("%s index %d is out of range for %d items"
                         % (container, index, length))
    return index + length if index < 0 else index


class Sequential(Layer):
    """Calls its layers in order, each on the previous one's output. Built from layers
    (named '0', '1', ...) or from (name, layer) pairs."""

    def __init__(self, *layers):
        super().__init__()
        if layers and isinstance(layers[0], (list, tuple)):
            for name, layer in layers:
                self.add_sublayer(name, layer)
        else:
            for idx, layer in enumerate(layers):
                self.add_sublayer(str(idx), layer)

    def __getitem__(self, name):
        if isinstance(name, slice):
            return type(self)(*list(self._sub_layers.values())[name])
        if isinstance(name, str):
            return self._sub_layers[name]
        layers = list(self._sub_layers.values())
        return layers[_position(name, len(layers), "Sequential")]

    def __setitem__(self, name, layer):
        if not isinstance(layer, Layer):
            raise TypeError("Sequential items must be Layers, got %s" % type(layer).__name__)
        setattr(self, str(name), layer)

    def __delitem__(self, name):
        if isinstance(name, int):
            name = list(self._sub_layers)[_position(name, len(self), "Sequential")]
        del self._sub_layers[str(name)]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers, registered as '0', '1', ... so their parameters are found. It
    has no forward: index or iterate it in the owner's forward."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.extend(sublayers)

    def _renumber(self, layers):
        self._sub_layers.clear()
        for idx, layer in enumerate(layers):
            self.add_sublayer(str(idx), layer)

    def __getitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            return type(self)(layers[idx])
        return layers[_position(idx, len(layers), "LayerList")]

    def __setitem__(self, idx, sublayer):
        idx = _position(idx, len(self), "LayerList")
        self.add_sublayer(str(idx), sublayer)

    def __delitem__(self, idx):
        layers = list(self._sub_layers.values())
        if isinstance(idx, slice):
            del layers[idx]
        else:
            del layers[_position(idx, len(layers), "LayerList")]
        self._renumber(layers)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        layers = list(self._sub_layers.values())
        layers.insert(index, sublayer)
        self._renumber(layers)

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self


class ParameterList(Layer):
    """A list of Parameters registered as '0', '1', ... (see Layer.create_parameter)."""

    def __init__(self, parameters=None):
        super().__init__()
        for param in parameters or ():
            self.append(param)

    def __getitem__(self, idx):
        params = list(self._parameters.values())
        return params[_position(idx, len(params), "ParameterList")]

    def __setitem__(self, idx, param):
        self.add_parameter(str(_position(idx, len(self), "ParameterList")), param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        if not isinstance(parameter, Parameter):
            raise TypeError("ParameterList items must be Parameters, got %s"
                            % type(parameter).__name__)
        self.add_parameter(str(len(self)), parameter)
        return self


def _pairs(items, what):
    """(key, value) pairs of a mapping or of an iterable of pairs, checked as 3.3.1 checks
    a dict container's update: an AssertionError for no iterable, a ValueError for an
    item that is no pair."""
    if not isinstance(items, Iterable):
        raise AssertionError("the %s must be a mapping or an iterable of (key, value) pairs, "
                             "got %s" % (what, type(items).__name__))
    if isinstance(items, ParameterDict):
        return list(items._parameters.items())
    if isinstance(items, (Mapping, LayerDict)):
        return list(items.items())
    pairs = []
    for i, pair in enumerate(items):
        if len(pair) != 2:
            raise ValueError("item %d of the %s has %d values, must be a (key, value) pair"
                             % (i, what, len(pair)))
        pairs.append(tuple(pair))
    return pairs


class _NamedDict(Layer):
    """What LayerDict and ParameterDict share: entries of `_table` (the Layer's dict of
    sublayers or of parameters) added by `_add`, in insertion order."""
    _table = _add = _what = None

    def __init__(self, items=None):
        super().__init__()
        if items is not None:
            self.update(items)

    def __getitem__(self, key):
        return getattr(self, self._table)[key]

    def __setitem__(self, key, value):
        getattr(self, self._add)(key, value)

    def __len__(self):
        return len(getattr(self, self._table))

    def __iter__(self):
        return iter(getattr(self, self._table))

    def update(self, items):
        for key, value in _pairs(items, self._what):
            self[key] = value


class LayerDict(_NamedDict):
    """Sublayers by name, in insertion order (Paddle 3): d[key], d[key] = layer, del,
    `in`, len, iteration over the keys, keys / values / items, pop, clear, update (a
    mapping or (key, layer) pairs; an existing key keeps its place)."""
    _table, _add, _what = "_sub_layers", "add_sublayer", "sublayers"

    def __init__(self, sublayers=None):
        super().__init__(sublayers)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()


class ParameterDict(_NamedDict):
    """Parameters by name, in insertion order (Paddle 3): p[key], p[key] = parameter,
    len, iteration over the parameters' keys, update."""
    _table, _add, _what = "_parameters", "add_parameter", "parameters"

    def __init__(self, parameters=None):
        super().__init__(parameters)
