"""A process that saves one model to one path: tests/test_checkpoint_atomicity.py kills it.

    python checkpoint_saver_process.py loop SAVER PATH FIRST_GENERATION MEGABYTES
        save generation FIRST_GENERATION, +1, +2, ... to PATH forever, printing
        "saved <generation> <seconds>" after each save
    python checkpoint_saver_process.py crash-each-step SAVER PATH FIRST_GENERATION MEGABYTES
        for step 1, 2, ...: fork a process that saves generation FIRST_GENERATION + step to
        PATH but dies (os._exit: no cleanup, as a kill) just before its step-th file-system
        call (os.fsync / os.replace / os.unlink) or write into a file being saved (between
        the arrays of a file, and inside one); print "died <step> <generation>", then
        wait for a line on stdin (the test checks PATH meanwhile). When a save has fewer
        steps it completes: print "completed <generation>" and stop.

SAVER is `static` (paddle.static.save) or `paddle` (paddle.save). Generation g's values are
`values(g, megabytes)`, so the test knows exactly what each save wrote.
"""
import functools
import itertools
import os
import sys
import time

import numpy as np

SAVERS = ("static", "paddle")


@functools.lru_cache(maxsize=2)
def _ramp(megabytes):
    n = max(1, int(megabytes * (1 << 20) / 4 / 3))
    return (np.arange(n) % 9973).astype("float32") * 0.5


def values(generation, megabytes):
    """{name: ndarray} of generation `generation`: two weights (one with a name that is a
    path), an optimizer moment, and the generation itself; about `megabytes` MB."""
    ramp = _ramp(megabytes) + generation
    n = ramp.size
    return {"fc/0.w": ramp.reshape(1, n), "../fc_1.w": (ramp * 2).reshape(n, 1),
            "fc_1.w_moment1_0": -ramp, "generation": np.array([generation], "int64")}


def program(megabytes):
    """A Program whose persistables are `values`' names (weights as Parameters)."""
    from refimpl.framework.program import Program
    main = Program()
    block = main.global_block()
    for name, value in values(0, megabytes).items():
        if name.startswith(("fc/", "../")):
            block.create_parameter(name=name, shape=value.shape, dtype=value.dtype.name)
        else:
            block.create_var(name=name, shape=value.shape, dtype=value.dtype.name,
                             persistable=True)
    return main


def save(saver, main, path, generation, megabytes):
    import refimpl as paddle
    from refimpl.framework.scope import global_scope
    state = values(generation, megabytes)
    if saver == "static":
        global_scope().set_values(state)
        paddle.static.save(main, path)
    else:
        paddle.save(state, path)


class _WriteHook:
    """A file being saved whose every write calls `before_write(path)` first."""

    def __init__(self, file, path, before_write):
        self._file, self._path, self._before_write = file, path, before_write

    def write(self, data):
        self._before_write(self._path)
        return self._file.write(data)

    def __getattr__(self, name):
        return getattr(self._file, name)


def hook_writes(before_write, setattr=setattr):
    """Make every write into a file a save stages (atomic_file.StagedFile: every file
    refimpl saves) call `before_write(target path)` first; `setattr` may be pytest's
    monkeypatch.setattr, to undo it after the test."""
    from refimpl.framework import atomic_file
    init = atomic_file.StagedFile.__init__

    def hooked(self, path):
        init(self, path)
        self.file = _WriteHook(self.file, self.path, before_write)
    setattr(atomic_file.StagedFile, "__init__", hooked)


def _die_at_step(step):
    """Make the `step`-th call of os.fsync / os.replace / os.unlink, or write into a file
    being saved, end the process first."""
    calls = [0]

    def wrap(fn):
        def call(*args, **kwargs):
            calls[0] += 1
            if calls[0] == step:
                os._exit(137)
            return fn(*args, **kwargs)
        return call
    os.fsync, os.replace, os.unlink = wrap(os.fsync), wrap(os.replace), wrap(os.unlink)
    hook_writes(wrap(lambda path: None))


def main(argv):
    mode, saver, path, generation, megabytes = argv
    generation, megabytes = int(generation), float(megabytes)
    model = program(megabytes)
    if mode == "loop":
        while True:
            start = time.perf_counter()
            save(saver, model, path, generation, megabytes)
            print("saved %d %.4f" % (generation, time.perf_counter() - start), flush=True)
            generation += 1
    for step in itertools.count(1):
        pid = os.fork()
        if pid == 0:
            _die_at_step(step)
            save(saver, model, path, generation + step, megabytes)
            os._exit(0)
        if os.waitpid(pid, 0)[1] == 0:
            print("completed %d" % (generation + step), flush=True)
            return
        print("died %d %d" % (step, generation + step), flush=True)
        sys.stdin.readline()


if __name__ == "__main__":
    main(sys.argv[1:])
