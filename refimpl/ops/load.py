"""load: Out = the tensor in the file `file_path`, one of Paddle's LoDTensor streams (what
the save op and fluid.io.save_vars write one variable per file; specs/paddle_formats.md),
with its LoD; as float16 when load_as_fp16. The file is read whole and checked before
anything is used (a corrupt or truncated file is refused, naming it). Paddle 1.8.5's
partial reads (`seek`, `shape`) are refused."""
import numpy as np

from ..framework.lod import offsets_to_lengths, with_lod
from ..framework.model_formats import tensor_from_bytes
from .registry import OpDef, register


@register
class Load(OpDef):
    type = "load"
    inputs = ()
    outputs = ("Out",)
    attrs = {"file_path": "", "load_as_fp16": False, "seek": -1, "shape": []}

    def infer_shape(self, ctx):
        ctx.expect(ctx.attr("file_path"), "the attribute file_path is empty")
        ctx.expect(ctx.attr("seek") == -1, "reading part of a file (seek %d) is not supported"
                   % ctx.attr("seek"))
        out = ctx.op.block._find_var_recursive(ctx.op.outputs["Out"][0])
        if out is None or out.dtype is None:       # the rest is known when the file is read
            ctx.set_output("Out", [-1], "float16" if ctx.attr("load_as_fp16") else "float32")

    @staticmethod
    def forward(file_path="", load_as_fp16=False, seek=-1, shape=()):
        try:
            with open(file_path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise FileNotFoundError("load: cannot read the tensor file %r: %s"
                                    % (file_path, e.strerror or e)) from None
        stored = tensor_from_bytes(data, file_path)
        array = stored.array.astype(np.float16) if load_as_fp16 else stored.array
        return with_lod(array, offsets_to_lengths(stored.lod, "load"))

    def samples(self, rng):
        return []
