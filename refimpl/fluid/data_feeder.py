"""fluid.DataFeeder (a minibatch of samples -> a feed dict) and fluid.DataFeedDesc."""
import re

import numpy as np

from ..compiler.compiled_program import resolve_places
from ..framework.program import Variable, default_main_program
from ..framework.scope import LoDTensor

__all__ = ["DataFeeder", "DataFeedDesc"]


class DataFeeder:
    """Turns a minibatch (a list of samples, each a tuple with one field per feed variable)
    into {name: ndarray}: each column stacked, cast to the variable's dtype and reshaped
    to its shape (one -1 dim is the batch). A variable with lod_level n takes fields nested
    n deep (a sequence of items, or for n = 2 a sequence of sequences): its items are
    stacked as rows and it is fed as a LoDTensor whose LoD holds the nesting's lengths."""

    def __init__(self, feed_list, place, program=None):
        program = program or default_main_program()
        block = program.global_block()
        self.feed_vars = []
        for v in feed_list:
            if isinstance(v, str):
                v = block.var(v)
            if not isinstance(v, Variable):
                raise TypeError("DataFeeder: feed_list items must be Variables or names, got %s"
                                % type(v).__name__)
            self.feed_vars.append(v)
        self.place = place
        self.feed_names = [v.name for v in self.feed_vars]

    def feed(self, iterable):
        columns = [[] for _ in self.feed_vars]
        for i, sample in enumerate(iterable):
            if len(sample) != len(columns):
                raise ValueError("DataFeeder.feed: sample %d has %d fields, expected %d (one "
                                 "per feed variable %s)" % (i, len(sample), len(columns),
                                                            self.feed_names))
            for column, field in zip(columns, sample):
                column.append(field)
        return {v.name: _to_lod_tensor(v, column) if v.lod_level else _to_array(v, column)
                for v, column in zip(self.feed_vars, columns)}

    def _get_number_of_places_(self, num_places=None):
        """num_places, else the places a data-parallel run on the feeder's place has
        (CompiledProgram's: every GPU for a CUDAPlace, CPU_NUM for the CPU, as Paddle 1.8)."""
        if num_places is not None:
            return int(num_places)
        return len(resolve_places(None, self.place))

    def feed_parallel(self, iterable, num_places=None):
        """One feed dict per place, from one minibatch per place."""
        batches = list(iterable)
        num = self._get_number_of_places_(num_places)
        if len(batches) != num:
            raise ValueError("DataFeeder.feed_parallel: %d minibatches given for %d places "
                             "(one per place)" % (len(batches), num))
        for batch in batches:
            yield self.feed(batch)

    def decorate_reader(self, reader, multi_devices, num_places=None, drop_last=True):
        """A reader of feeds: of one feed dict per minibatch, or with multi_devices of a
        list of one feed dict per place (the minibatches grouped by the number of places;
        a last group too short for every place is dropped, and drop_last=False refuses it,
        as Paddle 1.8)."""
        def feeds():
            if not multi_devices:
                for batch in reader():
                    yield self.feed(batch)
                return
            num = self._get_number_of_places_(num_places)
            group = []
            for batch in reader():
                group.append(batch)
                if len(group) == num:
                    yield [self.feed(batch) for batch in group]
                    group = []
            if group and not drop_last:
                raise ValueError("DataFeeder.decorate_reader: the last %d minibatches do not "
                                 "fill the %d places, and drop_last is False"
                                 % (len(group), num))
        return feeds


def _to_lod_tensor(var, column):
    """The items of a column of fields nested var.lod_level deep, as rows of a LoDTensor."""
    lod = [[] for _ in range(var.lod_level)]
    items = []

    def flatten(field, depth, where):
        if depth == var.lod_level:
            items.append(field)
            return
        if not hasattr(field, "__len__"):
            raise ValueError("DataFeeder.feed: %r has lod_level %d, but %s is %r, not a "
                             "sequence" % (var.name, var.lod_level, where, field))
        lod[depth].append(len(field))
        for j, item in enumerate(field):
            flatten(item, depth + 1, "%s[%d]" % (where, j))
    for i, field in enumerate(column):
        flatten(field, 0, "sample %d's field" % i)
    tensor = LoDTensor(value=_to_array(var, items))
    tensor.set_recursive_sequence_lengths(lod)
    return tensor


def _to_array(var, column):
    try:
        arr = np.array(column, dtype=var.dtype.np)
    except ValueError as e:
        raise ValueError("DataFeeder.feed: %r: the samples do not stack into one array "
                         "(%s)" % (var.name, e)) from None
    shape = list(var.shape)
    if arr.ndim != len(shape) and shape.count(-1) <= 1:
        try:
            arr = arr.reshape(shape)
        except ValueError:
            raise ValueError("DataFeeder.feed: %r expects shape %s, got %d samples of shape %s"
                             % (var.name, shape, len(column), list(arr.shape[1:]))) from None
    if arr.ndim != len(shape) or any(d >= 0 and d != g for d, g in zip(shape, arr.shape)):
        raise ValueError("DataFeeder.feed: %r expects shape %s, got %s"
                         % (var.name, shape, list(arr.shape)))
    return arr


class DataFeedDesc:
    """The slot description of a MultiSlot data feed, read from a protobuf text file
    (name, batch_size, multi_slot_desc { slots { name type is_dense is_used } ... }).
    refimpl has no Dataset trainer that consumes it: it is parsed, edited and printed."""

    def __init__(self, proto_file):
        with open(proto_file) as f:
            text = f.read()
        fields, self.slots = _parse_feed_desc(text, proto_file)
        self.name = fields.get("name", "MultiSlotDataFeed")
        self.batch_size = int(fields.get("batch_size", 32))

    def _slot(self, name):
        for slot in self.slots:
            if slot["name"] == name:
                return slot
        raise ValueError("DataFeedDesc: no slot named %r (slots: %s)"
                         % (name, [s["name"] for s in self.slots]))

    def set_batch_size(self, batch_size):
        self.batch_size = int(batch_size)

    def set_dense_slots(self, dense_slots_name):
        for name in dense_slots_name:
            self._slot(name)["is_dense"] = True

    def set_use_slots(self, use_slots_name):
        for name in use_slots_name:
            self._slot(name)["is_used"] = True

    def desc(self):
        lines = ['name: "%s"' % self.name, "batch_size: %d" % self.batch_size,
                 "multi_slot_desc {"]
        for s in self.slots:
            lines += ["  slots {", '    name: "%s"' % s["name"], '    type: "%s"' % s["type"],
                      "    is_dense: %s" % str(s["is_dense"]).lower(),
                      "    is_used: %s" % str(s["is_used"]).lower(), "  }"]
        return "\n".join(lines + ["}"]) + "\n"


_TOKEN = re.compile(r'\s*(?:(#[^\n]*)|(\w+)\s*:\s*("[^"]*"|[\w.+-]+)|(\w+)\s*\{|(\}))')


def _parse_feed_desc(text, where):
    """(top-level fields, slots) from DataFeedDesc's protobuf text format."""
    fields, slots, stack, pos = {}, [], [], 0
    while text[pos:].strip():
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError("DataFeedDesc: cannot parse %s near %r" % (where, text[pos:pos + 30]))
        pos = m.end()
        _comment, key, value, block, close = m.groups()
        if key:
            value = value.strip('"')
            if value in ("true", "false"):
                value = value == "true"
            (slots[-1] if stack == ["multi_slot_desc", "slots"] else fields)[key] = value
        elif block:
            stack.append(block)
            if stack == ["multi_slot_desc", "slots"]:
                slots.append({"name": "", "type": "uint64", "is_dense": False, "is_used": False})
        elif close:
            if not stack:
                raise ValueError("DataFeedDesc: unbalanced '}' in %s" % where)
            stack.pop()
    if stack:
        raise ValueError("DataFeedDesc: unclosed block %r in %s" % (stack[-1], where))
    return fields, slots
