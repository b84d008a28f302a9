"""paddle.distributed.fleet.data_generator (Paddle 2.0; 1.8's fluid.incubate.data_generator,
the same classes): a user's DataGenerator subclass turns raw
lines into instances, which it writes to stdout as the MultiSlot text lines fluid.dataset
reads (its pipe command runs such a script): per slot, a count then the values.

A subclass defines generate_sample(line) returning a callable that yields instances,
each a list or tuple of (slot name, [values]) pairs, and may define
generate_batch(samples) (batches of set_batch's size, default 32) to rewrite them."""
import sys

__all__ = ["MultiSlotDataGenerator", "MultiSlotStringDataGenerator"]


class DataGenerator:
    def __init__(self):
        self._proto_info = None     # [(slot name, "uint64" or "float")] of the first instance
        self.batch_size_ = 32

    def set_batch(self, batch_size):
        """The number of instances generate_batch gets at a time."""
        self.batch_size_ = batch_size

    def run_from_memory(self):
        """Write the instances of generate_sample(None) (for debugging and benchmarks)."""
        self._write(self._instances([None]))

    def run_from_stdin(self):
        """Write the instances of generate_sample(line) for each line of stdin."""
        self._write(self._instances(sys.stdin))

    def _instances(self, lines):
        for line in lines:
            for instance in self.generate_sample(line)():
                if instance is not None:
                    yield instance

    def _write(self, instances):
        batch = []
        for instance in instances:
            batch.append(instance)
            if len(batch) == self.batch_size_:
                self._write_batch(batch)
                batch = []
        if batch:
            self._write_batch(batch)

    def _write_batch(self, batch):
        for instance in self.generate_batch(batch)():
            sys.stdout.write(self._gen_str(instance))

    def _gen_str(self, line):
        raise NotImplementedError("pls use MultiSlotDataGenerator or "
                                  "MultiSlotStringDataGenerator: DataGenerator itself has no "
                                  "output format")

    def generate_sample(self, line):
        raise NotImplementedError("Please rewrite this function to return a list or tuple: "
                                  "[(name, [feasign, ...]), ...] or ((name, [feasign, ...]), "
                                  "...)")

    def generate_batch(self, samples):
        """The batch's instances unchanged (override to pad or otherwise rewrite them)."""
        def local_iter():
            yield from samples
        return local_iter


def _check_instance(line, example):
    if not isinstance(line, (list, tuple)):
        raise ValueError("the output of process() must be in list or tuple type, e.g. %s; "
                         "got %s" % (example, type(line).__name__))


class MultiSlotStringDataGenerator(DataGenerator):
    """Instances of string values, written as they are."""

    def _gen_str(self, line):
        _check_instance(line, "[('words', ['1926', '08', '17']), ('label', ['1'])]")
        return " ".join(" ".join([str(len(values))] + list(values)) for _, values in line) + "\n"


class MultiSlotDataGenerator(DataGenerator):
    """Instances of int or float values. The first instance fixes the slots (names and
    order); a slot holding a float anywhere is a float slot, else an id (uint64) slot."""

    def _gen_str(self, line):
        _check_instance(line, "[('words', [1926, 8, 17]), ('label', [1])]")
        if self._proto_info is None:
            self._proto_info = [(name, "uint64") for name, _ in line]
        elif len(line) != len(self._proto_info):
            raise ValueError("the complete field set of two given line are inconsistent: "
                             "%d slots, the first instance had %d"
                             % (len(line), len(self._proto_info)))
        fields = []
        for index, (name, values) in enumerate(line):
            if not isinstance(name, str):
                raise ValueError("name%s must be in str type" % type(name))
            if not isinstance(values, list):
                raise ValueError("elements%s of slot %r must be in list type"
                                 % (type(values), name))
            if not values:
                raise ValueError("the elements of each field can not be empty, you need "
                                 "padding it in process() (slot %r)" % name)
            expected = self._proto_info[index][0]
            if name != expected:
                raise ValueError("the field name of two given line are not match: "
                                 "require<%s>, get<%s>." % (expected, name))
            for value in values:
                if isinstance(value, float):
                    self._proto_info[index] = (name, "float")
                elif not isinstance(value, int):
                    raise ValueError("the type of element%s must be in int or float"
                                     % type(value))
            fields.append(" ".join(str(v) for v in [len(values)] + values))
        return " ".join(fields) + "\n"
