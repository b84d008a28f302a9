import os

import numpy as np
import pytest
from hypothesis import settings

# CI runs the same examples every time, so a red CI run is a change's doing and reruns
# reproduce it; local runs keep drawing new examples, which is where new bugs come from.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")

from refimpl.framework import mode
from refimpl.framework import unique_name
from refimpl.framework import program as program_mod
from refimpl.framework import scope as scope_mod


@pytest.fixture(autouse=True)
def fresh_programs():
    """Each test builds into new default programs, a new scope and fresh names, in static
    mode unless it asks for the `dygraph` fixture (or switches itself: the mode is put back
    after the test)."""
    old_seed = program_mod._global_program_seed[0]     # Program.global_seed's
    main, startup = program_mod.Program(), program_mod.Program()
    old_main = program_mod.switch_main_program(main)
    old_startup = program_mod.switch_startup_program(startup)
    old_mode, old_grad, old_train_mode = mode.dynamic, mode.grad_enabled, mode.train_mode
    # a test that starts a profile's rules (mode.start_as_profile() inside versions.use)
    # must not leave them to the next test
    old_legacy_grads, old_asked = mode.legacy_grads, mode.dynamic_asked
    mode.train_mode = True
    mode.enable_static()
    try:
        with scope_mod.scope_guard(scope_mod.Scope()), unique_name.guard():
            try:
                yield
            finally:
                mode.enable_static()     # the test's names again, if disable_static named afresh
    finally:
        mode.dynamic, mode.grad_enabled, mode.train_mode = old_mode, old_grad, old_train_mode
        mode.legacy_grads, mode.dynamic_asked = old_legacy_grads, old_asked
        program_mod.switch_main_program(old_main)
        program_mod.switch_startup_program(old_startup)
        program_mod._global_program_seed[0] = old_seed


@pytest.fixture
def dygraph(fresh_programs):
    """Dynamic mode for this test."""
    mode.disable_static()
    yield


@pytest.fixture
def dataset_home(tmp_path, monkeypatch):
    """paddle.dataset's DATA_HOME, where its readers look for downloaded files, in a
    temporary directory."""
    from refimpl.dataset import common
    monkeypatch.setattr(common, "DATA_HOME", str(tmp_path))
    return tmp_path


@pytest.fixture
def rng():
    return np.random.RandomState(1234)


def pytest_configure(config):
    config.addinivalue_line("markers", "paddle(version): run the test under that Paddle "
                            "version profile ('1.8', '2.0' or '3'; refimpl.versions)")


@pytest.fixture(autouse=True)
def paddle_version(request):
    """The version profile a test runs under: its `paddle` marker's, else the default; the
    fixture's value is refimpl.versions.use, for switching inside a test."""
    from refimpl import versions
    marker = request.node.get_closest_marker("paddle")
    if marker is None:
        yield versions.use
        return
    with versions.use(marker.args[0]):
        yield versions.use


@pytest.fixture
def program_desc_files():
    """save_inference_model / jit.save write ProgramDescs (what OldIrGuard gives under
    profile 3, and every other profile writes): refimpl writes a PIR json only for the ops
    and blocks its writer covers (specs/paddle_formats.md), not mean / assign / shape ops
    or control flow."""
    from refimpl.pir_utils import OldIrGuard
    with OldIrGuard():
        yield
