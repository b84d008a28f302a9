"""`python -m refimpl bench`: one JSON line per workload with the step time and op count,
the profile's per-op-type kernel times, then the table (timings themselves are not
asserted: speed is measured, not tested)."""
import inspect
import json
import shutil
import subprocess
import sys
import textwrap

import pytest

from refimpl import versions
from refimpl.bench_cli import main


def test_bench_prints_json_rows_profile_and_table(capsys):
    assert main(["mlp_small", "lenet", "--steps", "2", "--warmup", "1", "--profile",
                 "--no-memory"]) == 0
    lines = capsys.readouterr().out.splitlines()
    peak, *rows = [json.loads(line) for line in lines if line.startswith("{")]
    assert peak["gemm_peak_gflops"] > 0
    assert [r["workload"] for r in rows] == ["mlp_small", "lenet"]
    for row in rows:
        result = row["refimpl"]
        assert result["ms_per_step"] > 0 and result["ops"] > 20
        assert "mul" in result["kernel_ms_per_op_type"]
        assert "overhead_us_per_op" in result
    assert "conv2d_grad" in rows[1]["refimpl"]["kernel_ms_per_op_type"]
    assert any(line.startswith("lenet | ") for line in lines)
    # LeNet: conv 20x1x5x5 on 24x24, conv 50x20x5x5 on 8x8, fc 800-500, fc 500-10, batch 64
    forward = 2 * 64 * (20 * 24 * 24 * 25 + 50 * 8 * 8 * 500 + 800 * 500 + 500 * 10)
    assert rows[1]["gflop_per_step"] == round(3 * forward / 1e9, 3)


def test_steps_are_timed_in_wall_and_cpu_time():
    """A step that sleeps takes wall time and next to no CPU time; one that computes takes
    CPU time: the CPU column is what other jobs' load distorts least. (In a fresh
    interpreter: the CPU time is the process's, and threads other tests leave behind in
    this one would count.)"""
    code = textwrap.dedent("""
        import json, time
        from refimpl.bench_cli import time_steps
        def compute():  # on this thread alone (BLAS workers would spin on into the sleeps)
            sum(range(200000))
        print(json.dumps(time_steps({"sleeps": lambda: time.sleep(0.02), "computes": compute},
                                    steps=3, warmup=1, block=2, settle=0)))
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.splitlines()[-1])
    assert set(got) == {"sleeps", "computes"}
    assert got["sleeps"]["ms_per_step"] >= 20
    assert got["sleeps"]["cpu_ms_per_step"] < got["sleeps"]["ms_per_step"] / 4
    assert got["computes"]["cpu_ms_per_step"] > 0


def test_peak_rss_of_a_fresh_process_and_the_model_size_workloads_build():
    """Peak RSS is read in a fresh interpreter (not inherited from this one), and the
    ResNet-18 / Transformer / LSTM LM programs build and count their FLOPs."""
    from refimpl.bench_cli import _static_program, forward_flops, peak_rss_mb
    assert 20 < peak_rss_mb("mlp_small", "refimpl", steps=1) < 1000
    lm = _static_program("lstm_lm")
    assert [op.type for op in lm.global_block().ops].count("rnn") == 1
    # LSTM: 35 steps x 20 rows x (128 + 256 and 256 + 256 inputs) x 1024 gates; head 256-10k
    rows = 35 * 20
    assert forward_flops(lm, 20) == 2 * rows * (384 + 512) * 1024 + 2 * rows * 256 * 10000
    assert forward_flops(_static_program("resnet18"), 32) > 0.5e9 * 32
    assert forward_flops(_static_program("transformer"), 16) > 0


def test_timing_in_another_interpreter_reads_its_json():
    """--paddle-python's mechanism, driven with this interpreter and refimpl itself."""
    import sys
    from refimpl.bench_cli import time_in_subprocess
    result = time_in_subprocess(sys.executable, "mlp_small", 2, 1, "refimpl")
    assert result["ops"] == 27 and result["ms_per_step"] > 0


def test_a_failing_other_interpreter_is_an_error_in_its_row_not_the_end_of_the_bench(capsys):
    assert main(["mlp_small", "--compare", "paddle", "--paddle-python", "/bin/false",
                 "--steps", "2", "--warmup", "1", "--no-memory"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()
            if line.startswith("{")]
    row = next(r for r in rows if r.get("workload") == "mlp_small")
    assert row["refimpl"]["ms_per_step"] > 0
    assert row["paddle"]["error"].startswith("/bin/false -c ... failed")
    assert "ratio_refimpl_over_paddle" not in row


def test_dynamic_mode_bench_prints_eager_rows_profile_and_dispatch_cost(capsys):
    assert main(["mlp_small", "--mode", "dynamic", "--steps", "2", "--warmup", "1",
                 "--profile", "--no-memory"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [json.loads(line) for line in lines if line.startswith("{")]
    _, row, dispatch = rows
    assert row["mode"] == "dynamic" and row["refimpl"]["ms_per_step"] > 0
    assert row["refimpl"]["cpu_ms_per_step"] > 0
    # 3 linears (matmul, add), 2 relus, the loss and its mean: 10; their grads; 6 sgd
    assert row["refimpl"]["ops"] == 26
    # nn.Linear's product: matmul under 2.0, matmul_v2 under 3 (switch linear_op)
    assert versions.switch("linear_op") + "_grad" in row["refimpl"]["kernel_ms_per_op_type"]
    assert set(dispatch["eager_dispatch"]) == {"kernel_us", "dispatch_us",
                                               "dispatch_recording_us"}


@pytest.mark.mpi
@pytest.mark.skipif(shutil.which("mpirun") is None, reason="mpirun not found")
def test_data_parallel_bench_runs_one_process_and_mpirun_and_gives_their_ratios(capsys):
    assert main(["lenet", "--mode", "data-parallel", "--steps", "1", "--warmup", "0",
                 "--rounds", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    (row,) = [json.loads(line) for line in lines if line.startswith("{")]
    assert row["workload"] == "lenet" and row["global_batch"] == 128
    speeds = {k: row[k]["samples_per_s"] for k in
              ("processes_1", "processes_1_thread", "processes_2")}
    assert all(v > 0 for v in speeds.values())
    assert row["ratio_2_over_1"] == round(speeds["processes_2"] / speeds["processes_1"], 3)
    assert row["processes_1_thread"]["what"].startswith("1 process, %d thread"
                                                        % max(1, row["cores"] // 2))
    assert "buckets of 25 (the default) MB" in row["processes_2"]["what"]
    ranks = row["processes_2"]["last_round_ranks"]
    assert len(ranks) == 2
    for rank in ranks:
        for clock in ("ms", "cpu_ms"):
            phases = rank[clock]
            assert set(phases) == {"data", "forward", "backward", "optimizer", "bucket_fill",
                                   "hook_progress", "allreduce_wait", "step"}
            assert phases["bucket_fill"] > 0 and phases["forward"] > 0
            parts = sum(v for k, v in phases.items() if k != "step")
            assert abs(parts - phases["step"]) < 0.05     # the phases add up to the step
    assert row["processes_1"]["last_round_ranks"][0]["ms"]["bucket_fill"] == 0
    alone = row["processes_2_no_exchange"]        # the bound: two ranks, nothing exchanged
    assert [r["ms"]["bucket_fill"] for r in alone["last_round_ranks"]] == [0, 0]
    assert row["ratio_2_no_exchange_over_1_thread"] > 0
    assert any(line.startswith("lenet | ") for line in lines)


def test_data_parallel_bench_refuses_unknown_workloads_and_compare():
    with pytest.raises(SystemExit, match="unknown workload 'mlp_small'; expected one of "
                                         "lenet, resnet18"):
        main(["mlp_small", "--mode", "data-parallel"])
    with pytest.raises(SystemExit):
        main(["--mode", "data-parallel", "--compare", "torch"])
    for bad in (["--mode", "data-parallel", "--comm-buffer-size", "0"],
                ["--comm-buffer-size", "4"]):
        with pytest.raises(SystemExit):
            main(bad)


def test_dynamic_mode_bench_on_the_stand_in_gpu_trains_eager_layers_there(capsys, monkeypatch):
    """--mode dynamic --device gpu (tests/numpy_gpu.py standing in for CuPy): the model's
    parameters and data on the GPU, one JSON row per workload."""
    import numpy_gpu
    from refimpl.bench_cli import dynamic_stepper
    from refimpl.framework import place
    monkeypatch.setenv("REFIMPL_KERNELS", "numpy")
    with numpy_gpu.installed(1):
        step = dynamic_stepper("mlp_small", "gpu")
        assert place.current_place() == place.CPUPlace()     # set_device put back
        step()
        model = inspect.getclosurevars(step).nonlocals["model"]
        assert all(isinstance(p._value, numpy_gpu.ndarray) for p in model.parameters())
        assert main(["mlp_small", "--mode", "dynamic", "--device", "gpu", "--steps", "1",
                     "--warmup", "0", "--no-memory"]) == 0
        with pytest.raises(SystemExit):
            main(["mlp_small", "--mode", "dynamic", "--device", "gpu", "--profile"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()
            if line.startswith("{")]
    assert rows[1]["device"] == "gpu" and rows[1]["refimpl"]["ms_per_step"] > 0
