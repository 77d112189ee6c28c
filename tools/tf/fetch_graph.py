"""TensorFlow runs a GraphDef and writes the tensors asked for.

    fetch_graph.py GRAPH.pb INPUTS.npz FEEDS.json FETCHES.json -o OUT.npz
                   [--as float32|float16|bfloat16 [--write-graph AS.pb]]

--as turns a mixed-precision graph (Keras's mixed_float16: float32 weights
cast to float16, float16 compute, a float32 Cast before the last layer)
into the same model under one dtype policy: every Cast to a float type
casts to that dtype, and every node whose T is a float type takes the
dtype of its first input, so all compute runs in that dtype (float32: the
model's float32 twin; float16, bfloat16: Keras's "float16" and "bfloat16"
policies, on TensorFlow's own float16 and bfloat16 CPU kernels). Weights,
inputs and FusedBatchNorm's statistics (U) stay float32. --write-graph
writes the converted GraphDef.

FEEDS.json maps each key of INPUTS.npz to the tensor it feeds ("x:0");
FETCHES.json lists tensor names. The graph runs once in a
tf.compat.v1.Session on TensorFlow's own CPU kernels (a float16 node on its
float16 kernel), and OUT.npz holds each fetched tensor under its name
(bfloat16 ones as float32, exactly).
Exit codes: 0 written, 1 TensorFlow refused (its message on stderr).
"""

import argparse
import json
import sys

import numpy as np


def convert(gd, to):
    """Puts every float computation of gd in dtype to (see --as)."""
    from tensorflow.core.framework import types_pb2
    floats = {types_pb2.DT_FLOAT, types_pb2.DT_HALF, types_pb2.DT_BFLOAT16}
    nodes = {n.name: n for n in gd.node}
    out = {}

    def dtype_of(name):
        src = name.lstrip("^").split(":")[0]
        if src not in out:
            visit(nodes[src])
        return out[src]

    def visit(n):
        if n.name in out:
            return
        out[n.name] = None
        if n.op == "Cast":
            n.attr["SrcT"].type = dtype_of(n.input[0])
            if n.attr["DstT"].type in floats:
                n.attr["DstT"].type = to
            out[n.name] = n.attr["DstT"].type
        elif "T" in n.attr and n.attr["T"].type in floats and n.input:
            n.attr["T"].type = dtype_of(n.input[0])
            out[n.name] = n.attr["T"].type
        elif "dtype" in n.attr:
            out[n.name] = n.attr["dtype"].type
        elif "T" in n.attr:
            out[n.name] = n.attr["T"].type
        for i in n.input:
            dtype_of(i)

    for n in gd.node:
        visit(n)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("graph")
    p.add_argument("inputs")
    p.add_argument("feeds")
    p.add_argument("fetches")
    p.add_argument("-o", required=True)
    p.add_argument("--as", dest="as_", choices=["float32", "float16", "bfloat16"])
    p.add_argument("--write-graph")
    a = p.parse_args()
    import tensorflow as tf
    gd = tf.compat.v1.GraphDef()
    with open(a.graph, "rb") as f:
        gd.ParseFromString(f.read())
    if a.as_:
        convert(gd, tf.as_dtype(a.as_).as_datatype_enum)
        if a.write_graph:
            with open(a.write_graph, "wb") as f:
                f.write(gd.SerializeToString())
    with open(a.feeds) as f:
        feeds = json.load(f)
    with open(a.fetches) as f:
        fetches = json.load(f)
    inputs = dict(np.load(a.inputs, allow_pickle=False))
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
    try:
        with tf.compat.v1.Session(graph=g) as s:
            vals = s.run(fetches, {feeds[k]: v for k, v in inputs.items()})
    except tf.errors.OpError as e:
        print("fetch_graph.py: %s" % e.message.splitlines()[0], file=sys.stderr)
        sys.exit(1)
    # bfloat16 as float32 (exact): NumPy's .npy has no bfloat16
    out = {}
    for k, v in zip(fetches, vals):
        if v.dtype == tf.bfloat16.as_numpy_dtype:
            v = v.astype(np.float32)
        out[k] = v
    np.savez(a.o, **out)


if __name__ == "__main__":
    main()
