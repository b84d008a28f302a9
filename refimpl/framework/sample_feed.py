"""A minibatch of samples (each a tuple with one field per feed variable) as one feed value
per variable, the way Paddle 1.8's DataFeeder converts them: each column stacked, cast to its
variable's dtype and reshaped to its shape (one -1 dim is the batch). A variable with
lod_level n takes fields nested n deep (a sequence of items, or for n = 2 a sequence of
sequences): its items are stacked as rows and it is fed as a LoDTensor whose LoD holds the
nesting's lengths. fluid.DataFeeder and the PyReader's decorate_sample_list_generator /
decorate_paddle_reader both convert with it."""
import numpy as np

from .scope import LoDTensor

__all__ = ["feed_samples"]


def feed_samples(variables, samples, who):
    """[value of each variable] for the minibatch `samples`; `who` names the caller in
    errors."""
    columns = [[] for _ in variables]
    for i, sample in enumerate(samples):
        if len(sample) != len(columns):
            raise ValueError("%s: sample %d has %d fields, expected %d (one per feed variable "
                             "%s)" % (who, i, len(sample), len(columns),
                                      [v.name for v in variables]))
        for column, field in zip(columns, sample):
            column.append(field)
    return [_to_lod_tensor(v, column, who) if v.lod_level else _to_array(v, column, who)
            for v, column in zip(variables, columns)]


def _to_lod_tensor(var, column, who):
    """The items of a column of fields nested var.lod_level deep, as rows of a LoDTensor."""
    lod = [[] for _ in range(var.lod_level)]
    items = []

    def flatten(field, depth, where):
        if depth == var.lod_level:
            items.append(field)
            return
        if not hasattr(field, "__len__"):
            raise ValueError("%s: %r has lod_level %d, but %s is %r, not a sequence"
                             % (who, var.name, var.lod_level, where, field))
        lod[depth].append(len(field))
        for j, item in enumerate(field):
            flatten(item, depth + 1, "%s[%d]" % (where, j))
    for i, field in enumerate(column):
        flatten(field, 0, "sample %d's field" % i)
    tensor = LoDTensor(value=_to_array(var, items, who))
    tensor.set_recursive_sequence_lengths(lod)
    return tensor


def _to_array(var, column, who):
    try:
        arr = np.array(column, dtype=var.dtype.np)
    except ValueError as e:
        raise ValueError("%s: %r: the samples do not stack into one array (%s)"
                         % (who, var.name, e)) from None
    shape = list(var.shape)
    if arr.ndim != len(shape) and shape.count(-1) <= 1:
        try:
            arr = arr.reshape(shape)
        except ValueError:
            raise ValueError("%s: %r expects shape %s, got %d samples of shape %s"
                             % (who, var.name, shape, len(column), list(arr.shape[1:]))) from None
    if arr.ndim != len(shape) or any(d >= 0 and d != g for d, g in zip(shape, arr.shape)):
        raise ValueError("%s: %r expects shape %s, got %s"
                         % (who, var.name, shape, list(arr.shape)))
    return arr
