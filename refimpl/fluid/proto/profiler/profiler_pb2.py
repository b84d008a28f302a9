"""paddle.fluid.proto.profiler.profiler_pb2: Profile, Event, MemEvent and MemCopy, the
messages of the profile fluid.profiler writes (framework/paddle_formats/profiler.proto)."""
from .. import message_classes

__all__ = ["Profile", "Event", "MemEvent", "MemCopy"]

_CLASSES = message_classes("profiler.proto")
Profile, Event, MemEvent, MemCopy = (_CLASSES[n] for n in __all__)
