"""Runs a saved inference model in real PaddlePaddle (1.8, 2.x or 3.x), for
`python -m refimpl check-model --paddle-python PY`. Executed by path in Paddle's own
interpreter (it imports only paddle and numpy, never refimpl):

    PY paddle_model_worker.py MODEL_FILE PARAMS INPUTS.npz OUTPUTS.npz [MODEL_FILE ...]

(several models: repeat the four arguments). PARAMS is the combined parameter file, or the
directory of one-file-per-variable parameters. INPUTS.npz holds one array per feed target (by name); OUTPUTS.npz gets the
fetch targets' values as out0, out1, ... and, as UTF-8 JSON in the uint8 array `names`,
the feed and fetch names and Paddle's version.
"""
import contextlib
import json
import os
import sys

import numpy as np


def _load_args(model_file, params):
    directory = os.path.dirname(os.path.abspath(model_file))
    params_name = None if os.path.isdir(params) else os.path.relpath(params, directory)
    return directory, os.path.basename(model_file), params_name


def run(model_file, params, inputs):
    """(feed names, fetch names, fetched values)."""
    import paddle
    directory, model_name, params_name = _load_args(model_file, params)
    if paddle.__version__.startswith("1."):
        import paddle.fluid as fluid
        exe = fluid.Executor(fluid.CPUPlace())
        context = contextlib.suppress()
        load = lambda: fluid.io.load_inference_model(directory, exe, model_name, params_name)
    else:
        paddle.enable_static()
        exe = paddle.static.Executor(paddle.CPUPlace())
        # Paddle 3 reads a ProgramDesc (not PIR json) only in its legacy IR mode
        legacy = hasattr(paddle, "pir_utils") and not model_file.endswith(".json")
        context = paddle.pir_utils.OldIrGuard() if legacy else contextlib.suppress()
        load = lambda: paddle.static.load_inference_model(
            directory, exe, model_filename=model_name, params_filename=params_name)
    with context:
        program, feeds, fetches = load()
        missing = [name for name in feeds if name not in inputs]
        if missing:
            raise SystemExit("paddle_model_worker: no input for feed targets %s" % missing)
        values = exe.run(program, feed={name: inputs[name] for name in feeds},
                         fetch_list=fetches)
    return list(feeds), [_name(f, i) for i, f in enumerate(fetches)], values


def _name(target, i):
    try:
        return target.name
    except ValueError:      # PIR values computed by ops have no name
        return "fetch_%d" % i


def main(model_file, params, inputs_path, outputs_path):
    import paddle
    inputs = dict(np.load(inputs_path))
    feeds, fetches, values = run(model_file, params, inputs)
    names = json.dumps({"feeds": feeds, "fetches": fetches, "paddle": paddle.__version__})
    np.savez(outputs_path, names=np.frombuffer(names.encode("utf-8"), dtype=np.uint8),
             **{"out%d" % i: np.asarray(v) for i, v in enumerate(values)})


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or len(args) % 4:
        raise SystemExit(__doc__)
    for i in range(0, len(args), 4):
        main(*args[i:i + 4])
