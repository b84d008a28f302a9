"""Unique names for layers, parameters and temporaries: `fc_0`, `fc_0.w_0`, `fc_0.tmp_1`."""
import contextlib
import collections

__all__ = ["generate", "guard", "switch", "UniqueNameGenerator", "DygraphParameterNameChecker"]


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


class DygraphParameterNameChecker:
    """Whether a dygraph parameter name was seen before (the second thing switch() swaps,
    as in Paddle): checker(name) is True for a name it has seen, and remembers the name."""

    def __init__(self):
        self._name_set = set()

    def __call__(self, name):
        seen = name in self._name_set
        self._name_set.add(name)
        return seen


_parameter_name_checker = DygraphParameterNameChecker()


def switch(new_generator=None, new_para_name_checker=None):
    """Puts in new (or fresh) ones; returns (old generator, old parameter name checker)."""
    global _generator, _parameter_name_checker
    old = _generator, _parameter_name_checker
    _generator = new_generator if new_generator is not None else UniqueNameGenerator()
    _parameter_name_checker = (new_para_name_checker if new_para_name_checker is not None
                               else DygraphParameterNameChecker())
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    if isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(*old)
