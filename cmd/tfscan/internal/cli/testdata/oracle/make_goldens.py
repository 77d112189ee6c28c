#!/usr/bin/python3
# Builds the oracle goldens for run_model_test.go from TF.js oracle runs.
#
#   cp -r ../shared/oracle /tmp/oracle && (cd /tmp/oracle && npm ci)
#   for m in emotion meet mobilefacenet centernet; do
#     node /tmp/oracle/run_model.js --model ../shared/corpus/tfjs/$m --out /tmp/oout/$m --seed 1
#   done
#   cd cmd/tfscan/internal/cli/testdata/oracle && /usr/bin/python3 make_goldens.py /tmp/oout
#
# For each model it writes <model>.npz with, per oracle output (keyed by the
# output's tensor name as `tfscan run` keys it):
#   out/<name>          the output, when it has at most 16384 elements;
#   out/<name>.index    else flat indices of a fixed-stride sample (int64)
#   out/<name>.values   and the values there (with out/<name>.shape);
# and per input the first 512 values (in/<name>.head) to check that tfscan
# generates the oracle's inputs.
import json, sys, os
import numpy as np

src = sys.argv[1]
for m in sorted(os.listdir(src)):
    res = json.load(open(os.path.join(src, m, "result.json")))
    g = {}
    for o in res["outputs"]:
        a = np.load(os.path.join(src, m, o["npy"]))
        name = o["tensor"]
        if ":" not in name:
            name += ":0"
        if a.size <= 16384:
            g["out/" + name] = a
        else:
            stride = -(-a.size // 4096)
            idx = np.arange(0, a.size, stride, dtype=np.int64)
            g["out/" + name + ".index"] = idx
            g["out/" + name + ".values"] = a.reshape(-1)[idx]
            g["out/" + name + ".shape"] = np.array(a.shape, dtype=np.int64)
    for i in res["inputs"]:
        a = np.load(os.path.join(src, m, i["npy"]))
        g["in/" + i["name"] + ".head"] = a.reshape(-1)[:512]
        g["in/" + i["name"] + ".shape"] = np.array(a.shape, dtype=np.int64)
    np.savez_compressed(m + ".npz", **g)
    print(m, res["timings_ms"], sorted(g))
