"""paddle.fluid.proto.profiler: the profile file's messages (profiler_pb2)."""
