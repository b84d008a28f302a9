"""fleet.util (Paddle 2.0's UtilBase): small collectives on Python values among the
workers, the files a worker reads, printing on one worker (specs/distributed.md#fleet).

Paddle runs the collectives over gloo among the processes its launcher started; refimpl's
workers are the job's processes (mpirun's ranks or spawn's children), and a
non-distributed fleet is one worker alone. A parameter-server job (servers besides the
workers) is not implemented."""
import sys

import numpy as np

from ...parallel.world import process_world

__all__ = ["UtilBase"]

_MODES = ("sum", "max", "min")
_COMM_WORLDS = ("worker", "server", "all")


class UtilBase:
    def __init__(self):
        self.role_maker = None

    def _set_role_maker(self, role_maker):
        self.role_maker = role_maker

    def _role(self, what):
        if self.role_maker is None:
            raise RuntimeError("fleet.util.%s: call fleet.init() first" % what)
        return self.role_maker

    def _workers(self, what, comm_world):
        """The world the call spans: the job's processes (or this one alone)."""
        if comm_world not in _COMM_WORLDS:
            raise ValueError("fleet.util.%s: comm_world must be one of %s, got %r"
                             % (what, list(_COMM_WORLDS), comm_world))
        role = self._role(what)
        if role._server_endpoints:
            raise NotImplementedError(
                "fleet.util.%s: the role maker describes a parameter-server job (%d servers); "
                "refimpl implements collective training only" % (what, len(role._server_endpoints)))
        if comm_world == "server":
            raise ValueError("fleet.util.%s(comm_world='server'): this job has no servers"
                             % what)
        return process_world() if role._worker_num > 1 else None

    def all_reduce(self, input, mode="sum", comm_world="worker"):
        """The element-wise sum (max, min) of every worker's `input` (a number, a list or a
        numpy array; a numpy array comes back)."""
        if mode not in _MODES:
            raise ValueError("fleet.util.all_reduce: mode must be one of %s, got %r"
                             % (list(_MODES), mode))
        world = self._workers("all_reduce", comm_world)
        value = np.asarray(input)
        if world is None:
            return value
        return world.allreduce_array(np.ascontiguousarray(value), mode)

    def barrier(self, comm_world="worker"):
        """Wait until every worker has come here."""
        world = self._workers("barrier", comm_world)
        if world is not None:
            world.barrier()

    def all_gather(self, input, comm_world="worker"):
        """Every worker's `input` (a number), in worker order: a list."""
        world = self._workers("all_gather", comm_world)
        if world is None:
            return [input]
        return [v.item() for v in world.allgather_array(np.asarray([input]))]

    def get_file_shard(self, files):
        """This worker's share of `files`: consecutive blocks in worker order, the first
        len(files) % worker_num workers one file more (Paddle 2.0's split)."""
        if not isinstance(files, list):
            raise TypeError("fleet.util.get_file_shard: files must be a list of file names, "
                            "got %s" % type(files).__name__)
        role = self._role("get_file_shard")
        count, index = role._worker_num, role._current_id
        size, extra = divmod(len(files), count)
        begin = index * size + min(index, extra)
        return files[begin:begin + size + (index < extra)]

    def print_on_rank(self, message, rank_id):
        """Print `message` on the worker of index `rank_id` only."""
        if self._role("print_on_rank")._current_id == rank_id:
            print(message)
            sys.stdout.flush()
