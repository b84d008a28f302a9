import numpy as np
import pytest

from refimpl.framework import unique_name
from refimpl.framework import program as program_mod
from refimpl.framework import scope as scope_mod


@pytest.fixture(autouse=True)
def fresh_programs():
    """Each test builds into new default programs, a new scope and fresh names."""
    main, startup = program_mod.Program(), program_mod.Program()
    old_main = program_mod.switch_main_program(main)
    old_startup = program_mod.switch_startup_program(startup)
    with scope_mod.scope_guard(scope_mod.Scope()), unique_name.guard():
        yield
    program_mod.switch_main_program(old_main)
    program_mod.switch_startup_program(old_startup)


@pytest.fixture
def rng():
    return np.random.RandomState(1234)
