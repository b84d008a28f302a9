"""Which of Paddle 1.8.5's own unittest files are in refimpl's scope (specs/paddle18_scope.md).

    python tools/classify_paddle_tests.py DIR --check        # specs/paddle18_scope.tsv agrees
    python tools/classify_paddle_tests.py DIR --write [r.json p.json]   # regenerate it
    python tools/classify_paddle_tests.py DIR --summary      # counts per category

DIR is Paddle's python/paddle/fluid/tests/unittests of the v1.8.5 tag. Every test_*.py under
it (subfolders included) gets one row of the tsv: file, category, reason, and the results of
Paddle 1.8.5 and refimpl where the file was run. The category comes, in this order, from
  1. the run lists (specs/paddle18_tests.txt, specs/paddle18_dygraph_tests.txt,
     specs/paddle18_numpy1_tests.txt): listed-*;
  2. OUT_OF_SCOPE below: a file-name pattern per reason that refimpl does not cover;
  3. a file that calls no unittest.main runs no test as `python FILE`: out-no-tests;
  4. otherwise the file is in scope and not listed: its category and one-line root cause
     are written by hand in the tsv (HAND_CATEGORIES), and --write keeps them.
--write with result files (tools/run_paddle_tests.py --json, refimpl's then Paddle's) fills
the two result columns of the files they ran."""
import argparse
import csv
import fnmatch
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SPECS = os.path.join(os.path.dirname(HERE), "specs")
LISTS = {"listed-static": "paddle18_tests.txt", "listed-dygraph": "paddle18_dygraph_tests.txt",
         "listed-numpy1": "paddle18_numpy1_tests.txt"}   # the last: under numpy 1.x only
TSV = os.path.join(SPECS, "paddle18_scope.tsv")

# category -> (reason, file-name patterns relative to DIR). A pattern names what the file
# tests, checked against its imports and the ops it runs; the first match decides.
OUT_OF_SCOPE = {
    "out-distributed": (
        "parameter-server / DistributeTranspiler / fleet / pslib / collective (NCCL) "
        "training across processes or machines; refimpl's data parallelism is "
        "CompiledProgram and its own mpirun collective (specs/distributed.md)",
        ["test_dist_*", "test_fleet*", "test_communicator_*", "test_collective_*",
         "test_allgather.py", "test_allreduce.py", "test_broadcast.py",
         "test_reducescatter*.py", "test_listen_and_serv_op.py", "test_fl_listen_and_serv_op.py",
         "test_lookup_remote_table_op.py", "test_nce_remote_table_op.py",
         "test_recv_save_op.py", "test_checkpoint_notify_op.py", "test_downpoursgd.py",
         "test_boxps.py", "test_paddlebox_datafeed.py", "test_pipeline.py",
         "test_parallel_dygraph_*.py", "test_distributed_strategy.py", "test_desc_clone.py",
         "test_program_code.py", "test_transpiler_ops.py", "test_slice_var.py",
         "test_split_ids_op.py", "test_merge_ids_op.py", "test_ref_by_trainer_id_op.py",
         "test_fake_init_op.py", "test_lookup_sparse_table_op.py",
         "test_split_selected_rows_op.py", "test_trainer_desc.py", "test_dataset.py",
         "test_dataset_dataloader.py", "test_c_comm_init_all_op.py",
         "test_async_ssa_graph_executor_mnist.py", "test_dgc_*.py"]),
    "out-gpu-only": (
        "CUDA-only: the op, allocator or tool exists only in CUDA builds (cuDNN LSTM, "
        "sync_batch_norm, conv2d_fusion, fusion_group, the GPU memory limits, nvprof, fp16 "
        "dygraph); on the CPU the file checks nothing refimpl has",
        ["test_lstm_cudnn_op.py", "test_sync_batch_norm_op.py", "test_conv2d_fusion_op.py",
         "test_build_strategy_fusion_group_pass.py", "ir/test_ir_fusion_group_pass.py",
         "test_auto_growth_gpu_memory_limit.py", "test_naive_best_fit_gpu_memory_limit.py",
         "test_nvprof.py", "test_dygraph_mnist_fp16.py", "test_op_support_gpu.py",
         ]),
    "out-accelerator": (
        "MKL-DNN / TensorRT / nGraph kernels and the inference-analysis C++ API "
        "(AnalysisConfig, PaddleTensor, inference IR passes); refimpl has one CPU kernel "
        "set and no C++ predictor",
        ["mkldnn/*", "ir/inference/*", "test_inference_api.py"]),
    "out-fused-ops": (
        "fused CPU ops that 1.8's inference IR passes create (fusion_*, fused_*, "
        "attention_lstm, the ir/ fuse passes over core.Graph); no fluid layer builds them",
        ["test_fusion_*.py", "test_fused_emb_seq_pool_op.py",
         "test_fused_embedding_fc_lstm_op.py", "test_fused_fc_elementwise_layernorm_op.py",
         "test_fused_multihead_matmul_op.py", "test_attention_lstm_op.py", "ir/test_ir_*"]),
    "out-quantization": (
        "quantization / slim ops (fake_quantize, dequantize, lookup_table_dequant); "
        "refimpl has no quantization (fluid-surface exclusions, specs/fluid_misc.md)",
        ["test_fake_quantize_op.py", "test_fake_dequantize_op.py",
         "test_dequantize_abs_max_op.py", "test_dequantize_log_op.py",
         "test_lookup_table_dequant_op.py"]),
    "out-search-ops": (
        "search / recommendation ops of Baidu's internal models, excluded from refimpl's "
        "fluid surface (tests/test_fluid_surface.py)",
        ["test_pyramid_hash_op.py", "test_var_conv_2d.py", "test_tdm_child_op.py",
         "test_tdm_sampler_op.py"]),
    "out-dygraph-to-static": (
        "1.8's dygraph-to-static source rewriting (AST transformers, ProgramTranslator "
        "caches, gast); refimpl runs @declarative functions as written "
        "(specs/fluid_dygraph.md#dygraph-to-static)",
        ["dygraph_to_static/*", "test_gast_with_compatibility.py", "test_run_program_op.py"]),
    "out-paddle-complex": (
        "1.8's paddle.complex / ComplexVariable (a pair of real Variables), excluded from "
        "the fluid surface; refimpl's complex values are complex64/128 tensors",
        ["test_complex_*.py"]),
    "out-internals": (
        "fluid.core / protobuf / pybind internals with no user meaning (OpDesc/ProgramDesc "
        "protobufs, op registry and proto makers, C++ IR Graph and pass builder, "
        "infer-shape and no-need-buffer inference, core.ops code generation, version "
        "stamps, the scipy import check, the default_scope_funcs scope stack)",
        ["test_protobuf.py", "test_protobuf_descs.py", "test_pybind_interface.py",
         "test_operator.py", "test_infer_shape.py", "test_infer_no_need_buffer_slots.py",
         "test_ir_graph.py", "test_pass_builder.py", "test_op_function_generator.py",
         "test_version.py", "test_check_import_scipy.py", "test_var_info.py",
         "test_default_scope_funcs.py", "test_set_bool_attr.py"]),
    "out-multiprocess-reader": (
        "1.8's multi-process DataLoader iterator internals (len(iter(loader)), _data_queue, "
        "_workers_done_event), which refimpl's worker pool (one pipe per worker) has no "
        "counterpart for; its worker behaviour is tested by the listed imperative files "
        "(specs/io_dataloader.md#loader-processes)",
        ["test_multiprocess_dataloader_exception.py"]),
}
NO_TESTS = ("out-no-tests", "calls no unittest.main, so `python FILE` runs no test (a base "
            "class or helper of other files)")
HAND_CATEGORIES = {
    "in-scope-fail": "in scope, fails on refimpl; the reason is the root cause",
    "in-scope-slow": "in scope, passes on refimpl but runs past the runner's 150 s here",
    "broken-on-1.8.5": "in scope, but fails on Paddle 1.8.5 itself here for a reason in "
                       "the file (a typo, a removed API), the same way on refimpl",
    "out-network": "downloads a data set (no network here); Paddle 1.8.5 fails it too",
    "out-no-cpu-checks": "runs, but checks nothing on a CPU-only build (its cases need "
                         "CUDA, or its TestCase has no test method)",
    "in-scope-not-run": "in scope, not run on refimpl this session (the shared 2-core "
                        "machine ran out of time); its result is unknown",
    "out-no-api-op": "tests an op that no fluid 1.8 layer, optimizer or metric builds "
                     "(only append_op reaches it); refimpl implements the ops of the API",
}
COLUMNS = ["file", "category", "reason", "paddle_1.8.5", "refimpl"]


def test_files(root):
    names = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.startswith("test_") and name.endswith(".py"):
                names.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(names)


def listed():
    """file -> listed-static / listed-dygraph / listed-numpy1, from the run lists."""
    out = {}
    for category, list_name in LISTS.items():
        with open(os.path.join(SPECS, list_name)) as f:
            for line in f:
                name = line.split("#")[0].strip()
                if name:
                    out[name.split()[0]] = category
    return out


def rule_category(root, name):
    """(category, reason) from the patterns and unittest.main, or None: decided by hand."""
    for category, (reason, patterns) in OUT_OF_SCOPE.items():
        if any(fnmatch.fnmatch(name, p) for p in patterns):
            return category, reason
    with open(os.path.join(root, name), errors="replace") as f:
        if "unittest.main" not in f.read():
            return NO_TESTS
    return None


def read_tsv(path=TSV):
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f, delimiter="\t") if r and not r[0].startswith("#")]
    return {r[0]: dict(zip(COLUMNS, r)) for r in rows[1:]}


def _result(r):
    if r is None:
        return ""
    if r["passed"]:
        return "pass"
    return "timeout" if r["status"] == "timeout" else "fail"


def classify(root, old, refimpl_runs=(), paddle_runs=()):
    """The rows: rules first; hand rows (and results) kept from `old`."""
    lists = listed()
    ours, theirs = {}, {}
    for runs, into in ((refimpl_runs, ours), (paddle_runs, theirs)):
        for path in runs:
            with open(path) as f:
                for r in json.load(f):
                    into[r["file"].split("unittests/")[-1]] = r
    rows = []
    for name in test_files(root):
        prev = old.get(name, {})
        row = {"file": name, "paddle_1.8.5": _result(theirs.get(name)) or
               prev.get("paddle_1.8.5", ""),
               "refimpl": _result(ours.get(name)) or prev.get("refimpl", "")}
        decided = rule_category(root, name)
        if name in lists:
            row.update(category=lists[name], reason="")
        elif decided:
            row.update(category=decided[0], reason=decided[1])
            row["paddle_1.8.5"] = row["refimpl"] = ""
        elif prev.get("category") in HAND_CATEGORIES:
            row.update(category=prev["category"], reason=prev["reason"])
        else:
            row.update(category="unclassified", reason="")
        rows.append(row)
    return rows


def check(root, rows_in_tsv):
    """Problems: files missing or extra, listed rows that are not in the lists, rule rows
    that disagree with the rules, hand rows without a reason."""
    expected = {r["file"]: r for r in classify(root, rows_in_tsv)}
    problems = []
    for name in sorted(set(expected) ^ set(rows_in_tsv)):
        problems.append("%s: %s" % (name, "not in the tsv" if name in expected
                                    else "in the tsv, not in DIR"))
    for name, want in expected.items():
        got = rows_in_tsv.get(name)
        if got is None:
            continue
        if (got["category"], got["reason"]) != (want["category"], want["reason"]):
            problems.append("%s: the tsv says %s, the rules and lists say %s"
                            % (name, got["category"], want["category"]))
        if want["category"] == "unclassified":
            problems.append("%s: in scope, not listed, and no hand category" % name)
        elif want["category"] in HAND_CATEGORIES and not want["reason"].strip():
            problems.append("%s: %s needs a one-line reason" % (name, want["category"]))
    return problems


def write_tsv(rows, path=TSV):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        f.write("# Paddle 1.8.5's unittest files and refimpl's scope: written by "
                "tools/classify_paddle_tests.py (specs/paddle18_scope.md); results are "
                "pass / fail / timeout with tools/run_paddle_tests.py --timeout 150\n")
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([r[c] for c in COLUMNS])
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def summary(rows):
    counts = {}
    for r in rows:
        counts[r["category"]] = counts.get(r["category"], 0) + 1
    lines = ["%-26s %d" % (c, n) for c, n in sorted(counts.items(), key=lambda kv: -kv[1])]
    in_scope = [r for r in rows
                if r["category"].startswith(("listed", "in-scope", "broken-on"))]
    lines.append("%-26s %d of %d files" % ("in scope", len(in_scope), len(rows)))
    for who in ("paddle_1.8.5", "refimpl"):
        ran = [r for r in in_scope if r[who]]
        lines.append("  %-24s passes %d of the %d it ran" % (
            who, sum(r[who] == "pass" for r in ran), len(ran)))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="Paddle 1.8.5's python/paddle/fluid/tests/unittests")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write", nargs="*", metavar="RESULTS.json",
                    help="rewrite the tsv; optional refimpl then Paddle result files")
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--tsv", default=TSV)
    args = ap.parse_args(argv)
    old = read_tsv(args.tsv)
    if args.write is not None:
        if len(args.write) % 2:
            ap.error("--write takes result files in pairs: refimpl's, then Paddle's")
        rows = classify(args.dir, old, args.write[0::2], args.write[1::2])
        write_tsv(rows, args.tsv)
        old = read_tsv(args.tsv)
    if args.summary:
        print(summary(list(old.values())))
    if args.check:
        problems = check(args.dir, old)
        for p in problems:
            print(p)
        print("%d files, %d problems" % (len(old), len(problems)))
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
