"""Spec-conformance oracle: golden vectors generated from refimpl's references, and a
checker that scores any module exposing the paddle API against them.

    python -m refimpl conformance generate            # rewrite golden/ (deterministic)
    python -m refimpl conformance check --impl paddle # score an implementation

Layout: `store` (byte-stable .npz + index.json), `generate` (op cases from the registry,
class-level scenarios from `scenarios`), `build` (runs one case through an implementation's
public API), `worker` (a subprocess that runs cases), `check` (orchestration, comparison,
report), `cli`.
"""
