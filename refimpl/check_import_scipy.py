"""paddle.check_import_scipy (Paddle 1.8 / 2.0): on Windows ('nt'), a scipy whose DLLs fail
to load is reported as an ImportError naming the Visual C++ runtime to install; any other
import failure, and other systems, pass silently."""

_VC_RUNTIME_HINT = ("\nplease download visual C++ Redistributable for vs 2015, "
                    "https://www.microsoft.com/en-us/download/details.aspx?id=48145")


def check_import_scipy(OsName):
    if OsName != "nt":
        return
    try:
        import scipy.io  # noqa: F401  (only whether it loads matters)
    except ImportError as e:
        if "DLL load failed" in str(e):
            raise ImportError(str(e) + _VC_RUNTIME_HINT) from e
