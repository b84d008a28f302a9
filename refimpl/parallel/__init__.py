"""Data parallelism's transport: communicators (in-process threads, MPI across processes),
each place's communicator group, and process launch."""
