"""TensorFlow runs a model and its `tfscan rewrite` output and compares them.

    rewrite_check.py JOBS.json -o RESULTS.json

JOBS.json is a list of jobs:

    {"name": str, "format": "saved_model" | "frozen" | "tfjs" | "graph",
     "original": path, "rewritten": path, "inputs": npz path,
     "signature": key (saved_model), "feeds": {key: tensor}, "fetches": {key: tensor}
     (frozen and graph: the GraphDef's tensors for the npz's keys and the outputs)}

Each job runs twice per input set: the zoo's inputs ("seeded") and the same
inputs with edge values written over their floats ("edge": NaN, +Inf, -Inf,
-0.0, the dtype's largest finite and smallest subnormal, in turn over the
elements, so that they reach the activations the rewrite unfused). A
SavedModel is loaded with tf.saved_model.load and called through its
signature, as a team serves it. A GraphDef (frozen, a TF.js graph model
rebuilt as a GraphDef with its weights as constants) runs in a
tf.compat.v1.Session twice: fetching the outputs only (what the deployed
graph computes, Grappler's fusions included) and fetching as well every
node both graphs have by name ("nodes": a rewrite keeps the name of the node
it replaces on the replacement's last node), so a difference is found where
it starts, not only where it reaches the outputs.

Floats compare bit for bit, any NaN equal to any NaN; other dtypes by value.
RESULTS.json is a list, per job, of {"name", "error", "runs": [{"inputs",
"fetch", "tensors", "identical", "differing", "max_ulp", "nan_mismatch",
"nonfinite", "first"}]}: tensors compared, how many are not bit-identical,
the largest distance in ULPs between finite values, how many values are NaN
in one and not the other, how many NaN or infinite
values the original's outputs hold (that edge values reached them), the
first difference. Exit codes: 0 written (differences are data), 2 usage.
"""

import argparse
import json
import os
import sys

import numpy as np


def edge_inputs(inputs):
    """The inputs with edge values over every float input, in turn."""
    out = {}
    changed = False
    for k, v in inputs.items():
        if v.dtype.kind != "f" or v.size == 0:
            out[k] = v
            continue
        fi = np.finfo(v.dtype)
        vals = np.array([np.nan, np.inf, -np.inf, -0.0, fi.max, fi.smallest_subnormal], dtype=v.dtype)
        e = v.copy().reshape(-1)
        # every third element keeps its value so finite paths stay
        idx = np.arange(e.size)
        sel = idx % 3 == 0
        e[sel] = vals[(idx[sel] // 3) % len(vals)]
        out[k] = e.reshape(v.shape)
        changed = True
    return out if changed else None


def ulps(fa, fb):
    """The largest distance in ULPs between the finite elements of two
    float arrays of one dtype (the count of representable values apart)."""
    if fa.dtype.kind != "f":
        return 0
    ok = np.isfinite(fa) & np.isfinite(fb)
    if not ok.any():
        return 0
    it = "i%d" % fa.dtype.itemsize

    def ordered(x):
        i = x[ok].view(it).astype(np.int64)
        return np.where(i < 0, -(i & np.int64(np.iinfo(it).max)), i)

    return int(np.max(np.abs(ordered(fa) - ordered(fb))))


def bits_equal(a, b):
    """(identical, differing elements, first difference)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False, -1, "dtype/shape %s%s vs %s%s" % (a.dtype, a.shape, b.dtype, b.shape)
    if a.dtype.kind in "fc":
        fa, fb = a.reshape(-1), b.reshape(-1)
        if a.dtype.kind == "c":
            fa = fa.view(np.float32 if a.dtype == np.complex64 else np.float64)
            fb = fb.view(np.float32 if a.dtype == np.complex64 else np.float64)
        na, nb = np.isnan(fa), np.isnan(fb)
        ua = fa.view("u%d" % fa.dtype.itemsize)
        ub = fb.view("u%d" % fb.dtype.itemsize)
        bad = ~((na & nb) | (~na & ~nb & (ua == ub)))
    elif a.dtype.kind in "OSU":
        bad = (a.reshape(-1) != b.reshape(-1))
        fa, fb = a.reshape(-1), b.reshape(-1)
    else:
        fa, fb = a.reshape(-1), b.reshape(-1)
        bad = fa != fb
    n = int(np.count_nonzero(bad))
    if n == 0:
        return True, 0, None
    i = int(np.argmax(bad))
    return False, n, "element %d: %r vs %r, %d ULP at most" % (i, fa[i].item(), fb[i].item(), ulps(fa, fb))


def nonfinite(vals):
    n = 0
    for v in vals:
        v = np.asarray(v)
        if v.dtype.kind == "f":
            n += int(np.count_nonzero(~np.isfinite(v)))
    return n


def tfjs_graph(path):
    """A TF.js graph model as a GraphDef with its weights as constants, and
    its signature's input and output tensors."""
    import tensorflow as tf
    from google.protobuf import json_format
    from tensorflow.core.framework import graph_pb2
    from tensorflow.python.framework import op_def_registry
    from tensorflowjs import read_weights

    with open(path) as f:
        model = json.load(f)
    gd = json_format.ParseDict(model["modelTopology"], graph_pb2.GraphDef(), ignore_unknown_fields=True)
    weights = {}
    for group in read_weights.read_weights(model["weightsManifest"], os.path.dirname(path), flatten=True):
        weights[group["name"]] = group["data"]
    for n in gd.node:
        # the TF.js converter's name for TensorFlow's _FusedDepthwiseConv2dNative
        if n.op == "FusedDepthwiseConv2dNative":
            n.op = "_FusedDepthwiseConv2dNative"
        op = op_def_registry.get(n.op)
        if op is not None:
            known = {a.name for a in op.attr}
            for a in list(n.attr):
                if a not in known and not a.startswith("_"):
                    del n.attr[a]
        if n.name in weights:
            dt = tf.dtypes.as_dtype(n.attr["dtype"].type).as_numpy_dtype
            n.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(np.asarray(weights[n.name]).astype(dt)))
    sig = model.get("signature") or {}
    feeds = {k: v["name"] for k, v in sig.get("inputs", {}).items()}
    fetches = {k: v["name"] for k, v in sig.get("outputs", {}).items()}
    return gd, feeds, fetches


def read_graph(path):
    import tensorflow as tf
    from google.protobuf import text_format
    gd = tf.compat.v1.GraphDef()
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".pbtxt"):
        text_format.Parse(data.decode(), gd)
    else:
        gd.ParseFromString(data)
    return gd


def tname(name):
    return name if ":" in name else name + ":0"


SKIP_OPS = {"Const", "Placeholder", "NoOp", "Enter", "Exit", "NextIteration", "Merge", "Switch",
            "LoopCond", "TensorArrayV3", "VarHandleOp", "HashTableV2", "Assert"}


def run_graph(gd, feeds, fetches, inputs, extra=(), remap=True):
    import tensorflow as tf
    from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
    keys = sorted(fetches)
    names = [tname(fetches[k]) for k in keys] + list(extra)
    cfg = config_pb2.ConfigProto()
    if not remap:
        cfg.graph_options.rewrite_options.remapping = rewriter_config_pb2.RewriterConfig.OFF
    with tf.compat.v1.Session(graph=g, config=cfg) as s:
        vals = s.run(names, {tname(feeds[k]): v for k, v in inputs.items()})
    return dict(zip(keys + list(extra), vals)), g


def node_tensors(g1, g2, skip):
    """The tensors of the nodes both graphs have with the same outputs."""
    out = []
    ops2 = {op.name: op for op in g2.get_operations()}
    for op in g1.get_operations():
        o2 = ops2.get(op.name)
        if o2 is None or op.type in SKIP_OPS or o2.type in SKIP_OPS or op.name in skip:
            continue
        if [t.dtype for t in op.outputs] != [t.dtype for t in o2.outputs]:
            continue
        # output 0 only: Grappler may rewrite a node whose other outputs
        # nothing reads (an inference FusedBatchNormV3 into an Add)
        if op.outputs and (op.outputs[0].dtype.is_floating or op.outputs[0].dtype.is_integer or op.outputs[0].dtype == "bool"):
            out.append(op.outputs[0].name)
    return sorted(out)


def run_saved_model(path, sig, inputs):
    import tensorflow as tf
    m = tf.saved_model.load(path)
    f = m.signatures[sig]
    res = f(**{k: tf.constant(v) for k, v in inputs.items()})
    return {k: v.numpy() for k, v in res.items()}


def compare(a, b, keys):
    r = {"tensors": len(keys), "identical": True, "differing": 0, "first": None, "max_ulp": 0, "nan_mismatch": 0}
    for k in keys:
        ok, n, first = bits_equal(a[k], b[k])
        if not ok:
            x, y = np.asarray(a[k]), np.asarray(b[k])
            if x.dtype == y.dtype and x.shape == y.shape and x.dtype.kind == "f":
                x, y = x.reshape(-1), y.reshape(-1)
                r["max_ulp"] = max(r["max_ulp"], ulps(x, y))
                r["nan_mismatch"] += int(np.count_nonzero(np.isnan(x) != np.isnan(y)))
            else:
                r["max_ulp"] = -1
            r["identical"] = False
            r["differing"] += 1
            if r["first"] is None:
                r["first"] = "%s: %s (%d elements)" % (k, first, n)
    return r


def run_job(job):
    inputs = dict(np.load(job["inputs"], allow_pickle=False))
    sets = [("seeded", inputs)]
    e = edge_inputs(inputs)
    if e is not None:
        sets.append(("edge", e))
    runs = []
    fmt = job["format"]
    if fmt == "saved_model":
        for name, ins in sets:
            a = run_saved_model(job["original"], job["signature"], ins)
            b = run_saved_model(job["rewritten"], job["signature"], ins)
            r = compare(a, b, sorted(a))
            r.update(inputs=name, fetch="outputs", nonfinite=nonfinite(a.values()))
            runs.append(r)
        return runs
    if fmt == "tfjs":
        g1, feeds, fetches = tfjs_graph(os.path.join(job["original"], "model.json"))
        g2, _, _ = tfjs_graph(os.path.join(job["rewritten"], "model.json"))
    else:
        g1, g2 = read_graph(job["original"]), read_graph(job["rewritten"])
        feeds, fetches = job["feeds"], job["fetches"]
    for name, ins in sets:
        a, ga = run_graph(g1, feeds, fetches, ins)
        b, gb = run_graph(g2, feeds, fetches, ins)
        keys = sorted(fetches)
        r = compare(a, b, keys)
        r.update(inputs=name, fetch="outputs", nonfinite=nonfinite(a[k] for k in keys))
        runs.append(r)
        a, _ = run_graph(g1, feeds, fetches, ins, remap=False)
        b, _ = run_graph(g2, feeds, fetches, ins, remap=False)
        r = compare(a, b, keys)
        r.update(inputs=name, fetch="outputs, remapper off", nonfinite=nonfinite(a[k] for k in keys))
        runs.append(r)
        skip = {tname(v).split(":")[0] for v in feeds.values()}
        extra = node_tensors(ga, gb, skip)
        a, _ = run_graph(g1, feeds, fetches, ins, extra)
        b, _ = run_graph(g2, feeds, fetches, ins, extra)
        r = compare(a, b, keys + extra)
        r.update(inputs=name, fetch="nodes", nonfinite=nonfinite(a[k] for k in extra))
        runs.append(r)
    return runs


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("jobs")
    p.add_argument("-o", required=True)
    a = p.parse_args()
    with open(a.jobs) as f:
        jobs = json.load(f)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    tf.config.threading.set_inter_op_parallelism_threads(1)
    out = []
    for job in jobs:
        res = {"name": job["name"], "error": None, "runs": []}
        try:
            res["runs"] = run_job(job)
        except Exception as e:  # TensorFlow's refusal is the result
            lines = [l for l in str(e).splitlines() if l.strip()] or [""]
            msg = lines[0] if len(lines) == 1 else lines[0] + " " + lines[-1]
            res["error"] = ("%s: %s" % (type(e).__name__, msg))[:400]
        out.append(res)
        print("rewrite_check: %s" % job["name"], file=sys.stderr)
    with open(a.o, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
