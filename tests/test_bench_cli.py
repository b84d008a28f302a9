"""`python -m refimpl bench`: one JSON line per workload with the step time and op count,
the profile's per-op-type kernel times, then the table (timings themselves are not
asserted: speed is measured, not tested)."""
import json

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
