"""paddle.distributed.spawn: `nprocs` fresh Python processes on this machine run
func(*args) as the ranks of a job of their own -- no MPI, no sockets: their collectives go
through pipes to this process, which combines them (parallel/pipes.py).

Each child is a new interpreter (as multiprocessing's "spawn" start method): it imports the
spawning script as `__mp_main__` (so the script's `if __name__ == "__main__":` block does
not run again, and `import paddle` resolves to refimpl), unpickles func and args, runs it,
and reports success or its traceback. When a child fails or dies, the others are
terminated at once (SIGTERM, SIGKILL 2 s later) and join() raises SpawnError with the
child's traceback (specs/distributed.md#spawn).
"""
import multiprocessing.spawn
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection

from ..parallel import cores, launch, pipes
from ..parallel.world import process_world
from .env import FIRST_PORT

__all__ = ["spawn", "MultiprocessContext", "SpawnError"]

KILL_AFTER_S = 2.0           # SIGTERM, then SIGKILL this much later
# environment variables by which MPI launchers tell a process its rank: a spawned child
# must not believe it is an MPI rank
_MPI_PREFIXES = ("PMI_", "PMIX_", "OMPI_", "HYDRA_", "MPI_LOCAL")


class SpawnError(Exception):
    """A spawned process raised or died; the message holds its traceback or its exit."""


def _check_options(options):
    start_method = options.pop("start_method", "spawn")
    if start_method != "spawn":
        raise NotImplementedError(
            "spawn: start_method=%r; refimpl always starts fresh interpreters ('spawn'), "
            "so func and args must be picklable" % (start_method,))
    print_config = options.pop("print_config", False)
    started_port = options.pop("started_port", FIRST_PORT)
    if not isinstance(started_port, int) or isinstance(started_port, bool):
        raise TypeError("spawn: started_port must be an int, got %r" % (started_port,))
    if options:
        raise NotImplementedError(
            "spawn: option%s %s not supported: refimpl's spawn starts every process on this "
            "machine's CPU (no GPUs, no other nodes); supported: start_method='spawn', "
            "print_config, started_port" % ("s" if len(options) > 1 else "",
                                             ", ".join(sorted(options))))
    return print_config, started_port


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
    """Run func(*args) in `nprocs` new processes (-1: one per CPU core), ranks 0..nprocs-1
    of their own job. join=True waits for them all (raising SpawnError if one fails);
    join=False returns at once. Returns the MultiprocessContext."""
    if not callable(func):
        raise TypeError("spawn: func must be callable, got %s" % type(func).__name__)
    if not isinstance(args, tuple):
        raise TypeError("spawn: args must be a tuple, got %s" % type(args).__name__)
    if nprocs == -1:
        nprocs = os.cpu_count() or 1
    if isinstance(nprocs, bool) or not isinstance(nprocs, int) or nprocs < 1:
        raise ValueError("spawn: nprocs must be an int >= 1 (or -1: one per CPU core), got "
                         "%r" % (nprocs,))
    print_config, started_port = _check_options(dict(options))
    if launch.mpi_comm() is not None:
        raise RuntimeError("spawn inside an mpirun job of several ranks: use mpirun or spawn, "
                           "not both")
    try:
        payload = pickle.dumps((func, args), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:
        raise TypeError("spawn: func and args are sent to new processes, so they must be "
                        "picklable (func a module-level function): %s: %s"
                        % (type(e).__name__, e)) from e
    main = sys.modules.get("__main__")
    main_path = getattr(main, "__file__", None)
    endpoints = ",".join("127.0.0.1:%d" % (started_port + r) for r in range(nprocs))
    if print_config:
        print("spawn: %d processes on this machine, endpoints %s" % (nprocs, endpoints))
    processes, readers, writers, setups = [], [], [], []
    try:
        for rank in range(nprocs):
            process, reader, writer = _start_child(rank, nprocs, endpoints)
            processes.append(process)
            readers.append(reader)
            writers.append(writer)
            setups.append({"sys_path": list(sys.path), "cwd": os.getcwd(),
                           "argv": list(sys.argv), "main_path": main_path,
                           "payload": payload})
    except BaseException:
        for p in processes:
            p.kill()
        raise
    context = MultiprocessContext(processes, readers, writers, daemon)
    context.hub.start(setups)
    if not join:
        return context
    while not context.join():
        pass
    return context


def _start_child(rank, size, endpoints):
    """Popen of rank `rank`, with its end of two pipes; (process, reader, writer)."""
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    import refimpl
    root = os.path.dirname(os.path.dirname(os.path.abspath(refimpl.__file__)))
    env = {k: v for k, v in os.environ.items() if not k.startswith(_MPI_PREFIXES)}
    env.update({pipes.ENV: "%d,%d,%d,%d" % (rank, size, to_child_r, from_child_w),
                "PYTHONPATH": os.pathsep.join([root] + [p for p in env.get(
                    "PYTHONPATH", "").split(os.pathsep) if p]),
                "PADDLE_TRAINER_ID": str(rank), "PADDLE_TRAINERS_NUM": str(size),
                "PADDLE_TRAINER_ENDPOINTS": endpoints,
                "PADDLE_CURRENT_ENDPOINT": endpoints.split(",")[rank]})
    env.update(cores.thread_environment(size, env))
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", "from refimpl.distributed.spawn import child_main; "
                                   "child_main()"],
            env=env, pass_fds=(to_child_r, from_child_w))
    finally:
        os.close(to_child_r)
        os.close(from_child_w)
    return (process, Connection(from_child_r, writable=False),
            Connection(to_child_w, readable=False))


class MultiprocessContext:
    """The spawned processes: `processes` (Popen objects, by rank), `join(timeout)`."""

    def __init__(self, processes, readers, writers, daemon):
        self.processes = processes
        self._failure = None          # (rank, traceback text or None): the first failure
        self._lock = threading.Lock()
        self.hub = pipes.Hub(readers, writers, self._child_failed)
        if daemon:
            import atexit
            atexit.register(self._terminate)

    def _child_failed(self, rank, text):
        with self._lock:
            if self._failure is None:
                self._failure = (rank, text)
        self._terminate()

    def _terminate(self):
        """End every process still running: SIGTERM now, SIGKILL after KILL_AFTER_S."""
        alive = [p for p in self.processes if p.poll() is None]
        for p in alive:
            p.terminate()
        if alive:
            def kill():
                for p in alive:
                    if p.poll() is None:
                        p.kill()
            timer = threading.Timer(KILL_AFTER_S, kill)
            timer.daemon = True
            timer.start()

    def join(self, timeout=None):
        """True once every process exited with status 0; False if `timeout` seconds passed
        first; SpawnError (the others terminated) when one failed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            codes = [p.poll() for p in self.processes]
            failed = [r for r, c in enumerate(codes) if c not in (None, 0)]
            if failed or self._failure is not None:
                self._terminate()
                for p in self.processes:
                    p.wait()
                self.hub.stop()
                raise self._error(failed)
            if all(c == 0 for c in codes):
                self.hub.stop()
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False
            time.sleep(0.05)

    def _error(self, failed):
        rank, text = self._failure if self._failure is not None else (failed[0], None)
        if text is not None:
            return SpawnError("\n\n----------------------------------------------\n"
                              "Process %d terminated with the following error:\n"
                              "----------------------------------------------\n\n%s"
                              % (rank, text))
        code = self.processes[rank].wait()
        if code < 0:
            return SpawnError("Process %d terminated with signal %s."
                              % (rank, signal.Signals(-code).name))
        return SpawnError("Process %d terminated with exit code %d." % (rank, code))


def child_main():
    """A spawned child: receive the setup, import the spawning script, run func(*args)."""
    world = process_world()
    setup = world.receive_setup()
    os.chdir(setup["cwd"])
    sys.path[:] = setup["sys_path"]
    sys.argv = setup["argv"]
    from .. import _alias
    _alias.install()
    try:
        if setup["main_path"]:
            multiprocessing.spawn.import_main_path(setup["main_path"])
        func, args = pickle.loads(setup["payload"])
        func(*args)
    except SystemExit as e:
        if e.code not in (None, 0):
            _fail(world, "SystemExit: %s\n" % e.code)
    except BaseException:
        _fail(world, traceback.format_exc())
    sys.stdout.flush()
    world.finish()


def _fail(world, text):
    sys.stdout.flush()
    sys.stderr.write(text)
    sys.stderr.flush()
    world.fail(text)
    sys.exit(1)
