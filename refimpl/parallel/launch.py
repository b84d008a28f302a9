"""Process-level glue for `python -m refimpl run` under mpirun: a rank that raises
prints its traceback and aborts the whole job instead of leaving the others hanging."""
import contextlib
import os
import sys
import time
import traceback

__all__ = ["abort_on_error", "world"]


def world():
    """(rank, size) of the MPI world, or (0, 1) when not launched by mpirun."""
    comm = mpi_comm()
    return (comm.Get_rank(), comm.Get_size()) if comm is not None else (0, 1)


def mpi_comm():
    """COMM_WORLD when running under an MPI launcher with more than one rank, else None."""
    launched = any(k in os.environ for k in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMI_SIZE",
                                             "PMIX_RANK", "MPI_LOCALRANKID"))
    if not launched:
        return None
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    return comm if comm.Get_size() > 1 else None


def _flush():
    sys.stdout.flush()
    sys.stderr.flush()


def _abort(comm):
    """Print the exception being handled and end the job; the pause first lets mpirun
    forward what this rank printed (MPICH drops output still in flight when a job ends)."""
    traceback.print_exc()
    _flush()
    time.sleep(0.5)
    _unlink_mapped_shared_memory()
    comm.Abort(1)


# the names MPI libraries give their shared-memory segments (MPICH; Open MPI's vader / sm)
_MPI_SEGMENT_PREFIXES = ("/dev/shm/mpich_shm_", "/dev/shm/vader_segment", "/dev/shm/sm_segment")


def _unlink_mapped_shared_memory():
    """Remove the names of the MPI segments this rank has mapped in /dev/shm (the node
    segment, shared windows): MPICH unlinks them only in MPI_Finalize, so every aborted job
    would leave them there for good. The mappings stay valid until the processes end; a
    name a peer already removed is skipped, and files that are not MPI's are left alone."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps}
    except OSError:     # not Linux: nothing to clean
        return
    for path in paths:
        if path.startswith(_MPI_SEGMENT_PREFIXES):
            with contextlib.suppress(OSError):
                os.unlink(path)


@contextlib.contextmanager
def abort_on_error():
    """Run the user's script; under mpirun, a failing rank aborts the job (`_abort`). The
    barrier at the end gives mpirun time to forward what the ranks printed."""
    try:
        yield
    except SystemExit:
        raise
    except BaseException:
        comm = mpi_comm()
        if comm is None:
            raise
        _abort(comm)
    comm = mpi_comm() if "mpi4py.MPI" in sys.modules else None
    _flush()
    if comm is not None:
        _final_barrier(comm)
        time.sleep(0.2)


def _final_barrier(comm):
    """Wait for every rank to finish its script; a rank that never does makes this one
    raise StallError (REFIMPL_STALL_TIMEOUT) and abort the job, instead of hanging."""
    from .stall import StallError, StallWatch
    request = comm.Ibarrier()
    try:
        StallWatch(1).poll(request.Test, lambda: "at the end of the script: waiting for the "
                                                 "other ranks to finish theirs (MPI barrier)")
    except StallError:
        # (a peer that stalled times out about now too: the pause lets its report out)
        _abort(comm)
