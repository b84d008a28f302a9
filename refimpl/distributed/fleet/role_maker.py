"""fleet's role makers: who this process is in the job (specs/distributed.md#fleet).

A role maker is a description, read when fleet.init generates the role:
- collective (is_collective=True): the job's processes (mpirun's ranks or spawn's
  children), each a worker; UserDefinedRoleMaker's worker_endpoints must name one
  endpoint per process and current_id must be this process's rank.
- not collective, PaddleCloudRoleMaker: a parameter-server job described by the
  launcher's environment (PADDLE_PSERVERS_IP_PORT_LIST); without it Paddle 2.0 falls
  back to non-distributed execution, one worker alone, and so does refimpl. A
  parameter-server environment is NotImplementedError.
- not collective, UserDefinedRoleMaker: the roles and endpoints given (Paddle 2.0's
  facts: worker_num defaults to the number of worker_endpoints); the queries answer from
  them, and whatever would start or use a parameter server raises (fleet's functions).
"""
import os

from ..env import ParallelEnv, get_rank, get_world_size

__all__ = ["Role", "PaddleCloudRoleMaker", "UserDefinedRoleMaker"]


class Role:
    WORKER = 1
    SERVER = 2
    HETER_WORKER = 3
    ALL = 4


class PaddleCloudRoleMaker:
    """The role from the job: collective, or non-distributed without a parameter-server
    environment. Other keyword arguments of Paddle's (init_gloo, path, ...) configure the
    gloo rendezvous of parameter-server jobs and are accepted as given."""

    def __init__(self, is_collective=False, **kwargs):
        if not isinstance(is_collective, bool):
            raise ValueError("%s: is_collective must be a bool, got %r"
                             % (type(self).__name__, is_collective))
        self._is_collective = is_collective
        self._kwargs = kwargs
        self._generated = False

    def _generate_role(self):
        if self._generated:
            return
        if self._is_collective:
            self._collective_role()
        else:
            self._ps_role()
        self._generated = True

    def _collective_role(self):
        self._role, self._current_id = Role.WORKER, get_rank()
        self._worker_num = get_world_size()
        self._worker_endpoints = ParallelEnv().trainer_endpoints
        self._server_endpoints = []
        self._non_distributed = False

    def _ps_role(self):
        if os.environ.get("PADDLE_PSERVERS_IP_PORT_LIST") is not None:
            raise NotImplementedError(
                "PaddleCloudRoleMaker(is_collective=False): PADDLE_PSERVERS_IP_PORT_LIST "
                "describes a parameter-server job, which refimpl does not implement; use "
                "fleet.init(is_collective=True) (collective data parallelism over mpirun)")
        # Paddle 2.0: "back to non_distributed execution", one worker and no servers
        self._role, self._current_id, self._worker_num = Role.WORKER, 0, 1
        self._worker_endpoints, self._server_endpoints = [], []
        self._non_distributed = True


class UserDefinedRoleMaker(PaddleCloudRoleMaker):
    """The role given: current_id, role, worker_endpoints, server_endpoints, worker_num."""

    def __init__(self, is_collective=False, init_gloo=False, **kwargs):
        super().__init__(is_collective=is_collective, init_gloo=init_gloo, **kwargs)

    def _collective_role(self):
        endpoints = list(self._kwargs.get("worker_endpoints") or [])
        current_id = self._kwargs.get("current_id", 0)
        if len(endpoints) != get_world_size() or current_id != get_rank():
            raise ValueError(
                "UserDefinedRoleMaker(is_collective=True): worker_endpoints names %d workers "
                "and current_id is %r, but this job has %d processes and this one is rank %d "
                "(refimpl's collective workers are the job's processes: mpirun -n N)"
                % (len(endpoints), current_id, get_world_size(), get_rank()))
        self._role, self._current_id, self._worker_num = Role.WORKER, current_id, len(endpoints)
        self._worker_endpoints, self._server_endpoints = endpoints, []
        self._non_distributed = False

    def _ps_role(self):
        kwargs = self._kwargs
        self._worker_endpoints = list(kwargs.get("worker_endpoints") or [])
        self._server_endpoints = list(kwargs.get("server_endpoints") or [])
        self._worker_num = kwargs.get("worker_num", 0) or len(self._worker_endpoints)
        self._role, self._current_id = kwargs.get("role"), kwargs.get("current_id")
        if self._role not in (Role.WORKER, Role.SERVER):
            raise ValueError("UserDefinedRoleMaker: role must be fleet.Role.WORKER or "
                             "fleet.Role.SERVER, got %r" % (self._role,))
        count = self._worker_num if self._role == Role.WORKER else len(self._server_endpoints)
        if not isinstance(self._current_id, int) or not 0 <= self._current_id < count:
            raise ValueError("UserDefinedRoleMaker: current_id must be an index among the %d "
                             "%ss, got %r" % (count, "worker" if self._role == Role.WORKER
                                              else "server", self._current_id))
        self._non_distributed = False
