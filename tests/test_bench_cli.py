"""`python -m refimpl bench`: one JSON line per workload with the step time and op count,
the profile's per-op-type kernel times, then the table (timings themselves are not
asserted: speed is measured, not tested)."""
import json
import shutil

import pytest

from refimpl.bench_cli import main


def test_bench_prints_json_rows_profile_and_table(capsys):
    assert main(["mlp_small", "lenet", "--steps", "2", "--warmup", "1", "--profile"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [json.loads(line) for line in lines if line.startswith("{")]
    assert [r["workload"] for r in rows] == ["mlp_small", "lenet"]
    for row in rows:
        result = row["refimpl"]
        assert result["ms_per_step"] > 0 and result["ops"] > 20
        assert "mul" in result["kernel_ms_per_op_type"]
        assert "overhead_us_per_op" in result
    assert "conv2d_grad" in rows[1]["refimpl"]["kernel_ms_per_op_type"]
    assert any(line.startswith("lenet | ") for line in lines)


def test_timing_in_another_interpreter_reads_its_json():
    """--paddle-python's mechanism, driven with this interpreter and refimpl itself."""
    import sys
    from refimpl.bench_cli import time_in_subprocess
    result = time_in_subprocess(sys.executable, "mlp_small", 2, 1, "refimpl")
    assert result["ops"] == 27 and result["ms_per_step"] > 0


def test_dynamic_mode_bench_prints_eager_rows_profile_and_dispatch_cost(capsys):
    assert main(["mlp_small", "--mode", "dynamic", "--steps", "2", "--warmup", "1",
                 "--profile"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [json.loads(line) for line in lines if line.startswith("{")]
    row, dispatch = rows
    assert row["mode"] == "dynamic" and row["refimpl"]["ms_per_step"] > 0
    # 3 linears (matmul, add), 2 relus, the loss and its mean: 10; their grads; 6 sgd
    assert row["refimpl"]["ops"] == 26
    assert "matmul_v2_grad" in row["refimpl"]["kernel_ms_per_op_type"]
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
    assert any(line.startswith("lenet | ") for line in lines)


def test_data_parallel_bench_refuses_unknown_workloads_and_compare():
    with pytest.raises(SystemExit, match="unknown workload 'mlp_small'; expected one of "
                                         "lenet, resnet18"):
        main(["mlp_small", "--mode", "data-parallel"])
    with pytest.raises(SystemExit):
        main(["--mode", "data-parallel", "--compare", "torch"])
