"""paddle.fluid.proto.framework_pb2 (paddle.base.proto.framework_pb2 under Paddle 3's
name): the messages of Paddle's program format and of the op protos
core.get_all_op_protos() serializes (framework/paddle_formats/framework.proto), with the
file's top-level enums and their values at module level (AttrType, framework_pb2.INT ...),
as protobuf's generated module has them. Paddle 3's test helper op.py reads the op protos
and builds OpDescs with it."""
from . import enum_types, message_classes

_CLASSES = message_classes("framework.proto")
globals().update({name: cls for name, cls in _CLASSES.items() if "." not in name})
for _name, _enum in enum_types("framework.proto").items():
    if "." not in _name:
        globals()[_name] = _enum
        globals().update(_enum.items())

__all__ = sorted(name for name in globals() if not name.startswith("_"))
