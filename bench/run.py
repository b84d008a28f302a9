"""Training-step benchmarks; same as `python -m refimpl bench` (see --help)."""
import sys

from refimpl.bench_cli import main

if __name__ == "__main__":
    sys.exit(main())
