"""Paddle 2.0's in-place versions in dynamic mode: each tensor's `inplace_version` counts
the in-place changes of its storage (setitem, the trailing-underscore APIs, assign into an
output), shared by the tensors that share that storage (the view ops' outputs and
`detach`, as Paddle's ShareInplaceVersionCounterWith); backward refuses a gradient whose
op saved a tensor that changed in place since, as Paddle's version check does
(specs/dygraph.md, "In-place versions").

No array is ever written in place here: an in-place change gives the tensor a new value
and every other tensor of its storage the same value in its own shape, so the values an
op saved for its gradient never change under it. The tracer's only cost is the saved
inputs each recorded op keeps (GradNode.sources); nothing is checked until some tensor
changed in place."""
import bisect
import itertools
import weakref

from .. import versions

__all__ = ["sequence", "Versions", "check_saved", "watch_output", "active", "tracked"]

# one order for recorded ops (GradNode.seq) and in-place changes: a change after an op was
# recorded has the larger number
sequence = itertools.count()

# true once some storage changed in place: until then backward checks nothing
active = False

# node -> [(Versions, version when the node saved it, tensor name)]: the outputs a node
# saved for its gradient whose storage has a counter (the inputs it saved are its sources)
_watched = weakref.WeakKeyDictionary()


class Versions:
    """The version counter of one storage: `bumps`, the sequence number of each in-place
    change (the version is their count); `members`, weak references to the tensors that
    share the storage (None while one tensor holds it)."""
    __slots__ = ("bumps", "members")

    def __init__(self):
        self.bumps = []
        self.members = None

    @property
    def current(self):
        return len(self.bumps)

    def at(self, seq):
        """The version when sequence number `seq` was taken."""
        return bisect.bisect_left(self.bumps, seq)

    def bump(self):
        global active
        active = True
        self.bumps.append(next(sequence))

    def join(self, tensor):
        # (the dead are dropped here: a parameter reshaped every step stays short)
        self.members = [ref for ref in self.members or () if ref() is not None]
        self.members.append(weakref.ref(tensor))

    def others(self, tensor):
        """The live tensors sharing this storage, but `tensor`."""
        found = []
        for ref in self.members or ():
            t = ref()
            if t is not None and t is not tensor:
                found.append(t)
        return found


def tracked():
    """Whether in-place changes are counted and storage shared (the 2.0 and 3 profiles;
    switch inplace_version: Paddle 1.8.5 has neither, its assign into a tensor reaching no
    view or detached copy of it)."""
    return versions.switch("inplace_version") is not None


def watch_output(t):
    """Tensor `t` (with a counter) is the output of its producer op: when that op saved it
    for its gradient, remember its version now, which backward checks."""
    node = t._node
    if node is None:
        return
    lay = node.lay
    if lay.plain_outs:
        slot = t._index
    else:
        offsets = node.out_offsets()
        slot = bisect.bisect_right(offsets, t._index) - 1
    if slot in lay.value_outs:
        counter = t._version_counter
        _watched.setdefault(node, []).append((counter, counter.current, t.name))


def check_saved(node):
    """Before node's grad op runs: every tensor it saved holds the version it had then."""
    sources = node.sources
    if sources is not None:
        for v in sources:
            for t in (v if type(v) is list else (v,)):
                counter = None if t is None else t._version_counter
                if counter is not None and counter.bumps and counter.bumps[-1] > node.seq:
                    raise _modified(node, t.name, counter.current, counter.at(node.seq))
    for counter, snapshot, name in _watched.get(node, ()):
        if counter.current != snapshot:
            raise _modified(node, name, counter.current, snapshot)


def _modified(node, name, version, snapshot):
    """Paddle's PermissionDenied (a RuntimeError) with its text: 2.0's names the grad op,
    3.3.1's does not (switch inplace_version)."""
    where = " in grad op '%s_grad'" % node.type \
        if versions.switch("inplace_version") != "tensor" else ""
    return RuntimeError(
        "(PermissionDenied) Tensor '%s' used in gradient computation%s has been modified by "
        "an inplace operation. Its version is %d but the expected version is %d. Please fix "
        "your code to void calling an inplace operator after using the Tensor which will "
        "used in gradient computation.\n  [Hint: Expected tensor_version == "
        "wrapper_version_snapshot, but received tensor_version:%d != "
        "wrapper_version_snapshot:%d.]" % (name, where, version, snapshot, version, snapshot))
