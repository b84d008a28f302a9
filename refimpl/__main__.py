"""refimpl command line: run (drop-in for paddle scripts), ops, conformance, bench,
dump-model, check-model."""
import os
import runpy
import sys

USAGE = """python -m refimpl COMMAND ...

commands:
  run SCRIPT [ARGS...]   run an unmodified paddle script with `paddle` -> refimpl
                         (run --paddle V SCRIPT: behave like Paddle V = 1.8, 2.0 or 3;
                         default $REFIMPL_PADDLE, else 2.0)
  ops [NAME]             every op type, or one: definition, spec, kernels, grad, tests
  conformance ...        generate / check golden vectors (see `conformance --help`)
  bench [...]            time training steps (see `bench --help`)
  dump-model PATH        print a saved program as readable JSON (`dump-model --help`)
  check-model PATH       run a saved inference model in refimpl, and with
                         --paddle-python PY in real Paddle too; compare the outputs
"""


def cmd_run(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m refimpl run [--paddle 1.8|2.0|3] SCRIPT [ARGS...]\n\n"
              "Runs SCRIPT as __main__ with `import paddle` resolving to refimpl, under the\n"
              "version profile --paddle (default: $REFIMPL_PADDLE, else 2.0; specs/versions.md).")
        return 0 if argv else 2
    if argv[0] == "--paddle" or argv[0].startswith("--paddle="):
        version = argv[0].partition("=")[2] if "=" in argv[0] else \
            (argv[1] if len(argv) > 1 else "")
        argv = argv[1:] if "=" in argv[0] else argv[2:]
        from . import versions
        from .framework import mode
        try:
            versions.set_current(version)
        except ValueError as e:
            print("refimpl run: %s" % e, file=sys.stderr)
            return 2
        mode.start_as_profile()
        return cmd_run(argv)
    script = argv[0]
    if not os.path.isfile(script):
        print("refimpl run: no such script: %s" % script, file=sys.stderr)
        return 2
    from . import _alias, versions
    from .fluid.flags import read_environment
    # Paddle reads the FLAGS_* environment variables at `import paddle`, after the lines
    # of the script above it (check_nan_inf_base.py sets FLAGS_check_nan_inf there)
    _alias.install(on_first_import=read_environment)
    _alias.install_for_children()
    if versions.switch("legacy_library_names"):
        from . import legacy_libraries
        legacy_libraries.restore(versions.current())
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    from .parallel import launch
    with launch.abort_on_error():
        runpy.run_path(script, run_name="__main__")
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    cmd, rest = argv[0], argv[1:]
    if cmd == "run":
        return cmd_run(rest)
    if cmd == "ops":
        from .op_index import main as ops_main
        return ops_main(rest)
    if cmd == "conformance":
        from .conformance.cli import main as conformance_main
        return conformance_main(rest)
    if cmd == "bench":
        from .bench_cli import main as bench_main
        return bench_main(rest)
    if cmd == "dump-model":
        from .model_tools import dump_model_main
        return dump_model_main(rest)
    if cmd == "check-model":
        from .model_tools import check_model_main
        return check_model_main(rest)
    print("unknown command %r\n\n%s" % (cmd, USAGE), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
