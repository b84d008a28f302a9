"""Batching samples into arrays (default_collate_fn), and walking the nested
dict / list / tuple structure of a batch."""
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ..versions import switch

__all__ = ["default_collate_fn", "default_convert_fn"]


def default_collate_fn(batch):
    """A list of samples -> one batch of the same structure: arrays (and array-likes) are
    stacked on a new axis 0, numbers become a 1-D array, str / bytes stay a list, dicts
    are collated per key and lists / tuples per field (into a list)."""
    return _collate(batch, "sample")


def _collate(batch, where):
    sample = batch[0]
    if isinstance(sample, (str, bytes)):
        return list(batch)
    if isinstance(sample, (np.ndarray, np.generic)) or hasattr(sample, "__array__"):
        arrays = [np.asarray(s) for s in batch]
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise ValueError("default_collate_fn: %s has different shapes across the batch: "
                             "%s; make the samples the same shape or pass a collate_fn"
                             % (where, sorted(shapes)))
        return np.stack(arrays)
    if isinstance(sample, numbers.Number):
        return np.array(batch)
    if isinstance(sample, Mapping):
        return {key: _collate([s[key] for s in batch], "%s[%r]" % (where, key))
                for key in sample}
    if isinstance(sample, Sequence):
        lengths = {len(s) for s in batch}
        if len(lengths) > 1 and where == "sample" and \
                switch("collate_unequal_fields") == "slots":
            return [_collate(slot, "slot %d" % i) for i, slot in enumerate(_slots(batch))]
        if len(lengths) > 1:
            raise ValueError("default_collate_fn: the samples of a batch have different "
                             "numbers of fields at %s: %s" % (where, sorted(lengths)))
        return [_collate(list(fields), "%s[%d]" % (where, i))
                for i, fields in enumerate(zip(*batch))]
    raise TypeError("default_collate_fn: %s is a %s; a batch can hold only arrays, numbers, "
                    "str/bytes, dicts, lists and tuples (pass a collate_fn for others)"
                    % (where, type(sample).__name__))


def _slots(batch):
    """Samples with different numbers of fields as Paddle <= 2.0's default_collate_fn
    lays them out (its slots grow to the longest sample seen so far): a sample of L fields
    met with S < L slots opens slots S..L-1 with its first L-S fields and puts each later
    field i into slot i; with L <= S slots, field i goes to slot i. (PaddleRec 2.0's
    word2vec reader yields one growing list repeatedly; its fields come in groups of three
    of equal shapes, so each slot stacks.)"""
    slots = []
    for sample in batch:
        opened = max(len(sample) - len(slots), 0)
        slots.extend([field] for field in sample[:opened])
        for i in range(opened, len(sample)):
            slots[i].append(sample[i])
    return slots


def default_convert_fn(batch):
    """The collate_fn when automatic batching is off (batch_size=None): each sample is
    already a batch and goes through unchanged (lists and tuples become lists)."""
    if isinstance(batch, Mapping):
        return {key: default_convert_fn(value) for key, value in batch.items()}
    if isinstance(batch, Sequence) and not isinstance(batch, (str, bytes)):
        return [default_convert_fn(value) for value in batch]
    return batch


def list_fields_as_arrays(batch):
    """`batch` (a list / tuple of fields) with each field that is a list / tuple of numbers
    or arrays made one array, as Paddle <= 2.0's DataLoader made every field a LoDTensor
    (PaddleNLP 2.0's collate_fns return padded id lists). Other fields are kept."""
    if not isinstance(batch, (list, tuple)):
        return batch
    return type(batch)(_field_array(field, i) if _numeric_nest(field) else field
                       for i, field in enumerate(batch))


def _numeric_nest(field):
    if not isinstance(field, (list, tuple)) or not field:
        return False
    return all(isinstance(x, (numbers.Number, np.ndarray, np.generic)) or _numeric_nest(x)
               for x in field)


def _field_array(field, index):
    try:
        return np.array(field)
    except ValueError:
        shapes = sorted({np.shape(x) for x in field})
        raise TypeError("DataLoader: field %d of a batch is not regular (its entries have "
                        "shapes %s): pad them to one shape in the collate_fn, as Paddle 2.0 "
                        "requires" % (index, shapes[:4])) from None


def map_arrays(fn, batch):
    """`batch` with every ndarray leaf replaced by fn(leaf); containers keep their type."""
    if isinstance(batch, np.ndarray):
        return fn(batch)
    if isinstance(batch, Mapping):
        return {key: map_arrays(fn, value) for key, value in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(map_arrays(fn, value) for value in batch)
    return batch


def leaves(batch):
    """The leaves of a batch in order (dicts in key order): the values fed, in the order
    of a DataLoader's feed_list."""
    if isinstance(batch, Mapping):
        return [leaf for value in batch.values() for leaf in leaves(value)]
    if isinstance(batch, (list, tuple)):
        return [leaf for value in batch for leaf in leaves(value)]
    return [batch]
