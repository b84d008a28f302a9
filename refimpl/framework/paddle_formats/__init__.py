"""PaddlePaddle's own file formats, as bytes <-> refimpl objects (nothing here touches disk):

  wire, proto_schema   the protobuf wire format, driven by framework.proto
  program_desc         ProgramDesc (`__model__`, `*.pdmodel`) <-> Program
  pir_program          Paddle 3's PIR program (`*.json`) -> Program (read only)
  tensor_stream        the LoDTensor stream (parameter files, `__params__`, `*.pdiparams`)
  safe_pickle          .pdparams / .pdopt / paddle.save pickles, never running their code

specs/io.md describes each format and what refimpl accepts.
"""


class DecodeError(ValueError):
    """Bytes that are not what their format says: truncated, corrupt, of an unsupported
    version, or asking for something refused (a pickle that would run code). The message
    says what is wrong and where; file readers add the file's name."""
