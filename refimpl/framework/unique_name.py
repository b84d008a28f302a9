"""Unique names for layers, parameters and temporaries: `fc_0`, `fc_0.w_0`, `fc_0.tmp_1`."""
import contextlib
import collections

__all__ = ["generate", "guard", "switch", "UniqueNameGenerator"]


class UniqueNameGenerator:
    def __init__(self, prefix=""):
        self.prefix = prefix
        self.ids = collections.defaultdict(int)

    def __call__(self, key):
        n = self.ids[key]
        self.ids[key] = n + 1
        return "%s%s_%d" % (self.prefix, key, n)


_generator = UniqueNameGenerator()


def generate(key):
    return _generator(key)


def switch(new_generator=None):
    global _generator
    old = _generator
    _generator = new_generator if new_generator is not None else UniqueNameGenerator()
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    if isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
