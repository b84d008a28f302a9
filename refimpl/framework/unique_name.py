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


class DygraphParameterNameChecker:
    """The parameter names a dynamic-mode namespace has used: checker(name) is True when
    the name was used before (and records it)."""

    def __init__(self):
        self.used = set()

    def __call__(self, name):
        seen = name in self.used
        self.used.add(name)
        return seen


_generator = UniqueNameGenerator()
_parameter_name_checker = DygraphParameterNameChecker()


def generate(key):
    return _generator(key)


def switch(new_generator=None, new_para_name_checker=None):
    """Switch to a new namespace (fresh ones for arguments left None); returns the previous
    (generator, parameter-name checker) pair, as Paddle 1.8 and 2.0 do, to switch back."""
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
