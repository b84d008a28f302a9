"""BuildStrategy fusion passes, measured: step time and op count with every fusion off vs
on (alone, and with enable_inplace on both sides). Prints JSON.

    python bench/bench_fusion.py [mlp_deep lenet]
"""
import json
import sys

from bench_memory import compare
from refimpl.bench_cli import WORKLOADS

FUSIONS = {f: True for f in ("fuse_elewise_add_act_ops", "fuse_bn_act_ops",
                             "fuse_bn_add_act_ops", "fuse_relu_depthwise_conv",
                             "fuse_all_optimizer_ops")}


def main(names):
    for name in names or ["mlp_deep", "lenet"]:
        r = compare(name, {"unfused": {}, "fused": FUSIONS,
                           "unfused+inplace": dict(enable_inplace=True),
                           "fused+inplace": dict(FUSIONS, enable_inplace=True)})
        for base in ("", "+inplace"):
            r["speedup" + base] = round(r["unfused" + base]["ms_per_step"]
                                        / r["fused" + base]["ms_per_step"], 3)
        print(json.dumps({"workload": name, "fusion": r}))


if __name__ == "__main__":
    main([a for a in sys.argv[1:] if a in WORKLOADS])
