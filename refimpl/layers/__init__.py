"""Layer functions: the static-graph building API. Namespaces (refimpl.static.nn,
refimpl.fluid.layers, refimpl.nn.functional, refimpl.*) re-export from here."""
