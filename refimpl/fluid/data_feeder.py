"""fluid.DataFeeder (a minibatch of samples -> a feed dict), fluid.DataFeedDesc, and the
module's convert_dtype (a dtype's name; Paddle 2.0's op_test.check_out_dtype calls it) and
argument checks (check_type, check_dtype, check_variable_and_dtype: Paddle 2.0's, which
programs written against its API call in their own layer functions, as PaddleDetection's
ppdet/modeling/ops.py)."""
import re

from ..compiler.compiled_program import resolve_places
from ..framework import mode
from ..framework.dtypes import convert_dtype
from ..framework.program import Variable, default_main_program
from ..framework.sample_feed import feed_samples
from ..framework.scope import LoDTensor

__all__ = ["DataFeeder", "DataFeedDesc", "convert_dtype", "check_type", "check_dtype",
           "check_variable_and_dtype"]


def check_type(input, input_name, expected_type, op_name, extra_message=""):
    """A TypeError naming op_name, input_name, expected and received type unless `input`
    is an `expected_type` (a type or tuple of types). Skipped in dynamic mode, as in Paddle
    2.0 (eager calls check in the op)."""
    if mode.dynamic:
        return
    if not isinstance(input, expected_type):
        raise TypeError("%s: '%s' must be %s, got %s. %s"
                        % (op_name, input_name, expected_type, type(input).__name__,
                           extra_message))


def check_dtype(input_dtype, input_name, expected_dtype, op_name, extra_message=""):
    """A TypeError naming op_name, input_name, the dtype names allowed and the one
    received unless convert_dtype(input_dtype) is in `expected_dtype`. Skipped in dynamic
    mode, as in Paddle 2.0."""
    if mode.dynamic:
        return
    name = convert_dtype(input_dtype)
    if name not in expected_dtype:
        raise TypeError("%s: the dtype of '%s' must be in %s, got %s. %s"
                        % (op_name, input_name, list(expected_dtype), name, extra_message))


def check_variable_and_dtype(input, input_name, expected_dtype, op_name, extra_message=""):
    """check_type(input, ..., Variable) and check_dtype of its dtype."""
    check_type(input, input_name, Variable, op_name, extra_message)
    check_dtype(input.dtype, input_name, expected_dtype, op_name, extra_message)


class DataFeeder:
    """Turns a minibatch (a list of samples, each a tuple with one field per feed variable)
    into {name: LoDTensor}, as framework/sample_feed.py converts it: a LoDTensor for every
    variable, its LoD empty where lod_level is 0 (Paddle 1.8 / 2.0's feed: `.shape()` is a
    list)."""

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
        values = feed_samples(self.feed_vars, iterable, "DataFeeder.feed")
        return {name: value if isinstance(value, LoDTensor) else LoDTensor(value=value)
                for name, value in zip(self.feed_names, values)}

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
