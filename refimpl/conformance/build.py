"""Run one golden case through an implementation's public paddle API.

An op case becomes a static Program: `static.data` per input, `block.create_var` per
output, `block.append_op(type, inputs, outputs, attrs)`, and for gradient cases
`static.gradients(outputs, inputs, target_gradients=cotangents)`, run by
`static.Executor(CPUPlace())`. Nothing refimpl-specific is used, so the same code scores
real PaddlePaddle (legacy static IR) or any third implementation.

In dynamic mode an op case runs on eager Tensors instead: `paddle.to_tensor` per input,
`LayerHelper(op).create_variable_for_type_inference` per output and
`LayerHelper(op).append_op(...)` (which runs the op at once in Paddle's dygraph, as in
refimpl's), gradients by `paddle.grad(outputs, inputs, grad_outputs=cotangents)`.
Scenarios run their dynamic variant (`scenarios.DYNAMIC`) or are skipped.
"""
import numpy as np

from .scenarios import DYNAMIC, SCENARIOS, MissingAPI, api, run_place
from .store import array_key

__all__ = ["run_case"]


def run_case(paddle, case, arrays, mode="static"):
    """{array key: actual ndarray} for `case` (an index entry) given its golden arrays."""
    if case["kind"] == "op":
        run = run_op_case_dynamic if mode == "dynamic" else run_op_case
        return run(paddle, case, arrays)
    return run_scenario_case(paddle, case, arrays, mode)


def run_scenario_case(paddle, case, arrays, mode="static"):
    key = case["key"]
    inputs = {name: arrays[array_key(key, "in", name)] for name in case["inputs"]}
    if mode == "dynamic":
        if case["scenario"] not in DYNAMIC:
            raise MissingAPI("%s is a static-program scenario (no dynamic-mode variant)"
                             % case["scenario"])
        results = DYNAMIC[case["scenario"]](paddle, inputs)
    else:
        results = SCENARIOS[case["scenario"]].run(paddle, inputs)
    return {array_key(key, "out", name): np.asarray(v) for name, v in results.items()}


def _data(paddle, name, array, feed, stop_gradient=True, lod=None):
    """A static.data variable fed `array`; with `lod` (recursive sequence lengths) it is
    declared with that many LoD levels and fed a LoDTensor carrying them."""
    feed[name] = _lod_tensor(paddle, array, lod) if lod else array
    var = api(paddle, "static.data")(name, list(array.shape), array.dtype.name,
                                     lod_level=len(lod) if lod else 0)
    # before any op reads it: Paddle marks an op's outputs stop_gradient at append_op
    # time when all its inputs are
    var.stop_gradient = stop_gradient
    return var


def _lod_tensor(paddle, array, lod):
    """`array` with recursive sequence lengths `lod`, as the module's create_lod_tensor
    makes it (fluid's in Paddle 1.x and refimpl, base's in Paddle 3.x)."""
    for path in ("fluid.create_lod_tensor", "base.create_lod_tensor"):
        try:
            create = api(paddle, path)
        except MissingAPI:
            continue
        return create(array, lod, run_place(paddle))
    raise MissingAPI("%s has no create_lod_tensor (fluid or base)" % paddle.__name__)


def _lods(case, role, slot):
    return case.get("lods", {}).get(role, {}).get(slot) or [None] * len(case[
        "inputs" if role == "in" else "outputs"][slot])


def run_op_case(paddle, case, arrays):
    key = case["key"]
    main, startup = api(paddle, "static.Program")(), api(paddle, "static.Program")()
    feed, fetch = {}, []     # fetch: (array key, variable)
    with api(paddle, "static.program_guard")(main, startup):
        block = main.global_block()
        differentiated = {(slot, j) for slot, specs in case["grads"].items()
                          for j, spec in enumerate(specs) if spec}
        in_vars = {slot: [_data(paddle, "in_%s_%d" % (slot, j),
                                arrays[array_key(key, "in", slot, j)], feed,
                                stop_gradient=(slot, j) not in differentiated, lod=lod)
                          for j, lod in enumerate(_lods(case, "in", slot))]
                   for slot, specs in case["inputs"].items()}
        out_vars = {}
        for slot, specs in case["outputs"].items():
            state = _updated_state(case, slot)
            out_vars[slot] = []
            for j, spec in enumerate(specs):
                dtype = spec.split("[")[0] if spec else None
                var = in_vars[state][j] if state else \
                    block.create_var(name="out_%s_%d" % (slot, j), dtype=dtype)
                out_vars[slot].append(var)
                if spec:
                    fetch.append((array_key(key, "out", slot, j), var))
        block.append_op(type=case["op"], inputs=in_vars, outputs=out_vars,
                        attrs=_dtype_attrs(paddle, case["attrs"]))
        if case["grads"]:
            fetch += _append_gradients(paddle, case, arrays, block, in_vars, out_vars, feed)
    exe = api(paddle, "static.Executor")(run_place(paddle))
    exe.run(startup)
    # return_numpy=False: Paddle refuses to convert outputs that carry LoD; the tensors'
    # data and (for the outputs) LoD are what the goldens hold
    values = exe.run(main, feed=feed, fetch_list=[var for _, var in fetch],
                     return_numpy=False)
    results = {k: np.array(v) for (k, _), v in zip(fetch, values)}
    for (k, _), v in zip(fetch, values):
        if k.split("/")[1] == "out":
            results[k.replace("/out/", "/lod/", 1)] = _lengths(v.lod())
    return results


def _lengths(offsets):
    """Recursive sequence lengths from a fetched tensor's lod() offsets (Paddle 3.x's
    DenseTensor has no recursive_sequence_lengths())."""
    return [[b - a for a, b in zip(level, level[1:])] for level in offsets]


def _layer_helper(paddle, op_type):
    for path in ("fluid.layer_helper.LayerHelper", "base.layer_helper.LayerHelper"):
        try:
            return api(paddle, path)(op_type)
        except MissingAPI:
            continue
    raise MissingAPI("%s has no LayerHelper (fluid.layer_helper or base.layer_helper)"
                     % paddle.__name__)


def run_op_case_dynamic(paddle, case, arrays):
    """The op case on eager Tensors (see the module doc)."""
    key = case["key"]
    if any(any(lods) for lods in case.get("lods", {}).get("in", {}).values()):
        raise MissingAPI("eager Tensors carry no LoD (the case feeds a LoDTensor)")
    to_tensor = api(paddle, "to_tensor")
    helper = _layer_helper(paddle, case["op"])
    differentiated = {(slot, j) for slot, specs in case["grads"].items()
                      for j, spec in enumerate(specs) if spec}
    in_tensors = {slot: [to_tensor(arrays[array_key(key, "in", slot, j)],
                                   stop_gradient=(slot, j) not in differentiated)
                         for j in range(len(specs))]
                  for slot, specs in case["inputs"].items()}
    out_tensors, fetch = {}, []
    for slot, specs in case["outputs"].items():
        state = _updated_state(case, slot)
        out_tensors[slot] = []
        for j, spec in enumerate(specs):
            dtype = spec.split("[")[0] if spec else "float32"
            t = in_tensors[state][j] if state else \
                helper.create_variable_for_type_inference(dtype)
            out_tensors[slot].append(t)
            if spec:
                fetch.append((array_key(key, "out", slot, j), t))
    helper.append_op(type=case["op"], inputs=in_tensors, outputs=out_tensors,
                     attrs=_dtype_attrs(paddle, case["attrs"]))
    results = {k: np.array(t.numpy()) for k, t in fetch}
    if case["grads"]:
        targets, cotangents = [], []
        for slot, specs in case["cotangents"].items():
            for j in range(len(specs)):
                out = out_tensors[slot][j]
                cot = arrays[array_key(key, "cot", slot, j)]
                targets.append(out)
                cotangents.append(to_tensor(cot.reshape(out.numpy().shape)
                                            if cot.size == out.numpy().size else cot))
        wanted = [(array_key(key, "grad", slot, j), in_tensors[slot][j])
                  for slot, specs in case["grads"].items()
                  for j, spec in enumerate(specs) if spec]
        grads = api(paddle, "grad")(targets, [t for _, t in wanted], cotangents,
                                    allow_unused=True)
        missing = [t.name for (_, t), g in zip(wanted, grads) if g is None]
        if missing:
            raise RuntimeError("%s: the backward pass produced no gradient for %s"
                               % (case["op"], ", ".join(missing)))
        results.update({k: np.array(g.numpy()) for (k, _), g in zip(wanted, grads)})
    return results


def _updated_state(case, out_slot):
    """The input slot that output `<In>Out` (or `out_<x>`, of input `in_<x>`) updates in
    place (optimizer states, batch_norm's running mean and variance, average_accumulates'
    sums and counters), or None. Programs always bind such an output to its input's
    variable, and Paddle's batch_norm, rmsprop and average_accumulates insist on it."""
    if out_slot.endswith("Out"):
        state = out_slot[:-len("Out")]
    elif out_slot.startswith("out_"):
        state = "in_" + out_slot[len("out_"):]
    else:
        return None
    return state if case["inputs"].get(state) == case["outputs"][out_slot] else None


def _dtype_attrs(paddle, attrs):
    """Goldens name dtypes ("float32"); Paddle's legacy ops want its VarType enum, which
    Paddle converts with base.framework.convert_np_dtype_to_dtype_. Other modules get
    the names unchanged."""
    try:
        convert = api(paddle, "base.framework.convert_np_dtype_to_dtype_")
    except Exception:
        return attrs
    return {k: convert(v) if k.endswith("dtype") and isinstance(v, str) else v
            for k, v in attrs.items()}


def _append_gradients(paddle, case, arrays, block, in_vars, out_vars, feed):
    """d(sum <out, cot>)/d(input) through the implementation's own backward pass."""
    key = case["key"]
    targets, cotangents = [], []
    for slot, specs in case["cotangents"].items():
        for j in range(len(specs)):
            out = out_vars[slot][j]
            cot = _shaped_like(arrays[array_key(key, "cot", slot, j)], out)
            name = "cot_%s_%d" % (slot, j)
            lod = _lods(case, "out", slot)[j]
            # a gradient carries its forward value's LoD, as in a program's backward
            feed[name] = _lod_tensor(paddle, cot, lod) if lod else cot
            # Paddle's gradients() wants the cotangent declared in the target's
            # compile-time shape, which may be partly unknown (-1) or, for some legacy
            # ops (expand, matmul_v2 batch broadcast), differ from the runtime shape;
            # create_var (unlike static.data) does not check the fed shape against it.
            targets.append(out)
            cotangents.append(block.create_var(name=name, shape=out.shape,
                                               dtype=cot.dtype.name, stop_gradient=True))
    wanted = [(array_key(key, "grad", slot, j), in_vars[slot][j])
              for slot, specs in case["grads"].items() for j, spec in enumerate(specs) if spec]
    grads = api(paddle, "static.gradients")(targets, [v for _, v in wanted],
                                            target_gradients=cotangents)
    missing = [v.name for (_, v), g in zip(wanted, grads) if g is None]
    if missing:
        raise RuntimeError("%s: the backward pass produced no gradient for %s"
                           % (case["op"], ", ".join(missing)))
    return [(k, g) for (k, _), g in zip(wanted, grads)]


def _shaped_like(cotangent, out_var):
    """The cotangent in the shape the implementation inferred for the output, when only
    the shape differs (e.g. a [1] vs 0-d result): the output's own comparison reports
    the shape, and the gradient is still checked."""
    shape = tuple(out_var.shape or ())
    if shape != cotangent.shape and all(d >= 0 for d in shape) and \
            int(np.prod(shape)) == cotangent.size:
        return cotangent.reshape(shape)
    return cotangent
