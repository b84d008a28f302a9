"""paddle.check_import_scipy: on Windows a scipy whose DLLs fail to load is an ImportError
naming the Visual C++ runtime (Paddle 1.8 / 2.0); other failures and systems pass."""
import builtins

import pytest

from refimpl.check_import_scipy import check_import_scipy


def _failing_import(message):
    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name.startswith("scipy"):
            raise ImportError(message)
        return real(name, *args, **kwargs)
    return fake


def test_a_dll_failure_on_windows_names_the_runtime(monkeypatch):
    monkeypatch.setattr(builtins, "__import__", _failing_import("DLL load failed: x"))
    with pytest.raises(ImportError, match="DLL load failed: x\nplease download visual C"):
        check_import_scipy("nt")
    assert check_import_scipy("posix") is None


def test_other_import_failures_pass(monkeypatch):
    monkeypatch.setattr(builtins, "__import__", _failing_import("No module named 'scipy'"))
    assert check_import_scipy("nt") is None
