"""The reader ops Paddle 1.8's py_reader puts at the front of a main program:
create_double_buffer_reader (a prefetching reader over the py_reader's queue) and read (the
next batch into the data variables). refimpl's PyReader is a Python object that feeds
those variables itself (layers/readers.py), so these ops mark where the data comes from,
as Program._inference_optimize and program printing see it in Paddle; the executor runs
no kernel for them (READER_OPS; specs/readers.md)."""
from .registry import OpDef, register

__all__ = ["READER_OPS"]


@register
class CreateDoubleBufferReader(OpDef):
    type = "create_double_buffer_reader"
    inputs = ("UnderlyingReader",)
    outputs = ("Out",)
    attrs = {"place": "AUTO"}

    def infer_shape(self, ctx):
        pass    # a READER variable: no shape


@register
class Read(OpDef):
    type = "read"
    inputs = ("Reader",)
    outputs = ("Out*",)
    attrs = {"throw_eof_exp": True, "infer_out": True}

    def infer_shape(self, ctx):
        pass    # the data variables keep the shapes py_reader gave them


READER_OPS = frozenset({CreateDoubleBufferReader.type, Read.type})
