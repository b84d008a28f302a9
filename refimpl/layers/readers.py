"""Paddle 1.8 reader layers: py_reader, create_py_reader_by_data, double_buffer, read_file.

A PyReader here is a Python object: it holds the data Variables it fills and a blocking
queue of batches (framework/blocking_queue.py, `reader.queue`). Its main program lists
the reader ops Paddle puts there (a READER variable, create_double_buffer_reader, and
read_file's `read`), which the executor skips. Once read_file() put the `read` op there,
every `Executor.run` of that program takes the next batch from the queue as the feed of
those Variables (the executor asks each reader in `program._feed_readers` whose `read`
op is in it for `_next_feed()`). The queue is filled by `start()` (a thread reading the generator given to
decorate_*; `reader.thread`) or by the user's own `reader.queue.push(...)`. When the queue
is closed and empty the run raises EOFException; `reset()` stops the thread and reopens
the queue for the next `start()`. A program compiled with_data_parallel reads one batch
per place each run (executor/reader_feeds.py)."""
import numpy as np

from ..framework import unique_name
from ..framework.blocking_queue import FedQueue, as_lod_tensors
from ..framework.dtypes import convert_dtype
from ..framework.errors import EOFException
from ..framework.program import Variable, default_main_program
from ..framework.sample_feed import feed_samples


class PyReader(FedQueue):
    # with_data_parallel on n places: each run reads one batch per place; at the end of the
    # data fewer than n batches are dropped (drop_last) or feed only the first places
    drop_last = True

    def __init__(self, variables, name, capacity, use_double_buffer=False):
        super().__init__(capacity, "%s queue" % name)
        self.variables = list(variables)
        self.name = name
        self._source = None
        self._read_op = None
        program = default_main_program()
        # the reader variables and ops of Paddle's main program (ops/reader_ops.py)
        block = program.global_block()
        self._reader_var = block.create_var(name=unique_name.generate("create_py_reader"),
                                            type="READER", persistable=True)
        if use_double_buffer:
            buffered = block.create_var(name=unique_name.generate("double_buffer"),
                                        type="READER")
            block.append_op("create_double_buffer_reader",
                            inputs={"UnderlyingReader": [self._reader_var]},
                            outputs={"Out": [buffered]})
            self._reader_var = buffered
        if not hasattr(program, "_feed_readers"):
            program._feed_readers = []
        program._feed_readers.append(self)

    # -- data sources
    def decorate_batch_generator(self, reader, places=None):
        """`reader()` yields batches: a tuple/list of arrays or LoDTensors, one per data
        variable."""
        self._set_source(reader)

    decorate_tensor_provider = decorate_batch_generator

    def decorate_sample_list_generator(self, reader, places=None):
        """`reader()` yields lists of samples (tuples, one field per variable); each list
        becomes one batch, converted to the variables' dtypes, shapes and LoD as
        fluid.DataFeeder does (Paddle 1.8 feeds it through a DataFeeder)."""
        def batches():
            for samples in reader():
                yield feed_samples(self.variables, samples,
                                   "%s.decorate_sample_list_generator" % self.name)
        self._set_source(batches)

    decorate_paddle_reader = decorate_sample_list_generator

    def _set_source(self, reader):
        if not callable(reader):
            raise TypeError("%s: the generator must be a callable returning an iterator, "
                            "got %s" % (self.name, type(reader).__name__))
        self._source = reader

    # -- running
    @property
    def exited(self):
        """Paddle's flag that tells the feeding thread to stop after its current batch."""
        return self.thread is not None and self.thread.exited

    @exited.setter
    def exited(self, value):
        if self.thread is not None:
            self.thread.exited = bool(value)

    def start(self, check_array=np.asarray):
        """Start the thread that pushes the generator's batches into the queue;
        `check_array` turns a field that is not a LoDTensor into an ndarray."""
        if self._source is None:
            raise RuntimeError("%s.start(): decorate the reader with a generator first"
                               % self.name)
        if self.thread is not None:
            raise RuntimeError("%s.start(): the reader is already started; call reset() "
                               "first" % self.name)
        self.feed_from(self._source, lambda batch: as_lod_tensors(batch, check_array))

    def _check_width(self, n):
        if n != len(self.variables):
            raise ValueError("%s: a batch has %d fields but the reader feeds %d variables %s"
                             % (self.name, n, len(self.variables),
                                [v.name for v in self.variables]))

    def _next_feed(self):
        """The next batch from the queue as {variable name: LoDTensor}; EOFException once
        the queue is closed and empty. The executor asks only once read_file() put the
        reader's `read` op in the program (executor/reader_feeds.py)."""
        batch = self.queue.pop()
        self._check_width(len(batch))
        return {v.name: t for v, t in zip(self.variables, batch)}


def _check_capacity(capacity, layer):
    if not isinstance(capacity, int) or capacity < 1:
        raise ValueError("%s: capacity must be a positive int, got %r" % (layer, capacity))


def py_reader(capacity, shapes, dtypes, lod_levels=None, name=None, use_double_buffer=True):
    """A reader filling new data Variables of `shapes` / `dtypes` (-1: any batch size)."""
    _check_capacity(capacity, "py_reader")
    if len(shapes) != len(dtypes):
        raise ValueError("py_reader: %d shapes but %d dtypes" % (len(shapes), len(dtypes)))
    lod_levels = [0] * len(shapes) if lod_levels is None else list(lod_levels)
    if len(lod_levels) != len(shapes):
        raise ValueError("py_reader: %d shapes but %d lod_levels"
                         % (len(shapes), len(lod_levels)))
    name = name or unique_name.generate("py_reader")
    block = default_main_program().global_block()
    variables = [block.create_var(name="%s_data_%d" % (name, i), shape=list(shape),
                                  dtype=convert_dtype(dtype), lod_level=lod_level,
                                  stop_gradient=True)
                 for i, (shape, dtype, lod_level) in enumerate(zip(shapes, dtypes, lod_levels))]
    return PyReader(variables, name, capacity, use_double_buffer)


def create_py_reader_by_data(capacity, feed_list, name=None, use_double_buffer=True):
    """A reader filling the Variables of `feed_list` (fluid.data / layers.data)."""
    _check_capacity(capacity, "create_py_reader_by_data")
    for i, v in enumerate(feed_list):
        if not isinstance(v, Variable):
            raise TypeError("create_py_reader_by_data: feed_list[%d] must be a Variable, got %s"
                            % (i, type(v).__name__))
    return PyReader(feed_list, name or unique_name.generate("py_reader"), capacity,
                    use_double_buffer)


def _check_reader(reader, layer):
    if not isinstance(reader, PyReader):
        raise TypeError("%s: expected a reader from py_reader / create_py_reader_by_data, "
                        "got %s" % (layer, type(reader).__name__))


def double_buffer(reader, place=None, name=None):
    """Paddle prefetches batches into a second buffer; batches here are read on demand,
    so this returns the reader itself."""
    _check_reader(reader, "double_buffer")
    return reader


def read_file(reader):
    """The data Variables the reader fills (one Variable when it fills one); the first
    call puts the `read` op of those variables into the main program."""
    _check_reader(reader, "read_file")
    if reader._read_op is None:
        reader._read_op = default_main_program().current_block().append_op(
            "read", inputs={"Reader": [reader._reader_var]},
            outputs={"Out": list(reader.variables)})
    return reader.variables[0] if len(reader.variables) == 1 else list(reader.variables)


EXPORTS = {
    "fluid.layers": {"py_reader": py_reader, "create_py_reader_by_data":
                     create_py_reader_by_data, "double_buffer": double_buffer,
                     "read_file": read_file, "EOFException": EOFException},
}
