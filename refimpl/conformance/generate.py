"""Generate the golden vectors: every registered op's samples and every scenario.

Op cases: each op's `samples(rng)` with a seed fixed per op type; expected outputs from
the op's numpy reference, expected input gradients from its `backward` with a fixed
random cotangent (refimpl.testing.call_forward / call_backward, as the op tests use).
Scenario cases: `scenarios.SCENARIOS` run on refimpl with the numpy reference kernels.
Everything is deterministic, so regenerating gives byte-identical files.

The goldens describe GOLDEN_PROFILE (Paddle 3). Where another version profile gives other
results (specs/versions.md: one-number results of shape [1], integer mod signs, ...), a
case also stores that profile's arrays under `<key>@<profile>/...` and lists them in its
"profiles" entry; the checker compares an implementation with its own version's arrays.
"""
import contextlib
import glob
import json
import os
import zlib

import numpy as np

from .. import versions
from ..ops.registry import all_op_types, get_op_def, slot_name
from ..testing import (call_backward, call_forward, float_slots, output_lods,
                       program_inputs, program_outputs)
from .scenarios import SCENARIOS
from .store import (FORMAT_VERSION, GOLDEN_DIR, INDEX_NAME, array_key, describe,
                    read_index, read_npz, write_index, write_npz)

__all__ = ["generate", "build_goldens", "diff_goldens", "seed_for"]

DEFAULT_TOLERANCE = (1e-7, 1e-9)
GOLDEN_PROFILE = "3"


def seed_for(name):
    """A fixed seed per op type / scenario name (crc32: stable across runs and hosts)."""
    return zlib.crc32(name.encode())


def _json_safe(value):
    """Attributes as JSON stores them (tuples -> lists, numpy scalars -> Python)."""
    return json.loads(json.dumps(value, default=lambda v: v.tolist()))


def _as_list(slot_value):
    return slot_value if isinstance(slot_value, list) else [slot_value]


def _tolerance(op_def, outputs):
    for out in outputs:
        for a in _as_list(out):
            if a is not None and np.asarray(a).dtype.name in op_def.tolerances:
                return op_def.tolerances[np.asarray(a).dtype.name]
    return op_def.tolerances.get("float64", DEFAULT_TOLERANCE)


def _store(arrays, key, role, slot, values):
    """Put a slot's arrays under their keys; return their specs (None where absent)."""
    specs = []
    for j, a in enumerate(_as_list(values)):
        if a is None:
            specs.append(None)
            continue
        arrays[array_key(key, role, slot, j)] = np.asarray(a)
        specs.append(describe(a))
    return specs


def _cotangents(op_def, outputs, rng):
    """A random cotangent for each floating output the op's backward reads."""
    read = {slot_name(s) for s in op_def.grad_input_slots()}
    cot = {}
    for slot, out in zip(op_def.output_slots, outputs):
        if out is None or slot + "@GRAD" not in read:
            continue
        values = _as_list(out)
        if not all(v is not None and np.issubdtype(np.asarray(v).dtype, np.floating)
                   for v in values):
            continue
        drawn = [rng.uniform(-1, 1, np.shape(v)).astype(np.asarray(v).dtype) for v in values]
        cot[slot] = drawn if isinstance(out, list) else drawn[0]
    return cot


def _lod_entry(entry, in_lods, out_lods):
    """{"in": {slot: [recursive sequence lengths per variable, or null]}, "out": the same
    for every stored output (its rule's LoD, [] for none)}."""
    def lists(lod):
        return [list(level) for level in lod] if lod else None
    fed = {slot: [lists(one) for one in (lod if isinstance(lod, list) else
                                          [lod] * len(entry["inputs"][slot]))]
           for slot, lod in in_lods.items()}
    got = {slot: [lists(lod) or [] for lod in out_lods[slot]]
           for slot, specs in entry["outputs"].items() if any(specs)}
    return {"in": fed, "out": got}


def _with_profiles(make):
    """make() -> (entries, arrays) under GOLDEN_PROFILE, plus, for each other profile, the
    arrays that differ there (under `<key>@<profile>/`, named in the entry's "profiles")
    and the output LoD where it differs (the entry's "profile_lods": profile -> out)."""
    with versions.use(GOLDEN_PROFILE):
        entries, arrays = make()
    for profile in versions.VERSIONS:
        if profile == GOLDEN_PROFILE:
            continue
        with versions.use(profile):
            other_entries, other = make()
        for entry, other_entry in zip(entries, other_entries):
            other_lods = other_entry.get("lods", {}).get("out")
            if other_lods != entry.get("lods", {}).get("out"):
                entry.setdefault("profile_lods", {})[profile] = other_lods
            prefix = entry["key"] + "/"
            changed = sorted(k[len(prefix):] for k in arrays if k.startswith(prefix)
                             and k.split("/")[1] not in ("in", "cot")
                             and k in other and not _same_array(arrays[k], other[k]))
            if changed:
                entry.setdefault("profiles", {})[profile] = changed
                for rest in changed:
                    arrays["%s@%s/%s" % (entry["key"], profile, rest)] = other[prefix + rest]
    return entries, arrays


def _same_array(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


def op_cases(op_type):
    """(index entries, arrays) for one op type's samples, in every profile."""
    return _with_profiles(lambda: _op_cases(op_type))


def _op_cases(op_type):
    op_def = get_op_def(op_type)
    seed = seed_for(op_type)
    samples = list(op_def.samples(np.random.RandomState(seed)))
    cot_rng = np.random.RandomState(seed + 1)
    file_name = "op_%s.npz" % op_type
    entries, arrays = [], {}
    for i, sample in enumerate(samples):
        key = str(i)
        attrs = _json_safe(sample.attrs)
        inputs = {k: v for k, v in sample.inputs.items() if v is not None}
        outputs = call_forward(op_def, inputs, attrs)
        rtol, atol = _tolerance(op_def, outputs)
        entry = {"id": "op/%s/%d%s" % (op_type, i, "_" + sample.name if sample.name else ""),
                 "kind": "op", "group": op_type, "op": op_type, "file": file_name,
                 "key": key, "attrs": attrs, "rtol": rtol, "atol": atol,
                 "inputs": {}, "outputs": {}, "cotangents": {}, "grads": {}}
        fed, lods = program_inputs(op_def, sample)
        for s in op_def.inputs:
            if slot_name(s) in fed:
                entry["inputs"][slot_name(s)] = _store(arrays, key, "in", slot_name(s),
                                                       fed[slot_name(s)])
        bound = program_outputs(op_def, sample)
        for slot, out in zip(op_def.output_slots, outputs):
            if slot in bound:   # an internal output is bound, not stored (spec None)
                entry["outputs"][slot] = _store(
                    arrays, key, "out", slot,
                    [None] * len(_as_list(out)) if slot in op_def.internal_outputs else out)
        out_lods = output_lods(op_def, sample, lods, outputs)
        if lods or any(any(per_var) for per_var in out_lods.values()):
            entry["lods"] = _lod_entry(entry, lods, out_lods)
        # a statistic "gradient" (data_norm's counters) is checked too: Paddle's grad op
        # requires those outputs, so a case asking for X's gradient alone cannot run
        wrt = (float_slots(op_def, inputs) + [s for s in op_def.statistic_grads if s in inputs]
               if sample.grad and op_def.has_grad() else [])
        cot = _cotangents(op_def, outputs, cot_rng) if wrt else {}
        if cot:
            grads = call_backward(op_def, inputs, attrs, outputs, cot)
            by_slot = dict(zip([slot_name(s)[:-len("@GRAD")]
                                for s in op_def.grad_output_slots()], grads))
            for slot, c in cot.items():
                entry["cotangents"][slot] = _store(arrays, key, "cot", slot, c)
            for slot in wrt:
                if by_slot.get(slot) is not None:
                    entry["grads"][slot] = _store(arrays, key, "grad", slot, by_slot[slot])
        entries.append(entry)
    return entries, arrays


@contextlib.contextmanager
def _reference_kernels():
    """Scenarios run on the numpy references, so the goldens do not depend on which
    compiled kernels were built."""
    old = os.environ.get("REFIMPL_KERNELS")
    os.environ["REFIMPL_KERNELS"] = "numpy"
    try:
        yield
    finally:
        if old is None:
            del os.environ["REFIMPL_KERNELS"]
        else:
            os.environ["REFIMPL_KERNELS"] = old


def scenario_case(name):
    """(index entry, arrays) for one scenario, run on refimpl in every profile."""
    entries, arrays = _with_profiles(lambda: _scenario_case(name))
    return entries[0], arrays


def _scenario_case(name):
    import refimpl
    sc = SCENARIOS[name]
    inputs = sc.make_inputs(np.random.RandomState(seed_for(name)))
    with _reference_kernels():
        refimpl.enable_static()
        results = sc.run(refimpl, inputs)
    key = "0"
    arrays = {array_key(key, "in", k): np.asarray(v) for k, v in inputs.items()}
    arrays.update({array_key(key, "out", k): np.asarray(v) for k, v in results.items()})
    entry = {"id": "class/" + name, "kind": "scenario", "group": name.split("/")[0],
             "scenario": name, "doc": sc.doc, "file": "class_%s.npz" % name.replace("/", "_"),
             "key": key, "rtol": sc.rtol, "atol": sc.atol,
             "inputs": {k: describe(v) for k, v in inputs.items()},
             "outputs": {k: describe(v) for k, v in results.items()}}
    return [entry], arrays


def _is_generated_grad_op(op_type):
    return op_type.endswith("_grad") and op_type[:-len("_grad")] in all_op_types() and \
        get_op_def(op_type[:-len("_grad")]).has_grad()


def build_goldens():
    """(index, {file name: arrays}) for everything in the registry and the scenarios."""
    index = {"format": FORMAT_VERSION, "profile": GOLDEN_PROFILE, "cases": [],
             "ops_without_samples": [], "scenarios_not_generated": {}}
    files = {}
    for op_type in all_op_types():
        if _is_generated_grad_op(op_type):
            continue
        entries, arrays = op_cases(op_type)
        if not entries:
            index["ops_without_samples"].append(op_type)
            continue
        index["cases"] += entries
        files[entries[0]["file"]] = arrays
    for name in sorted(SCENARIOS):
        try:
            entry, arrays = scenario_case(name)
        except Exception as e:  # a feature refimpl does not have yet: listed, not fatal
            index["scenarios_not_generated"][name] = "%s: %s" % (type(e).__name__, e)
            continue
        index["cases"].append(entry)
        files[entry["file"]] = arrays
    return index, files


def generate(out_dir=GOLDEN_DIR):
    """Rewrite out_dir's golden files (its *.npz and index.json) from scratch."""
    os.makedirs(out_dir, exist_ok=True)
    index, files = build_goldens()
    for old in glob.glob(os.path.join(out_dir, "*.npz")):
        os.remove(old)
    for name, arrays in files.items():
        write_npz(os.path.join(out_dir, name), arrays)
    write_index(os.path.join(out_dir, INDEX_NAME), index)
    return index


def diff_goldens(fresh_dir, shipped_dir):
    """What differs between two golden sets, in words ([] = the same cases and inputs).

    Case lists, attrs, shapes and inputs must match exactly; expected values within each
    case's tolerance (BLAS may round the last bit differently on another CPU)."""
    fresh, shipped = read_index(fresh_dir), read_index(shipped_dir)
    problems = []
    for field in ("ops_without_samples", "scenarios_not_generated"):
        if fresh[field] != shipped[field]:
            problems.append("%s: shipped %s, registry now %s"
                            % (field, shipped[field], fresh[field]))
    new = {c["id"]: c for c in fresh["cases"]}
    old = {c["id"]: c for c in shipped["cases"]}
    for cid in sorted(set(new) - set(old)):
        problems.append("%s: not in the shipped goldens" % cid)
    for cid in sorted(set(old) - set(new)):
        problems.append("%s: shipped, but no longer generated" % cid)
    loaded = {}

    def arrays(golden_dir, name):
        if (golden_dir, name) not in loaded:
            loaded[golden_dir, name] = read_npz(os.path.join(golden_dir, name))
        return loaded[golden_dir, name]

    for cid in sorted(set(new) & set(old)):
        if new[cid] != old[cid]:
            problems.append("%s: index entry changed" % cid)
            continue
        a, b = arrays(fresh_dir, new[cid]["file"]), arrays(shipped_dir, old[cid]["file"])
        key = new[cid]["key"]
        for k in sorted(k for k in a if k.split("/")[0].split("@")[0] == key):
            if k not in b or a[k].shape != b[k].shape or a[k].dtype != b[k].dtype:
                problems.append("%s: array %s changed shape or dtype" % (cid, k))
            elif not _same_values(a[k], b[k], k.split("/")[1] in ("in", "cot"), new[cid]):
                problems.append("%s: array %s changed" % (cid, k))
    return problems


def _same_values(a, b, exact, case):
    if exact or not np.issubdtype(a.dtype, np.floating):
        return np.array_equal(a, b, equal_nan=True)  # NaN inputs (isnan samples) are data
    return np.allclose(a, b, rtol=case["rtol"], atol=case["atol"], equal_nan=True)
