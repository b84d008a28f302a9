"""Dynamic (eager) mode: Tensor, the tracer that runs each op's OpDef now and records it on
a tape, and the autograd engine that runs the ops' registered backwards (specs/dygraph.md).

Kept free of imports here: framework modules import `dygraph.mode` while they load."""
