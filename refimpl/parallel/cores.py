"""The cores of one machine shared by the processes of a job (specs/distributed.md#cores).

Each process of an mpirun or spawn job runs its kernels on an OpenMP team and numpy on
OpenBLAS's threads, both as large as the machine by default: two ranks on two cores would
run four spinning threads on them. So, unless the user set OMP_NUM_THREADS, each process
takes its share: OMP_NUM_THREADS and OPENBLAS_NUM_THREADS = the cores it may run on //
the job's processes on this machine (at least 1). Both are read when their library
loads, so `share_cores()` runs when refimpl is imported, before numpy.
"""
import os

__all__ = ["share_cores", "thread_environment", "local_processes", "process_threads"]

# how launchers tell a process how many of the job's processes run on its machine (MPICH's
# hydra, Open MPI, MVAPICH), then the job's size when only that is known
LOCAL_SIZE_VARIABLES = ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE",
                        "MV2_COMM_WORLD_LOCAL_SIZE", "PMI_SIZE")


def _cores():
    """The cores this process may run on (its affinity, e.g. under taskset)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:     # not Linux
        return os.cpu_count() or 1


def local_processes(environ=os.environ):
    """The job's processes on this machine as the MPI launcher says, else 1."""
    for name in LOCAL_SIZE_VARIABLES:
        value = environ.get(name, "")
        if value.strip().isdigit() and int(value) > 0:
            return int(value)
    return 1


def thread_environment(processes, environ=os.environ):
    """The variables to set so that `processes` processes share this machine's cores: {}
    when the user chose OMP_NUM_THREADS."""
    if environ.get("OMP_NUM_THREADS", "").strip():
        return {}
    threads = str(max(1, _cores() // processes))
    return {"OMP_NUM_THREADS": threads, "OPENBLAS_NUM_THREADS": threads}


def share_cores():
    """In a process started by an MPI launcher with others on this machine: its share of
    the cores (see the module doc)."""
    processes = local_processes()
    if processes > 1:
        os.environ.update(thread_environment(processes))


def process_threads(environ=os.environ):
    """The threads this process computes on: OMP_NUM_THREADS when set (share_cores sets it
    in a launched job), else the cores it may run on."""
    value = environ.get("OMP_NUM_THREADS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else _cores()
