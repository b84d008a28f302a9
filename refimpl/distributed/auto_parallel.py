"""paddle.distributed's auto-parallel names (Paddle 3): the placements of a tensor's
shards (Shard, Replicate, Partial), ProcessMesh, and shard_tensor. refimpl has no
auto-parallel (paddle.is_compiled_with_distribute() is False): the placements and meshes
are plain descriptions, and distributing a tensor with them fails, naming why."""
import numpy as np

__all__ = ["Placement", "Shard", "Replicate", "Partial", "ProcessMesh", "shard_tensor"]


class Placement:
    """How a tensor lies along one dimension of a ProcessMesh."""

    def is_shard(self, dim=None):
        return False

    def is_replicated(self):
        return False

    def is_partial(self):
        return False

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self):
        return hash((type(self).__name__,) + tuple(sorted(vars(self).items())))

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__, ", ".join(
            "%s=%r" % item for item in sorted(vars(self).items())))


class Shard(Placement):
    """Split along tensor dimension `dim`."""

    def __init__(self, dim):
        self._dim = int(dim)

    def get_dim(self):
        return self._dim

    def is_shard(self, dim=None):
        return dim is None or dim == self._dim


class Replicate(Placement):
    """A whole copy on each process."""

    def is_replicated(self):
        return True


class Partial(Placement):
    """Partial values that a reduction (ReduceType, sum by default) would combine."""

    def __init__(self, reduce_type=None):
        self._reduce_type = reduce_type

    def is_partial(self):
        return True


class ProcessMesh:
    """An n-D array of process ranks with a name for each dimension."""

    def __init__(self, mesh, dim_names=None):
        self._mesh = np.array(mesh)
        self._dim_names = list(dim_names) if dim_names is not None else \
            ["d%d" % i for i in range(self._mesh.ndim)]
        if len(self._dim_names) != self._mesh.ndim:
            raise ValueError("ProcessMesh: %d dim_names %s for a %d-D mesh"
                             % (len(self._dim_names), self._dim_names, self._mesh.ndim))

    @property
    def shape(self):
        return list(self._mesh.shape)

    @property
    def ndim(self):
        return self._mesh.ndim

    @property
    def process_ids(self):
        return self._mesh.flatten().tolist()

    @property
    def dim_names(self):
        return list(self._dim_names)


def shard_tensor(data, mesh, placements, dtype=None, place=None, stop_gradient=None):
    raise NotImplementedError(
        "paddle.distributed.shard_tensor: refimpl has no auto-parallel "
        "(paddle.is_compiled_with_distribute() is False); run the program on one process")
