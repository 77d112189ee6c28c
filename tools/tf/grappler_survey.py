"""Which Grappler optimizers change a frozen model's float results.

    grappler_survey.py ZOO_DIR [MODEL ...] [--optimizers a,b,...]

For each model of the zoo folder (its frozen.pb, inputs.npz and meta.json),
runs the graph in a tf.compat.v1.Session on TensorFlow's CPU kernels with
Grappler's default pipeline, with the meta optimizer off, and with each
optimizer of RewriterConfig turned off alone, and prints one line per
configuration: "same bits" as the default, or how many output values
differ and by how many float32 ULPs at most. oneDNN is off
(TF_ENABLE_ONEDNN_OPTS=0, as the zoo is made). A model without a frozen
form is skipped; one that does not run is reported and skipped.
Exit code: 0.
"""

import argparse
import json
import os
import sys

import numpy as np

OPTIMIZERS = [
    "constant_folding", "arithmetic_optimization", "remapping", "layout_optimizer",
    "shape_optimization", "dependency_optimization", "loop_optimization",
    "function_optimization", "common_subgraph_elimination", "debug_stripper",
    "pin_to_host_optimization", "implementation_selector",
]


def ulps(a, b):
    a = np.asarray(a, np.float32).ravel().view(np.int32).astype(np.int64)
    b = np.asarray(b, np.float32).ravel().view(np.int32).astype(np.int64)
    a = np.where(a < 0, np.int64(-2**31) - a, a)
    b = np.where(b < 0, np.int64(-2**31) - b, b)
    return np.abs(a - b)


def run(tf, gd, feeds, fetches, off):
    from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2
    cfg = config_pb2.ConfigProto()
    ro = cfg.graph_options.rewrite_options
    if off == "all":
        ro.disable_meta_optimizer = True
    elif off:
        setattr(ro, off, rewriter_config_pb2.RewriterConfig.OFF)
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
    with tf.compat.v1.Session(graph=g, config=cfg) as s:
        return s.run(fetches, feeds)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("zoo")
    p.add_argument("models", nargs="*")
    p.add_argument("--optimizers", default=",".join(OPTIMIZERS))
    a = p.parse_args()
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    import tensorflow as tf
    models = a.models or sorted(d for d in os.listdir(a.zoo) if os.path.exists(os.path.join(a.zoo, d, "frozen.pb")))
    for m in models:
        d = os.path.join(a.zoo, m)
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        if "frozen_outputs" not in meta:
            continue  # the model has no frozen form
        gd = tf.compat.v1.GraphDef()
        with open(os.path.join(d, "frozen.pb"), "rb") as f:
            gd.ParseFromString(f.read())
        inputs = dict(np.load(os.path.join(d, "inputs.npz"), allow_pickle=False))
        feeds = {meta["frozen_inputs"][k]: v for k, v in inputs.items() if k in meta.get("frozen_inputs", {})}
        fetches = sorted(meta["frozen_outputs"].values())
        try:
            base = run(tf, gd, feeds, fetches, "")
        except Exception as e:  # noqa: BLE001 - report and go on
            print("%s: does not run: %s" % (m, str(e).splitlines()[0]), flush=True)
            continue
        for off in ["all"] + a.optimizers.split(","):
            got = run(tf, gd, feeds, fetches, off)
            n, tot, worst = 0, 0, 0
            for b, v in zip(base, got):
                b, v = np.asarray(b), np.asarray(v)
                if b.dtype.kind != "f":
                    continue
                diff = b.astype(np.float32).view(np.int32) != v.astype(np.float32).view(np.int32)
                diff &= ~(np.isnan(b) & np.isnan(v))
                tot += b.size
                if diff.any():
                    n += int(diff.sum())
                    worst = max(worst, int(ulps(b, v).max()))
            state = "same bits" if n == 0 else "%d of %d values differ, at most %d ULP" % (n, tot, worst)
            print("%s: %s off: %s" % (m, off, state), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
