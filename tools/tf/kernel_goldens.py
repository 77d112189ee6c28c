"""TensorFlow's CPU kernels as goldens for tfscan's Go kernels.

    python kernel_goldens.py OUT_DIR

For every op of the sweep below, and every dtype of the sweep that
TensorFlow's CPU kernel takes, runs the op eagerly on the CPU over shapes
(scalars, empty tensors, broadcasting, odd sizes) and edge values (NaN,
±Inf, -0.0, subnormals, the integer extremes) and writes what it computes,
or the error it gives, to OUT_DIR/<family>.json.gz (kernels/testdata/tf/).

A case holds the op, its NodeDef's attrs as TensorFlow completes them
(serialized NodeDef, base64), its inputs and outputs as serialized
TensorProtos (base64), or TensorFlow's error message. A stateful,
resource or list op is a sequence case: its steps (the op with what
creates its resource or list and what reads its effect) run in one graph
and session, an input naming an earlier step's output ("@step:output") or
a file of the case ("@file:name"); the outputs are the last step's. A
dtype TensorFlow
has no CPU kernel for (NotFoundError) is left out; an input TensorFlow
refuses (InvalidArgumentError and kin) is an error case. Everything is
seeded; the files are byte-identical from run to run (gzip mtime 0).
"""

import base64
import gzip
import json
import os
import re
import sys
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

GENERATOR = "tools/tf/kernel_goldens.py"

F = [tf.float16, tf.bfloat16, tf.float32, tf.float64]
I = [tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16, tf.uint32, tf.uint64]
ALL = F + I + [tf.bool]


def np_dtype(dt):
    return dt.as_numpy_dtype


def edge_values(dt):
    """The edge values of a dtype, then seeded ordinary ones."""
    if dt.is_floating:
        tiny = {tf.float16: 6.103515625e-05, tf.bfloat16: 1.1754943508222875e-38,
                tf.float32: 1.1754943508222875e-38, tf.float64: 2.2250738585072014e-308}[dt]
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.75, 1e-3, -7.0, 100.0, -88.0, 20.0,
                float("nan"), float("inf"), float("-inf"),
                tiny, tiny / 4, -tiny / 2, float(dt.max), float(dt.min)]
        return vals
    if dt == tf.bool:
        return [False, True]
    ii = np.iinfo(np_dtype(dt))
    vals = [0, 1, 2, 7, 100, int(ii.max), int(ii.max) - 1, int(ii.min), int(ii.min) + 1]
    if ii.min < 0:
        vals += [-1, -2, -7, -100]
    return vals


def rand_values(dt, n, rng, lo=-3.0, hi=3.0):
    if dt.is_floating:
        return rng.uniform(lo, hi, n)
    if dt == tf.bool:
        return rng.randint(0, 2, n).astype(bool)
    ii = np.iinfo(np_dtype(dt))
    return rng.randint(max(ii.min, -50), min(ii.max, 50) + 1, n)


def tensor(vals, dt, shape=None):
    a = np.array(vals)
    if dt.is_floating:
        a = a.astype(np.float64)
    if shape is not None:
        a = a.reshape(shape)
    return tf.constant(a, dtype=dt) if not dt.is_floating else tf.cast(tf.constant(a, tf.float64), dt)


def proto_b64(t):
    if isinstance(t, tf.Tensor):
        p = tf.make_tensor_proto(t.numpy(), dtype=t.dtype)
    else:
        p = tf.make_tensor_proto(t)
    return base64.b64encode(p.SerializeToString()).decode()


# Outputs TensorFlow's CPU kernel allocates and never writes, or writes only
# in part (oneDNN's batch norm workspace), so that their bytes are whatever
# the allocator held: recorded as zeros, never compared.
UNWRITTEN = {"FusedBatchNormV3": (3, 4), "FusedBatchNorm": (3, 4), "FusedBatchNormV2": (3, 4),
             "_FusedBatchNormEx": (3, 4, 5)}


class Family:
    def __init__(self, name):
        self.name = name
        self.cases = []

    def case(self, op, inputs, attrs=None, label=""):
        """Runs one case; returns False when TF has no CPU kernel for it."""
        attrs = attrs or {}
        fn = getattr(tf.raw_ops, op)
        names = input_names(op)
        kw = dict(zip(names, inputs))
        kw.update(attrs)
        # The attrs TensorFlow completes: the op built in a graph.
        def placeholder(v):
            if isinstance(v, list):
                return [placeholder(x) for x in v]
            return tf.compat.v1.placeholder(v.dtype, v.shape) if isinstance(v, tf.Tensor) else v

        try:
            with tf.Graph().as_default():
                ph = {k: placeholder(v) for k, v in kw.items()}
                res = fn(**ph)
                node = flat_outputs(res)[0].op.node_def
        except (TypeError, ValueError) as e:
            if "no attr named" in str(e) or "unexpected keyword" in str(e):
                raise
            node = None  # shape functions refuse it: the eager run says how
        flat = [t for x in inputs for t in (x if isinstance(x, list) else [x])]
        c = {"op": op, "label": label, "inputs": [proto_b64(t) for t in flat]}
        try:
            with tf.device("/CPU:0"):
                out = fn(**kw)
        except tf.errors.NotFoundError:
            return False
        except tf.errors.OpError as e:
            msg = str(e.message if hasattr(e, "message") else e).split("\n")[0]
            if "Could not find device for node" in msg or "No registered" in msg:
                return False
            c["error"] = msg[:300]
            out = None
        if node is None:
            if "error" not in c:
                raise RuntimeError("%s: graph construction failed but eager ran" % op)
            nd = tf.compat.v1.NodeDef(op=op)
            for k, v in attrs.items():
                nd.attr[k].CopyFrom(attr_value(v))
            if flat and "T" in [a.name for a in op_def(op).attr]:
                nd.attr["T"].type = flat[0].dtype.as_datatype_enum
            node = nd
        n = tf.compat.v1.NodeDef(op=op)
        for k, v in node.attr.items():
            if not k.startswith("_"):
                n.attr[k].CopyFrom(v)
        c["attrs"] = base64.b64encode(n.SerializeToString(deterministic=True)).decode()
        if out is not None:
            outs = flat_outputs(out)
            for i in UNWRITTEN.get(op, ()):
                outs[i] = tf.zeros_like(outs[i])
            c["outputs"] = [proto_b64(o) for o in outs]
        self.cases.append(c)
        return True

    def seq(self, op, steps, label="", files=None):
        """Runs a sequence of ops in one graph and session (run_sequence):
        a stateful op with what creates its resource and what reads its
        effect."""
        c = run_sequence(op, steps, label, files or {})
        if c is not None:
            self.cases.append(c)
        return c is not None

    def write(self, out_dir):
        doc = {"tensorflow": tf.__version__, "generator": GENERATOR, "family": self.name, "cases": self.cases}
        raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
        path = os.path.join(out_dir, self.name + ".json.gz")
        with open(path, "wb") as fh:
            with gzip.GzipFile(filename="", mode="wb", fileobj=fh, mtime=0, compresslevel=9) as gz:
                gz.write(raw)


def flat_outputs(res):
    """An op's outputs in order: lists of outputs (ParseExample's) spliced."""
    if isinstance(res, (list, tuple)):
        return [t for x in res for t in flat_outputs(x)]
    return [res]


def attr_value(v):
    av = tf.compat.v1.AttrValue()
    if isinstance(v, bool):
        av.b = v
    elif isinstance(v, int):
        av.i = v
    elif isinstance(v, float):
        av.f = v
    elif isinstance(v, str):
        av.s = v.encode()
    elif isinstance(v, tf.DType):
        av.type = v.as_datatype_enum
    elif isinstance(v, (list, tuple)):
        if v and isinstance(v[0], tf.DType):
            av.list.type.extend(x.as_datatype_enum for x in v)
        elif v and isinstance(v[0], (list, tuple)):
            av.list.shape.extend(tf.TensorShape(x).as_proto() for x in v)
        elif v and isinstance(v[0], float):
            av.list.f.extend(v)
        elif v and isinstance(v[0], str):
            av.list.s.extend(x.encode() for x in v)
        else:
            av.list.i.extend(v)
    return av


_OPDEFS = {}


def op_def(op):
    if not _OPDEFS:
        from tensorflow.python.framework import op_def_registry

        _OPDEFS["get"] = op_def_registry.get
    return _OPDEFS["get"](op)


def input_names(op):
    """The raw op's keyword names of its inputs (the OpDef's, but Python
    renames a few: ExpandDims' dim is axis)."""
    import inspect

    params = list(inspect.signature(getattr(tf.raw_ops, op)).parameters)
    return params[: len(op_def(op).input_arg)]


# ---------------------------------------------------------------------------
# sequences: stateful and resource ops, lists and TensorArrays


class Out:
    """A step's input that is output `out` of step `step` (a handle, a
    reference variable, a list): recorded as "@step:out"."""

    def __init__(self, step, out=0):
        self.step, self.out = step, out


class File:
    """A scalar string input naming file `name` of the case's files
    (written to a temporary folder by the generator and by the Go test
    alike): recorded as "@file:name"."""

    def __init__(self, name):
        self.name = name


def step(op, *inputs, fetch=None, **attrs):
    """One op of a sequence; fetch picks the outputs the last step records
    (a list op's outputs other than the list)."""
    return {"op": op, "inputs": list(inputs), "attrs": attrs, "fetch": fetch}


def session_error(e):
    """The kernel's message of a session's error, without the lines that
    say where the graph was built and which node ran."""
    for line in str(e.message).split("\n"):
        if (line.strip() and not line.startswith(("\t", " ", "Graph execution error", "Detected at node",
                                                   "Node: ")) and "[[" not in line):
            return line
    return str(e.message).split("\n")[0]


def run_sequence(op, steps, label, files):
    """Builds the steps in one graph, each after the one before it (control
    dependencies), runs the last step's outputs in a session with Grappler
    off, and returns the case: the steps' ops, attrs (as TensorFlow
    completes them) and literal inputs, the last step's outputs or the
    error. files are the case's files by name: bytes the step makes (a
    vocabulary, a checkpoint) or a function that writes them into a folder
    it is given (returning nothing)."""
    import tempfile

    from tensorflow.core.protobuf import config_pb2, rewriter_config_pb2

    with tempfile.TemporaryDirectory() as tmp:
        for name, content in sorted(files.items()):
            if callable(content):
                content(tmp)
            else:
                with open(os.path.join(tmp, name), "wb") as fh:
                    fh.write(content)
        recorded_files = {}
        for name in sorted(os.listdir(tmp)):
            with open(os.path.join(tmp, name), "rb") as fh:
                recorded_files[name] = base64.b64encode(fh.read()).decode()
        g = tf.Graph()
        ops, rec_steps, err, feeds = [], [], None, {}

        def feed(v):
            # A placeholder of unknown shape: shape functions leave the
            # checks to the kernels, which give TensorFlow's runtime errors.
            ph = tf.compat.v1.placeholder(v.dtype, None)
            feeds[ph] = v.numpy()
            return ph

        with g.as_default(), tf.device("/CPU:0"):
            try:
                for st in steps:
                    names = input_names(st["op"])
                    kw, rec_in = {}, []
                    for name, v in zip(names, st["inputs"]):
                        if isinstance(v, Out):
                            o = ops[v.step]
                            kw[name] = o.outputs[v.out]
                            rec_in.append("@%d:%d" % (v.step, v.out))
                        elif isinstance(v, File):
                            kw[name] = tf.constant(os.path.join(tmp, v.name))
                            rec_in.append("@file:" + v.name)
                        elif isinstance(v, list):
                            kw[name] = [feed(x) for x in v]
                            rec_in.extend(proto_b64(x) for x in v)
                        else:
                            kw[name] = feed(v)
                            rec_in.append(proto_b64(v))
                    kw.update(st["attrs"])
                    with tf.control_dependencies(ops[-1:]):
                        res = getattr(tf.raw_ops, st["op"])(**kw)
                    if isinstance(res, tf.Operation):
                        o = res
                    elif isinstance(res, (list, tuple)):
                        o = res[0].op
                    else:
                        o = res.op
                    ops.append(o)
                    n = tf.compat.v1.NodeDef(op=st["op"], name=o.name)
                    for k, v in o.node_def.attr.items():
                        if not k.startswith("_"):
                            n.attr[k].CopyFrom(v)
                    rec_steps.append({"op": st["op"], "inputs": rec_in,
                                      "attrs": base64.b64encode(n.SerializeToString(deterministic=True)).decode()})
            except (TypeError, ValueError) as e:
                if "no attr named" in str(e) or "unexpected keyword" in str(e):
                    raise
                err = str(e).split("\n")[0]
            if err is None and len(rec_steps) == len(steps):
                cfg = config_pb2.ConfigProto(graph_options=config_pb2.GraphOptions(
                    rewrite_options=rewriter_config_pb2.RewriterConfig(disable_meta_optimizer=True)))
                last, pick = ops[-1], steps[-1]["fetch"]
                fetch = list(last.outputs) if last.outputs else last
                if pick is not None:
                    fetch = [last.outputs[i] for i in pick]
                with tf.compat.v1.Session(graph=g, config=cfg) as sess:
                    try:
                        out = sess.run(fetch, feed_dict=feeds)
                    except tf.errors.OpError as e:
                        err = session_error(e)
                        if "No OpKernel was registered" in err or "Could not find device" in err:
                            return None
                    except UnicodeDecodeError:
                        err = "(an error whose message is not UTF-8)"
        if err is not None:
            # The folder, and the process-wide counters TensorFlow names
            # TensorArrays and unshared tables with, vary from run to run.
            err = re.sub(r"TensorArrayV3_\d+", "TensorArrayV3", err.replace(tmp, "@dir"))
            err = re.sub(r"localhost/_\d+_", "localhost/_N_", err)
    if err is not None and len(rec_steps) < len(steps):
        return None  # graph construction refused a step before it: not a case of op
    c = {"op": op, "label": label, "steps": rec_steps, "inputs": [], "files": recorded_files}
    if steps[-1]["fetch"] is not None:
        c["fetch"] = steps[-1]["fetch"]
    under = [s for s in rec_steps if s["op"] == op]
    if not under:
        raise RuntimeError("%s: not among its steps" % op)
    c["attrs"] = under[0]["attrs"]
    c["inputs"] = [x for x in under[0]["inputs"] if not x.startswith("@")]
    if err is not None:
        c["error"] = err[:300]
    else:
        outs = out if isinstance(out, list) else ([] if out is None else [out])
        c["outputs"] = [proto_b64(np.asarray(o) if not isinstance(o, bytes) else np.array(o, dtype=object))
                        for o in outs]
    return c


# ---------------------------------------------------------------------------
# the sweep

UNARY = ["Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Cos", "Cosh", "Elu", "Erf", "Erfc",
         "Exp", "Expm1", "Floor", "Inv", "Invert", "IsFinite", "IsInf", "IsNan", "Log", "Log1p", "LogicalNot",
         "Neg", "Reciprocal", "Relu", "Relu6", "Rint", "Round", "Rsqrt", "Selu", "Sigmoid", "Sign", "Sin", "Sinh",
         "Softplus", "Softsign", "Sqrt", "Square", "Tan", "Tanh", "OnesLike", "ZerosLike"]

BINARY = ["Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "DivNoNan", "MulNoNan", "FloorDiv", "FloorMod", "Mod",
          "TruncateDiv", "TruncateMod", "Maximum", "Minimum", "Pow", "SquaredDifference", "Atan2", "Xdivy", "Xlogy",
          "Xlog1py", "Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd",
          "LogicalOr", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"]


def unary(fam, rng):
    for op in UNARY:
        for dt in ALL:
            ev = edge_values(dt)
            if not fam.case(op, [tensor(ev, dt)], label="edges"):
                continue
            fam.case(op, [tensor(rand_values(dt, 1, rng)[0], dt, ())], label="scalar")
            fam.case(op, [tensor([], dt, (0, 3))], label="empty")
            fam.case(op, [tensor(rand_values(dt, 67, rng), dt, (67,))], label="odd")
    for dt in F:
        for alpha in (0.2, -0.5):
            fam.case("LeakyRelu", [tensor(edge_values(dt), dt)], {"alpha": alpha}, label="edges")
        fam.case("LeakyRelu", [tensor(rand_values(dt, 67, rng), dt, (67,))], {"alpha": 0.1}, label="odd")


def binary(fam, rng):
    for op in BINARY:
        for dt in ALL:
            ev = edge_values(dt)
            n = len(ev)
            if not fam.case(op, [tensor(ev, dt, (n, 1)), tensor(ev, dt, (1, n))], label="edges broadcast"):
                continue
            r = rand_values(dt, 3 * 5 * 7, rng)
            fam.case(op, [tensor(r, dt, (3, 5, 7)), tensor(rand_values(dt, 7, rng), dt, (7,))], label="odd broadcast")
            fam.case(op, [tensor(rand_values(dt, 1, rng)[0], dt, ()), tensor(r, dt, (3, 5, 7))], label="scalar")
            fam.case(op, [tensor([], dt, (0, 3)), tensor(rand_values(dt, 3, rng), dt, (1, 3))], label="empty")
            fam.case(op, [tensor(r[:6], dt, (2, 3)), tensor(r[:6], dt, (3, 2))], label="incompatible")


CAST_TYPES = F + I + [tf.bool]


def cast(fam, rng):
    for src in CAST_TYPES:
        ev = edge_values(src)
        for dst in CAST_TYPES:
            fam.case("Cast", [tensor(ev, src)], {"DstT": dst}, label="edges")
            if src.is_floating:
                fam.case("Cast", [tensor(rand_values(src, 67, rng, -300, 300), src)], {"DstT": dst}, label="odd")
    # A float out of an integer's range (NaN included) converts by position
    # in x86 TensorFlow: saturated in the vectorised loop, wrapped in its
    # scalar remainder (kernels/cast_x86.go). Lengths that end in each loop
    # (all scalar; the epilogue; main, epilogue and remainder), every
    # out-of-range value at many positions.
    far = [float("nan"), float("inf"), float("-inf"), 300.0, -300.0, 70000.0, -70000.0, 3e9, -3e9, 1e10,
           -1e10, 1e20, -1e20, 65504.0, -65504.0, -1.0, 1.5e19, 40000.0, 200.5]
    for src in F:
        for dst in I:
            for n in (7, 13, 20, 45, 100):
                vals = [far[(i * 7) % len(far)] for i in range(n)]
                fam.case("Cast", [tensor(vals, src)], {"DstT": dst}, label="out of range, %d elements" % n)


REDUCE = ["Sum", "Prod", "Max", "Min", "Mean", "All", "Any", "EuclideanNorm"]


def reduce(fam, rng):
    for op in REDUCE:
        for dt in ALL:
            x = rand_values(dt, 3 * 5 * 7, rng)
            if dt.is_floating:
                x = x.astype(np.float64)
            if not fam.case(op, [tensor(x, dt, (3, 5, 7)), tf.constant([1])], {"keep_dims": False}, label="axis 1"):
                continue
            t = tensor(x, dt, (3, 5, 7))
            for axes, kd in (([], False), ([0], True), ([2], False), ([0, 2], False), ([-1], True), ([0, 1, 2], False)):
                fam.case(op, [t, tf.constant(axes, tf.int32)], {"keep_dims": kd}, label="axes %s" % axes)
            fam.case(op, [t, tf.constant(1, tf.int64)], {"keep_dims": False}, label="scalar axis int64")
            fam.case(op, [t, tf.constant([3])], {"keep_dims": False}, label="axis out of range")
            fam.case(op, [tensor([], dt, (0, 4)), tf.constant([0])], {"keep_dims": False}, label="empty")
            fam.case(op, [tensor(edge_values(dt), dt), tf.constant([0])], {"keep_dims": False}, label="edges")
    for op in ("ArgMax", "ArgMin"):
        for dt in ALL:
            x = tensor(rand_values(dt, 35, rng), dt, (5, 7))
            if not fam.case(op, [x, tf.constant(1)], label="axis 1"):
                continue
            fam.case(op, [x, tf.constant(0)], {"output_type": tf.int32}, label="axis 0")
            fam.case(op, [tensor(edge_values(dt), dt), tf.constant(0)], label="edges")
            fam.case(op, [x, tf.constant(2)], label="axis out of range")
    for op in ("Cumsum", "Cumprod"):
        for dt in ALL:
            x = tensor(rand_values(dt, 35, rng), dt, (5, 7))
            if not fam.case(op, [x, tf.constant(1)], label="axis 1"):
                continue
            for ex in (False, True):
                for rev in (False, True):
                    fam.case(op, [x, tf.constant(0)], {"exclusive": ex, "reverse": rev}, label="axis 0")
            fam.case(op, [tensor(edge_values(dt), dt), tf.constant(0)], label="edges")


def linalg(fam, rng):
    for dt in F + [tf.int32, tf.int64]:
        a = tensor(rand_values(dt, 15, rng), dt, (3, 5))
        b = tensor(rand_values(dt, 35, rng), dt, (5, 7))
        if not fam.case("MatMul", [a, b], label="3x5 5x7"):
            continue
        fam.case("MatMul", [tf.transpose(a), b], {"transpose_a": True}, label="ta")
        fam.case("MatMul", [a, tf.transpose(b)], {"transpose_b": True}, label="tb")
        big_a = tensor(rand_values(dt, 17 * 67, rng), dt, (17, 67))
        big_b = tensor(rand_values(dt, 67 * 33, rng), dt, (67, 33))
        fam.case("MatMul", [big_a, big_b], label="17x67 67x33")
        fam.case("MatMul", [tensor([], dt, (0, 5)), b], label="empty")
        fam.case("MatMul", [a, a], label="incompatible")
        if dt.is_floating:
            e = edge_values(dt)[:16]
            fam.case("MatMul", [tensor(e, dt, (4, 4)), tensor(e[::-1], dt, (4, 4))], label="edges")
        x = tensor(rand_values(dt, 2 * 3 * 4, rng), dt, (2, 1, 3, 4))
        y = tensor(rand_values(dt, 3 * 4 * 5, rng), dt, (3, 4, 5))
        fam.case("BatchMatMulV2", [x, y], label="broadcast")
        fam.case("BatchMatMulV2", [x, tensor(rand_values(dt, 3 * 5 * 4, rng), dt, (3, 5, 4))], {"adj_y": True},
                 label="adj_y")


def nn(fam, rng):
    for dt in F:
        x = tensor(rand_values(dt, 4 * 7, rng, -10, 10), dt, (4, 7))
        for op in ("Softmax", "LogSoftmax"):
            if not fam.case(op, [x], label="4x7"):
                continue
            fam.case(op, [tensor(edge_values(dt)[:16], dt, (4, 4))], label="edges")
            fam.case(op, [tensor([], dt, (0, 3))], label="empty")
        img = tensor(rand_values(dt, 2 * 7 * 7 * 3, rng), dt, (2, 7, 7, 3))
        fam.case("BiasAdd", [img, tensor(rand_values(dt, 3, rng), dt, (3,))], label="NHWC")
        fam.case("BiasAdd", [img, tensor(rand_values(dt, 4, rng), dt, (4,))], label="wrong bias")
        w = tensor(rand_values(dt, 3 * 3 * 3 * 4, rng, -1, 1), dt, (3, 3, 3, 4))
        for pad in ("SAME", "VALID"):
            for s in (1, 2):
                fam.case("Conv2D", [img, w], {"strides": [1, s, s, 1], "padding": pad}, label="%s s%d" % (pad, s))
        fam.case("Conv2D", [img, w], {"strides": [1, 1, 1, 1], "padding": "SAME", "dilations": [1, 2, 2, 1]},
                 label="dilated")
        dw = tensor(rand_values(dt, 3 * 3 * 3 * 2, rng, -1, 1), dt, (3, 3, 3, 2))
        for s in (1, 2):
            fam.case("DepthwiseConv2dNative", [img, dw], {"strides": [1, s, s, 1], "padding": "SAME"},
                     label="SAME s%d" % s)
        for op in ("MaxPool", "AvgPool"):
            for pad in ("SAME", "VALID"):
                fam.case(op, [img], {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": pad}, label=pad)
        sc = tensor(rng.uniform(0.5, 1.5, 3), tf.float32)
        of = tensor(rng.uniform(-1, 1, 3), tf.float32)
        mean = tensor(rng.uniform(-1, 1, 3), tf.float32)
        var = tensor(rng.uniform(0.5, 2, 3), tf.float32)
        fam.case("FusedBatchNormV3", [img, sc, of, mean, var], {"is_training": False, "epsilon": 0.001},
                 label="inference")
        if dt in (tf.float32, tf.float16, tf.bfloat16):
            fam.case("LRN", [img], {"depth_radius": 2, "bias": 1.0, "alpha": 0.1, "beta": 0.75}, label="r2")
    # Grouped Conv2D with one channel per group (filter [k, k, 1, C]): how
    # Keras exports DepthwiseConv2D (ConvNeXt). Its own generator keeps the
    # cases above as they are.
    grng = np.random.RandomState(zlib.crc32(b"nn grouped conv"))
    for dt in (tf.float32, tf.float16):
        gimg = tensor(rand_values(dt, 2 * 9 * 8 * 6, grng), dt, (2, 9, 8, 6))
        for k in (3, 7):
            gw = tensor(rand_values(dt, k * k * 6, grng, -1, 1), dt, (k, k, 1, 6))
            for pad in ("SAME", "VALID"):
                for s in (1, 2):
                    fam.case("Conv2D", [gimg, gw], {"strides": [1, s, s, 1], "padding": pad},
                             label="grouped %dx%d %s s%d" % (k, k, pad, s))
    return fam


def array(fam, rng):
    for dt in [tf.float32, tf.float16, tf.float64, tf.int32, tf.int64, tf.uint8, tf.bool]:
        x = tensor(rand_values(dt, 3 * 5 * 7, rng), dt, (3, 5, 7))
        fam.case("Transpose", [x, tf.constant([2, 0, 1])], label="perm")
        fam.case("Transpose", [x, tf.constant([0, 0, 1])], label="bad perm")
        fam.case("Reshape", [x, tf.constant([5, -1])], label="infer")
        fam.case("Reshape", [x, tf.constant([4, -1])], label="bad")
        fam.case("GatherV2", [x, tf.constant([2, 0, 2]), tf.constant(1)], label="axis 1")
        fam.case("GatherV2", [x, tf.constant([[1], [0]]), tf.constant(0)], {"batch_dims": 0}, label="2-D idx")
        fam.case("GatherV2", [x, tf.constant([5]), tf.constant(1)], label="out of range")
        fam.case("GatherNd", [x, tf.constant([[0, 1], [2, 4]])], label="pairs")
        fam.case("GatherNd", [x, tf.constant([[3, 0]])], label="out of range")
        fam.case("Pad", [x, tf.constant([[1, 0], [0, 2], [1, 1]])], label="pad")
        fam.case("PadV2", [x, tf.constant([[1, 0], [0, 2], [1, 1]]), tensor(edge_values(dt)[1], dt, ())],
                 label="pad value")
        fam.case("MirrorPad", [x, tf.constant([[1, 1], [2, 2], [0, 1]])], {"mode": "REFLECT"}, label="reflect")
        fam.case("MirrorPad", [x, tf.constant([[1, 1], [2, 2], [0, 1]])], {"mode": "SYMMETRIC"}, label="symmetric")
        fam.case("Slice", [x, tf.constant([1, 0, 2]), tf.constant([2, -1, 3])], label="slice")
        fam.case("Slice", [x, tf.constant([2, 0, 0]), tf.constant([2, 1, 1])], label="out of range")
        fam.case("StridedSlice", [x, tf.constant([0, 4, 1]), tf.constant([3, 0, 7]), tf.constant([2, -1, 3])],
                 label="strides")
        fam.case("StridedSlice", [x, tf.constant([1, 0]), tf.constant([2, 0]), tf.constant([1, 1])],
                 {"shrink_axis_mask": 1, "end_mask": 2, "new_axis_mask": 0}, label="masks")
        fam.case("Tile", [x, tf.constant([1, 2, 1])], label="tile")
        fam.case("ReverseV2", [x, tf.constant([0, 2])], label="axes")
        fam.case("Pack", [[x, x]], {"axis": 1}, label="axis 1")
        fam.case("ConcatV2", [[x, x], tf.constant(-1)], label="axis -1")
        fam.case("ExpandDims", [x, tf.constant(-1)], label="-1")
        fam.case("Squeeze", [tensor(rand_values(dt, 5, rng), dt, (1, 5, 1))], label="all")
        fam.case("Fill", [tf.constant([2, 3]), tensor(edge_values(dt)[-1], dt, ())], label="fill")
        fam.case("BroadcastTo", [tensor(rand_values(dt, 5, rng), dt, (5, 1)), tf.constant([2, 5, 3])], label="bcast")
        fam.case("Select", [tf.constant([True, False, True]), x, x[::-1]], label="vector cond")
        fam.case("SelectV2", [tf.constant([[[True]], [[False]], [[True]]]), x, x[::-1]], label="broadcast")
        fam.case("Unpack", [x], {"num": 5, "axis": 1}, label="axis 1")
        fam.case("Split", [tf.constant(1), tensor(rand_values(dt, 3 * 4, rng), dt, (3, 4))], {"num_split": 2},
                 label="2")
        fam.case("SplitV", [x, tf.constant([2, -1]), tf.constant(1)], {"num_split": 2}, label="sizes")
        if dt == tf.bool:
            fam.case("Where", [x], label="where")
        fam.case("OneHot", [tf.constant([0, 2, -1, 5]), tf.constant(3), tensor(edge_values(dt)[-1], dt, ()),
                            tensor(edge_values(dt)[0], dt, ())], label="depth 3")
    for dt in [tf.float32, tf.int32, tf.int64, tf.float64]:
        x = tensor(rand_values(dt, 35, rng), dt, (5, 7))
        fam.case("TopKV2", [x, tf.constant(3)], label="k3")
        fam.case("ClipByValue", [x, tensor(-1, dt, ()), tensor(1, dt, ())], label="clip")
        fam.case("Range", [tensor(1, dt, ()), tensor(11, dt, ()), tensor(3, dt, ())], label="range")
        fam.case("Bucketize", [x], {"boundaries": [-1.0, 0.0, 2.5]}, label="buckets")
        fam.case("Unique", [tensor([3, 1, 3, 2, 1], dt)], label="unique")
    fam.case("Range", [tf.constant(0.0), tf.constant(1.0), tf.constant(0.1)], label="float step")
    fam.case("LinSpace", [tf.constant(-1.0), tf.constant(2.0), tf.constant(7)], label="7")
    fam.case("InvertPermutation", [tf.constant([2, 0, 1])], label="perm")
    fam.case("InvertPermutation", [tf.constant([2, 0, 0])], label="not a permutation")
    fam.case("DepthToSpace", [tensor(rand_values(tf.float32, 2 * 2 * 3 * 8, rng), tf.float32, (2, 2, 3, 8))],
             {"block_size": 2}, label="b2")
    fam.case("SpaceToDepth", [tensor(rand_values(tf.float32, 2 * 4 * 6 * 3, rng), tf.float32, (2, 4, 6, 3))],
             {"block_size": 2}, label="b2")


def state(fam, rng):
    """Variables (resource and TF1 reference) and checkpoint restore."""
    for dt in [tf.float32, tf.float16, tf.bfloat16, tf.float64, tf.int32, tf.int64, tf.bool]:
        x = tensor(rand_values(dt, 6, rng), dt, (2, 3))
        y = tensor(rand_values(dt, 6, rng), dt, (2, 3))
        ev = tensor(edge_values(dt), dt)
        h = step("VarHandleOp", dtype=dt, shape=[2, 3])
        hu = step("VarHandleOp", dtype=dt, shape=None)
        read = step("ReadVariableOp", Out(0), dtype=dt)
        fam.seq("ReadVariableOp", [h, step("AssignVariableOp", Out(0), x), read], label="assigned")
        fam.seq("ReadVariableOp", [h, read], label="uninitialized")
        fam.seq("VarHandleOp", [step("VarHandleOp", dtype=dt, shape=[2, 3], shared_name="v"),
                                step("VarHandleOp", dtype=dt, shape=[2, 3], shared_name="v"),
                                step("AssignVariableOp", Out(0), x), step("ReadVariableOp", Out(1), dtype=dt)],
                label="shared_name")
        fam.seq("VarHandleOp", [step("VarHandleOp", dtype=dt, shape=[2, 3]), step("VarHandleOp", dtype=dt, shape=[2, 3]),
                                step("AssignVariableOp", Out(0), x), step("ReadVariableOp", Out(1), dtype=dt)],
                label="two handles, no shared_name")
        fam.seq("AssignVariableOp", [h, step("AssignVariableOp", Out(0), x), step("AssignVariableOp", Out(0), y),
                                     read], label="twice")
        fam.seq("AssignVariableOp", [hu, step("AssignVariableOp", Out(0), ev), read], label="edges")
        for vs in (False, True):
            fam.seq("AssignVariableOp", [hu, step("AssignVariableOp", Out(0), x),
                                         step("AssignVariableOp", Out(0), ev, validate_shape=vs), read],
                    label="other shape, validate_shape %s" % vs)
        other = tf.int32 if dt != tf.int32 else tf.int64
        fam.seq("AssignVariableOp", [h, step("AssignVariableOp", Out(0), tensor([1, 2], other))],
                label="wrong dtype")
        fam.seq("VarIsInitializedOp", [h, step("VarIsInitializedOp", Out(0))], label="fresh")
        fam.seq("VarIsInitializedOp", [h, step("AssignVariableOp", Out(0), x), step("VarIsInitializedOp", Out(0))],
                label="assigned")
        for ot in (tf.int32, tf.int64):
            fam.seq("VariableShape", [h, step("AssignVariableOp", Out(0), x), step("VariableShape", Out(0),
                                                                                   out_type=ot)], label="2x3")
        fam.seq("VariableShape", [h, step("VariableShape", Out(0))], label="uninitialized")
        fam.seq("DestroyResourceOp", [h, step("AssignVariableOp", Out(0), x), step("DestroyResourceOp", Out(0)),
                                      step("VarIsInitializedOp", Out(0))], label="then initialized?")
        fam.seq("DestroyResourceOp", [h, step("AssignVariableOp", Out(0), x), step("DestroyResourceOp", Out(0)),
                                      read], label="then read")
        fam.seq("DestroyResourceOp", [h, step("DestroyResourceOp", Out(0), ignore_lookup_error=False)],
                label="never created")
        fam.seq("DestroyResourceOp", [h, step("AssignVariableOp", Out(0), x), step("DestroyResourceOp", Out(0)),
                                      step("AssignVariableOp", Out(0), y), read], label="then assigned again")
        fam.seq("DestroyResourceOp", [h, step("AssignVariableOp", Out(0), x), step("DestroyResourceOp", Out(0)),
                                      step("AssignVariableOp", Out(0), y), step("VarIsInitializedOp", Out(0))],
                label="then assigned again, initialized?")
        fam.seq("DestroyResourceOp", [h, step("AssignVariableOp", Out(0), x), step("DestroyResourceOp", Out(0)),
                                      step("DestroyResourceOp", Out(0), ignore_lookup_error=False)], label="twice")
        fam.seq("DestroyResourceOp", [h, step("AssignVariableOp", Out(0), x), step("DestroyResourceOp", Out(0)),
                                      step("AssignVariableOp", Out(0), y), step("DestroyResourceOp", Out(0)),
                                      step("VarIsInitializedOp", Out(0))], label="assigned again, destroyed again")
        fam.seq("DestroyResourceOp", [h, step("DestroyResourceOp", Out(0), ignore_lookup_error=True)],
                label="never created, ignored")
        m = tensor(rand_values(dt, 15, rng), dt, (5, 3))
        hm = step("VarHandleOp", dtype=dt, shape=[5, 3])
        for idx, lab in (([2, 0, 4, 2], "rows"), ([[1], [3]], "2-D indices"), ([5], "out of range"),
                         ([-1], "negative")):
            fam.seq("ResourceGather", [hm, step("AssignVariableOp", Out(0), m),
                                       step("ResourceGather", Out(0), tf.constant(idx), dtype=dt)], label=lab)
        fam.seq("ResourceGather", [hm, step("ResourceGather", Out(0), tf.constant([0]), dtype=dt)],
                label="uninitialized")
        fam.seq("ResourceGather", [hm, step("AssignVariableOp", Out(0), m),
                                   step("ResourceGather", Out(0), tf.constant([[2, 0], [1, 1], [0, 2], [1, 0], [2, 2]],
                                                                              tf.int64), dtype=dt, batch_dims=1)],
                label="batch_dims 1")
        fam.seq("VariableV2", [step("VariableV2", shape=[2, 3], dtype=dt)], label="uninitialized")
        fam.seq("Variable", [step("Variable", shape=[2, 3], dtype=dt)], label="uninitialized")
        v2 = step("VariableV2", shape=[2, 3], dtype=dt)
        fam.seq("Assign", [v2, step("Assign", Out(0), x)], label="2x3")
        fam.seq("Assign", [v2, step("Assign", Out(0), x), step("Assign", Out(0), tensor(rand_values(dt, 3, rng), dt))],
                label="other shape")
        fam.seq("Assign", [v2, step("Assign", Out(0), x), step("Assign", Out(0), tensor(rand_values(dt, 3, rng), dt),
                                                                validate_shape=False)], label="other shape, unchecked")
        fam.seq("Variable", [step("Variable", shape=[2, 3], dtype=dt), step("Assign", Out(0), x)], label="assigned")
        fam.seq("IsVariableInitialized", [v2, step("IsVariableInitialized", Out(0))], label="fresh")
        fam.seq("IsVariableInitialized", [v2, step("Assign", Out(0), x), step("IsVariableInitialized", Out(0))],
                label="assigned")
        if dt == tf.bool:
            continue
        for op, rop in (("AssignAddVariableOp", "AssignAdd"), ("AssignSubVariableOp", "AssignSub")):
            fam.seq(op, [h, step("AssignVariableOp", Out(0), x), step(op, Out(0), y), read], label="2x3")
            fam.seq(op, [hu, step("AssignVariableOp", Out(0), ev), step(op, Out(0), ev[::-1]), read], label="edges")
            fam.seq(op, [h, step(op, Out(0), y), read], label="uninitialized")
            fam.seq(op, [h, step("AssignVariableOp", Out(0), x), step(op, Out(0), y[0]), read], label="other shape")
            fam.seq(rop, [v2, step("Assign", Out(0), x), step(rop, Out(0), y)], label="2x3")
            fam.seq(rop, [step("VariableV2", shape=[len(edge_values(dt))], dtype=dt), step("Assign", Out(0), ev),
                          step(rop, Out(0), ev[::-1])], label="edges")
            fam.seq(rop, [v2, step(rop, Out(0), y)], label="uninitialized")
            fam.seq(rop, [v2, step("Assign", Out(0), x), step(rop, Out(0), y[0])], label="other shape")

    saved = {"a": tensor(rand_values(tf.float32, 6, rng), tf.float32, (2, 3)),
             "b/kernel": tensor(rand_values(tf.float16, 4, rng), tf.float16, (4,)),
             "c": tensor(rand_values(tf.bfloat16, 3, rng), tf.bfloat16, (3, 1)),
             "d": tensor(rand_values(tf.int64, 5, rng), tf.int64, (5,)),
             "e": tf.constant([b"", "héllo".encode(), b"\xff\xfe"]),
             "f": tensor(edge_values(tf.float64), tf.float64),
             "g": tf.constant(True),
             "h": tensor([], tf.int32, (0, 2))}

    def checkpoint(d):
        keys = sorted(saved)
        tf.raw_ops.SaveV2(prefix=os.path.join(d, "ckpt"), tensor_names=keys, shape_and_slices=[""] * len(keys),
                          tensors=[saved[k] for k in keys])

    files = {"ckpt": checkpoint}
    for keys, lab in ((["a"], "one"), (sorted(saved), "all"), (["e", "a", "e"], "repeated"),
                      (["missing"], "missing key")):
        fam.seq("RestoreV2", [step("RestoreV2", File("ckpt"), tf.constant(keys), tf.constant([""] * len(keys)),
                                   dtypes=[saved[k].dtype if k in saved else tf.float32 for k in keys])],
                label=lab, files=files)
    fam.seq("RestoreV2", [step("RestoreV2", File("ckpt"), tf.constant(["a"]), tf.constant([""]),
                               dtypes=[tf.float64])], label="wrong dtype", files=files)
    fam.seq("RestoreV2", [step("RestoreV2", File("nothing"), tf.constant(["a"]), tf.constant([""]),
                               dtypes=[tf.float32])], label="no checkpoint", files=files)


def tables(fam, rng):
    """Hash tables: created, filled from tensors or a text file, looked up."""
    S = tf.string
    samples = {S: [b"", "héllo".encode(), b"\xff\xfe", b"a", b"b b", b"UNK"],
               tf.int64: [0, -1, 2 ** 40, 7, 3, -9], tf.int32: [0, -1, 2 ** 30, 7, 3, -9],
               tf.float32: [0.5, -0.0, float("nan"), 1e30, -2.0, 3.0], tf.float64: [0.5, -0.0, float("nan"), 1e300, -2.0, 3.0],
               tf.bool: [True, False, True, False, True, False]}

    def t(dt, vals):
        return tf.constant(vals, dtype=dt)

    for kd, vd in [(S, tf.int64), (S, tf.int32), (S, tf.float32), (S, tf.float64), (S, S), (S, tf.bool),
                   (tf.int64, S), (tf.int64, tf.int64), (tf.int64, tf.float32), (tf.int64, tf.float64),
                   (tf.int32, tf.int32), (tf.int32, S), (tf.int32, tf.float32), (tf.int64, tf.int32)]:
        keys, vals = samples[kd][:5], samples[vd][:5]
        query = t(kd, [samples[kd][4], samples[kd][5], samples[kd][0], samples[kd][2], samples[kd][2]])
        dflt = t(vd, samples[vd][5])
        lab = "%s→%s" % (kd.name, vd.name)
        for op in ("HashTableV2", "MutableHashTableV2"):
            init = "InitializeTableV2" if op == "HashTableV2" else "LookupTableImportV2"
            table = step(op, key_dtype=kd, value_dtype=vd)
            if not fam.seq(init, [table, step(init, Out(0), t(kd, keys), t(vd, vals)),
                                  step("LookupTableFindV2", Out(0), query, dflt)], label=lab):
                continue
            fam.seq(op, [table, step("LookupTableSizeV2", Out(0))], label=lab + " empty size")
            fam.seq("LookupTableFindV2", [table, step(init, Out(0), t(kd, keys), t(vd, vals)),
                                          step("LookupTableFindV2", Out(0), tf.reshape(
                                              tf.concat([query, query], 0), (2, 5)), dflt)], label=lab + " 2-D keys")
            fam.seq("LookupTableSizeV2", [table, step(init, Out(0), t(kd, keys), t(vd, vals)),
                                          step("LookupTableSizeV2", Out(0))], label=lab)
            fam.seq(init, [table, step(init, Out(0), t(kd, keys), t(vd, vals[:4]))], label=lab + " 5 keys, 4 values")
            fam.seq(init, [table, step(init, Out(0), t(kd, keys[:2] + keys[:1]), t(vd, vals[:3])),
                           step("LookupTableSizeV2", Out(0))], label=lab + " duplicate key")
            fam.seq(init, [table, step(init, Out(0), t(kd, keys[:3]), t(vd, vals[:3])),
                           step(init, Out(0), t(kd, keys[2:]), t(vd, vals[2:])),
                           step("LookupTableFindV2", Out(0), query, dflt)], label=lab + " twice")
            fam.seq("LookupTableFindV2", [table, step("LookupTableFindV2", Out(0), query, dflt)],
                    label=lab + " uninitialized")
            fam.seq("LookupTableFindV2", [table, step(init, Out(0), t(kd, keys), t(vd, vals)),
                                          step("LookupTableFindV2", Out(0), query, t(vd, vals[:2]))],
                    label=lab + " default of 2")
            fam.seq("LookupTableFindV2", [table, step(init, Out(0), t(kd, keys[:2]), t(vd, vals[:2])),
                                          step("LookupTableFindV2", Out(0), query, t(vd, vals[::-1]))],
                    label=lab + " a default per key")
    keys, vals = tf.constant([b"a", b"b"]), tf.constant([1, 2], tf.int64)
    for op, init in (("HashTableV2", "InitializeTableV2"), ("MutableHashTableV2", "LookupTableImportV2")):
        shared = step(op, key_dtype=S, value_dtype=tf.int64, shared_name="t")
        fam.seq(op, [shared, shared, step(init, Out(0), keys, vals),
                     step("LookupTableFindV2", Out(1), tf.constant([b"b", b"c"]), tf.constant(-1, tf.int64))],
                label="shared_name")
        fam.seq("DestroyResourceOp", [step(op, key_dtype=S, value_dtype=tf.int64), step(init, Out(0), keys, vals),
                                      step("DestroyResourceOp", Out(0)),
                                      step("LookupTableFindV2", Out(0), keys, tf.constant(-1, tf.int64))],
                label=op + " then find")
        fam.seq("DestroyResourceOp", [step(op, key_dtype=S, value_dtype=tf.int64), step(init, Out(0), keys, vals),
                                      step("DestroyResourceOp", Out(0)), step("LookupTableSizeV2", Out(0))],
                label=op + " then size")
    vocab = "héllo\t1\tfirst\nworld\t2\tsecond\nb b\t3\tthird\nUNK\t-4\tfourth\n".encode()
    files = {"vocab.txt": vocab, "bad.txt": b"a\t1\nb\tx\n", "blank.txt": b"a\n\nb\n",
             "invalid.txt": b"\xff\xfe\na\n", "dup.txt": b"a\t1\nb\t2\na\t3\n"}
    S = tf.string
    q = tf.constant(["héllo".encode(), b"world", b"b b", b"UNK", b"zzz", b""])
    for kd, vd, ki, vi, lab in [(S, tf.int64, -2, -1, "line → number"), (S, tf.int64, 0, 1, "column 0 → column 1"),
                                (S, S, 0, 2, "column 0 → column 2"), (S, tf.int32, 0, -1, "column 0 → number"),
                                (S, tf.float32, 0, 1, "column 0 → float"), (S, tf.float64, 0, 1, "column 0 → double"),
                                (tf.int64, S, 1, 0, "int column → string"), (tf.int64, S, -1, -2, "number → line")]:
        table = step("HashTableV2", key_dtype=kd, value_dtype=vd)
        query = q if kd == S else tf.constant([1, 2, 3, -4, 0, 9], tf.int64)
        dflt = tf.constant(b"?" if vd == S else 0, vd)
        for vs in (-1, 2):
            fam.seq("InitializeTableFromTextFileV2", [
                table, step("InitializeTableFromTextFileV2", Out(0), File("vocab.txt"), key_index=ki, value_index=vi,
                            vocab_size=vs),
                step("LookupTableFindV2", Out(0), query, dflt)], label="%s, vocab_size %d" % (lab, vs), files=files)
        fam.seq("InitializeTableFromTextFileV2", [
            table, step("InitializeTableFromTextFileV2", Out(0), File("vocab.txt"), key_index=ki, value_index=vi,
                        vocab_size=9), step("LookupTableSizeV2", Out(0))], label=lab + ", vocab_size 9", files=files)
    table = step("HashTableV2", key_dtype=S, value_dtype=tf.int64)
    for f, ki, vi, lab in (("vocab.txt", 5, -1, "no such column"), ("bad.txt", 0, 1, "not an integer"),
                           ("blank.txt", -2, -1, "empty line"), ("invalid.txt", -2, -1, "invalid UTF-8"),
                           ("missing.txt", -2, -1, "no file")):
        fam.seq("InitializeTableFromTextFileV2", [
            table, step("InitializeTableFromTextFileV2", Out(0), File(f), key_index=ki, value_index=vi),
            step("LookupTableFindV2", Out(0), tf.constant([b"a", b"b", b"\xff\xfe"]), tf.constant(-7, tf.int64))],
            label=lab, files=files)
    fam.seq("InitializeTableFromTextFileV2", [
        table, step("InitializeTableFromTextFileV2", Out(0), File("vocab.txt"), key_index=-2, value_index=-1,
                    offset=10, delimiter=" "),
        step("LookupTableFindV2", Out(0), tf.constant([b"b", b"UNK\t-4\tfourth"]), tf.constant(-7, tf.int64))],
        label="offset 10, delimiter ' '", files=files)
    t32 = step("HashTableV2", key_dtype=S, value_dtype=tf.int32)
    fam.seq("InitializeTableFromTextFileV2", [
        t32, step("InitializeTableFromTextFileV2", Out(0), File("vocab.txt"), key_index=0, value_index=1, offset=10),
        step("LookupTableFindV2", Out(0), q, tf.constant(-7, tf.int32))], label="int32 column, offset 10",
        files=files)
    for f, twice, lab in (("vocab.txt", True, "twice"), ("dup.txt", True, "twice, other size"),
                          ("dup.txt", False, "a key twice")):
        init = step("InitializeTableFromTextFileV2", Out(0), File(f), key_index=0, value_index=1)
        first = [step("InitializeTableFromTextFileV2", Out(0), File("vocab.txt"), key_index=0, value_index=1)]
        fam.seq("InitializeTableFromTextFileV2", [table] + (first if twice else []) + [
            init, step("LookupTableFindV2", Out(0), tf.concat([q, tf.constant([b"a", b"b"])], 0),
                       tf.constant(-7, tf.int64))], label=lab, files=files)


def strings(fam, rng):
    """String ops over Unicode, empty strings and invalid UTF-8."""
    words = [b"", b"a", "héllo".encode(), "日本語".encode(), b"\xff\xfe", b"ab\x00cd", b"Hello World",
             b"a" * 40, "e\u0301".encode(), b"\xc3", "😀x".encode()]
    W = tf.constant(words)
    for dt in F + I + [tf.bool]:
        ev = tensor(edge_values(dt), dt)
        if not fam.case("AsString", [ev], label="edges"):
            continue
        if dt.is_floating:
            for attrs, lab in (({"precision": 3}, "precision 3"), ({"scientific": True}, "scientific"),
                               ({"shortest": True}, "shortest"), ({"width": 12, "fill": "0"}, "width 12 fill 0"),
                               ({"precision": 2, "scientific": True, "width": 10}, "precision 2 scientific width 10"),
                               ({"scientific": True, "shortest": True}, "scientific and shortest")):
                fam.case("AsString", [ev], attrs, label=lab)
            fam.case("AsString", [tensor(rand_values(dt, 12, rng, -1e6, 1e6), dt, (3, 4))], label="3x4")
        elif dt != tf.bool:
            fam.case("AsString", [ev], {"width": 6, "fill": " "}, label="width 6")
            fam.case("AsString", [ev], {"width": 6, "fill": "0"}, label="width 6 fill 0")
            fam.case("AsString", [ev], {"precision": 2}, label="precision on an integer")
        fam.case("AsString", [tensor([], dt, (0, 2))], label="empty")
    for dt in C:
        fam.case("AsString", [complex_values(dt, rng)], label="edges")
    for pat in [".*", "h.*o", "[a-z]+", "\\w+", "(?i)hello world", "", ".", "\\p{Han}+", "a{40}", "ab\\x00cd",
                "\\xff\\xfe", "[", "(a"]:
        fam.case("StaticRegexFullMatch", [W], {"pattern": pat}, label=repr(pat))
        fam.case("RegexFullMatch", [W, tf.constant(pat)], label=repr(pat))
    fam.case("RegexFullMatch", [W, tf.constant([".*", "a"])], label="pattern vector")
    fam.case("StaticRegexFullMatch", [tf.constant([], tf.string)], {"pattern": "a"}, label="empty")
    w2 = tf.reshape(W[:10], (2, 5))
    fam.case("StringJoin", [[w2, w2[::-1]]], label="2x5")
    fam.case("StringJoin", [[w2, tf.constant("-"), w2]], {"separator": "|"}, label="scalar broadcast, separator")
    fam.case("StringJoin", [[tf.constant("a"), tf.constant("b")]], {"separator": "→"}, label="scalars")
    fam.case("StringJoin", [[w2, W[:3]]], label="mismatched shapes")
    fam.case("StringJoin", [[W]], label="one input")
    for unit in ("BYTE", "UTF8_CHAR"):
        fam.case("StringLength", [W], {"unit": unit}, label=unit)
        fam.case("StringLength", [w2], {"unit": unit}, label=unit + " 2x5")
    for op in ("StringToHashBucketFast", "StringToHashBucket"):
        for nb in (1, 7, 2 ** 31 - 1):
            fam.case(op, [W], {"num_buckets": nb}, label="%d buckets" % nb)
        fam.case(op, [W], {"num_buckets": 0}, label="0 buckets")
    for key in ([0, 0], [1, 2], [2 ** 63 - 1, 12345]):
        fam.case("StringToHashBucketStrong", [W], {"num_buckets": 1000, "key": key}, label="key %s" % key)
    fam.case("StringToHashBucketStrong", [W], {"num_buckets": 1000, "key": [1]}, label="key of 1")
    fam.case("StringToHashBucketFast", [tf.constant([], tf.string)], {"num_buckets": 5}, label="empty")
    long = tf.constant([b"Hello World", "héllo".encode(), "日本語".encode(), "😀x".encode()])
    for unit in ("BYTE", "UTF8_CHAR"):
        for pos, ln, lab in ((0, 2, "0 2"), (1, 100, "1 100"), (-2, 1, "-2 1"), (0, 0, "0 0"), (0, -1, "len -1")):
            fam.case("Substr", [long, tf.constant(pos), tf.constant(ln)], {"unit": unit}, label="%s %s" % (unit, lab))
        fam.case("Substr", [W, tf.constant(20), tf.constant(1)], {"unit": unit}, label=unit + " pos out of range")
        fam.case("Substr", [W, tf.constant(-20), tf.constant(1)], {"unit": unit}, label=unit + " pos -20")
        fam.case("Substr", [W[4:6], tf.constant(0), tf.constant(1)], {"unit": unit}, label=unit + " invalid UTF-8")
        fam.case("Substr", [W[8:], tf.constant(0), tf.constant(1)], {"unit": unit}, label=unit + " combining, emoji")
        fam.case("Substr", [long[:3], tf.constant([0, 1, 2]), tf.constant([1, 2, 3])], {"unit": unit},
                 label=unit + " vectors")
        fam.case("Substr", [tf.reshape(tf.concat([long, long], 0), (2, 4)), tf.constant([0, 1, 0, 1]), tf.constant(1)],
                 {"unit": unit},
                 label=unit + " broadcast pos")
        fam.case("Substr", [W[:3], tf.constant([0, 1]), tf.constant([1, 2])], {"unit": unit},
                 label=unit + " mismatched shapes")
        fam.case("Substr", [tf.reshape(tf.concat([long, long], 0), (2, 4)), tf.constant([0, 1, 0, 1]),
                            tf.constant([1, 2, 3, 4])], {"unit": unit}, label=unit + " broadcast input")
        fam.case("Substr", [long, tf.constant([[0], [1]]), tf.constant([[2], [1]])], {"unit": unit},
                 label=unit + " broadcast pos and len")
    fam.case("Substr", [long, tf.constant(1, tf.int64), tf.constant(2, tf.int64)], label="int64")
    example_cases(fam)


def example_cases(fam):
    ex = tf.train.Example
    F_ = tf.train.Feature

    def ser(**feats):
        return ex(features=tf.train.Features(feature=feats)).SerializeToString()

    def fl(*v):
        return F_(float_list=tf.train.FloatList(value=v))

    def il(*v):
        return F_(int64_list=tf.train.Int64List(value=v))

    def bl(*v):
        return F_(bytes_list=tf.train.BytesList(value=v))

    full = ser(f=fl(1.5, -2.0), i=il(7), s=bl("héllo".encode()), sp=il(3, 4, 5), ss=bl(b"\xff", b""))
    part = ser(f=fl(float("nan"), float("inf")), sp=il(), ss=bl(b"x"))
    empty = ser()
    wrong = ser(f=il(1, 2))
    short = ser(f=fl(1.0))

    def parse(batch, dense_keys, dense_defaults, dense_shapes, sparse_keys=(), sparse_types=(), names=None, label=""):
        b = tf.constant(batch)
        nm = tf.constant(names if names is not None else [], tf.string)
        fam.case("ParseExample", [b, nm, [tf.constant(k) for k in sparse_keys], [tf.constant(k) for k in dense_keys],
                                  list(dense_defaults)],
                 {"sparse_types": list(sparse_types), "dense_shapes": dense_shapes}, label=label)

    d_f, d_i, d_s = tf.constant([0.0, 0.0]), tf.constant([-1], tf.int64), tf.constant([b"?"])
    parse([full, part, empty], ["f", "i", "s"], [d_f, d_i, d_s], [[2], [1], [1]], ["sp", "ss"], [tf.int64, tf.string],
          label="dense with defaults, sparse")
    parse([full], ["f"], [tf.constant([], tf.float32)], [[2]], label="required, present")
    parse([full, empty], ["f"], [tf.constant([], tf.float32)], [[2]], label="required, missing")
    parse([wrong], ["f"], [d_f], [[2]], label="wrong type")
    parse([short], ["f"], [d_f], [[2]], label="wrong length")
    parse([b"\x0a\x03abc"], ["f"], [d_f], [[2]], label="not an Example")
    parse(tf.constant([], tf.string), ["f"], [d_f], [[2]], label="empty batch")
    parse([full, part], ["f"], [d_f], [[2]], names=["first", "second"], label="names")
    parse([full, full], [], [], [], ["sp"], [tf.int64], label="sparse only")
    parse([full], ["f"], [tf.constant([[0.0, 1.0]])], [[1, 2]], label="2-D dense")


def lists(fam, rng):
    """TensorLists (variants, values) and TensorArrays (resources)."""
    for dt in [tf.float32, tf.float16, tf.bfloat16, tf.float64, tf.int32, tf.int64, tf.bool, tf.string]:
        if dt == tf.string:
            x = tf.constant([[b"a", b""], ["é".encode(), b"\xff"], [b"c", b"d"]])
        else:
            x = tensor(rand_values(dt, 6, rng), dt, (3, 2))
        es = tf.constant([2])
        unk = tf.constant(-1)
        stack = step("TensorListStack", Out(0), es, element_dtype=dt)

        def last(st, i):
            st = dict(st)
            st["inputs"] = [Out(i)] + st["inputs"][1:]
            return st

        empty = step("EmptyTensorList", es, tf.constant(-1), element_dtype=dt)
        fam.seq("EmptyTensorList", [empty, last(stack, 0)], label="stacked")
        fam.seq("EmptyTensorList", [step("EmptyTensorList", unk, tf.constant(-1), element_dtype=dt),
                                    step("TensorListElementShape", Out(0), shape_type=tf.int32)], label="unknown rank")
        fam.seq("TensorListPushBack", [empty, step("TensorListPushBack", Out(0), x[0]),
                                       step("TensorListPushBack", Out(1), x[1]), last(stack, 2)], label="two")
        fam.seq("TensorListPushBack", [empty, step("TensorListPushBack", Out(0), x[:, 0])], label="wrong shape")
        fam.seq("TensorListPushBack", [step("EmptyTensorList", es, tf.constant(1), element_dtype=dt),
                                       step("TensorListPushBack", Out(0), x[0]),
                                       step("TensorListPushBack", Out(1), x[1])], label="beyond max_num_elements")
        ft = step("TensorListFromTensor", x, es)
        fam.seq("TensorListFromTensor", [ft, last(stack, 0)], label="stacked")
        fam.seq("TensorListFromTensor", [step("TensorListFromTensor", x, tf.constant([3]))], label="wrong shape")
        fam.seq("TensorListLength", [ft, step("TensorListLength", Out(0))], label="3")
        for i, lab in ((1, "1"), (3, "out of range"), (-1, "negative")):
            fam.seq("TensorListGetItem", [ft, step("TensorListGetItem", Out(0), tf.constant(i), es, element_dtype=dt)],
                    label=lab)
        pop = step("TensorListPopBack", Out(0), es, element_dtype=dt, fetch=[1])
        fam.seq("TensorListPopBack", [ft, pop], label="last item")
        fam.seq("TensorListPopBack", [ft, step("TensorListPopBack", Out(0), es, element_dtype=dt), last(stack, 1)],
                label="the rest")
        fam.seq("TensorListPopBack", [empty, last(pop, 0)], label="empty")
        res = step("TensorListReserve", es, tf.constant(3), element_dtype=dt)
        fam.seq("TensorListReserve", [res, step("TensorListSetItem", Out(0), tf.constant(1), x[1]), last(stack, 1)],
                label="one set")
        fam.seq("TensorListReserve", [step("TensorListReserve", unk, tf.constant(3), element_dtype=dt),
                                      step("TensorListSetItem", Out(0), tf.constant(1), x[1]),
                                      step("TensorListStack", Out(1), unk, element_dtype=dt)],
                label="unknown shape, one set")
        fam.seq("TensorListReserve", [res, step("TensorListLength", Out(0))], label="length")
        fam.seq("TensorListSetItem", [ft, step("TensorListSetItem", Out(0), tf.constant(0), x[2]), last(stack, 1)],
                label="0")
        fam.seq("TensorListSetItem", [ft, step("TensorListSetItem", Out(0), tf.constant(3), x[2])],
                label="out of range")
        fam.seq("TensorListSetItem", [ft, step("TensorListSetItem", Out(0), tf.constant(0), x[:, 0])],
                label="wrong shape")
        for st in (tf.int32, tf.int64):
            fam.seq("TensorListElementShape", [ft, step("TensorListElementShape", Out(0), shape_type=st)],
                    label=st.name)
        fam.seq("TensorListStack", [ft, step("TensorListStack", Out(0), es, element_dtype=dt, num_elements=2)],
                label="num_elements 2")
        fam.seq("TensorListStack", [empty, step("TensorListStack", Out(0), tf.constant([3]), element_dtype=dt)],
                label="empty, other shape")
        fam.seq("TensorListFromTensor", [step("TensorListFromTensor", x[:, 0], unk),
                                         step("TensorListStack", Out(0), unk, element_dtype=dt)],
                label="scalar elements, unknown shape")
        fam.seq("TensorListGetItem", [step("TensorListReserve", unk, tf.constant(2), element_dtype=dt),
                                      step("TensorListGetItem", Out(0), tf.constant(0), unk, element_dtype=dt)],
                label="unset, unknown shape")
        fam.seq("TensorListGetItem", [res, step("TensorListGetItem", Out(0), tf.constant(2), es, element_dtype=dt)],
                label="unset, known shape")
        fam.seq("TensorListPushBack", [step("EmptyTensorList", unk, tf.constant(-1), element_dtype=dt),
                                       step("TensorListPushBack", Out(0), x[0]),
                                       step("TensorListPushBack", Out(1), x[:2]),
                                       step("TensorListStack", Out(2), unk, element_dtype=dt)],
                label="unknown shape, two shapes")

        ta = step("TensorArrayV3", tf.constant(3), dtype=dt, element_shape=[2])
        rd = step("TensorArrayReadV3", Out(0, 0), tf.constant(2), Out(2), dtype=dt)

        def w(i, v, flow):
            return step("TensorArrayWriteV3", Out(0, 0), tf.constant(i), v, flow)

        fam.seq("TensorArrayWriteV3", [ta, w(0, x[0], Out(0, 1)), w(2, x[2], Out(1)), rd], label="read back")
        fam.seq("TensorArrayWriteV3", [ta, w(3, x[0], Out(0, 1))], label="out of range")
        fam.seq("TensorArrayWriteV3", [ta, w(0, x[0], Out(0, 1)), w(0, x[1], Out(1))], label="twice")
        fam.seq("TensorArrayWriteV3", [ta, w(0, x[:, 0], Out(0, 1))], label="wrong shape")
        fam.seq("TensorArrayV3", [step("TensorArrayV3", tf.constant(1), dtype=dt, dynamic_size=True),
                                  w(4, x[0], Out(0, 1)), step("TensorArraySizeV3", Out(0, 0), Out(1))],
                label="dynamic size")
        fam.seq("TensorArrayReadV3", [ta, w(0, x[0], Out(0, 1)),
                                      step("TensorArrayReadV3", Out(0, 0), tf.constant(1), Out(1), dtype=dt)],
                label="unwritten")
        fam.seq("TensorArrayReadV3", [ta, w(0, x[0], Out(0, 1)),
                                      step("TensorArrayReadV3", Out(0, 0), tf.constant(0), Out(1), dtype=dt),
                                      step("TensorArrayReadV3", Out(0, 0), tf.constant(0), Out(1), dtype=dt)],
                label="read twice")
        fam.seq("TensorArrayReadV3", [step("TensorArrayV3", tf.constant(3), dtype=dt, element_shape=[2],
                                           clear_after_read=False), w(0, x[0], Out(0, 1)),
                                      step("TensorArrayReadV3", Out(0, 0), tf.constant(0), Out(1), dtype=dt),
                                      step("TensorArrayReadV3", Out(0, 0), tf.constant(0), Out(1), dtype=dt)],
                label="read twice, kept")
        sc = step("TensorArrayScatterV3", Out(0, 0), tf.constant([2, 0, 1]), x, Out(0, 1))
        fam.seq("TensorArrayScatterV3", [ta, sc, step("TensorArrayReadV3", Out(0, 0), tf.constant(0), Out(1),
                                                      dtype=dt)], label="read 0")
        fam.seq("TensorArrayScatterV3", [ta, step("TensorArrayScatterV3", Out(0, 0), tf.constant([0, 5]), x[:2],
                                                  Out(0, 1))], label="out of range")
        fam.seq("TensorArrayGatherV3", [ta, sc, step("TensorArrayGatherV3", Out(0, 0), tf.constant([1, 2]), Out(1),
                                                     dtype=dt, element_shape=[2])], label="two")
        fam.seq("TensorArrayGatherV3", [ta, w(0, x[0], Out(0, 1)),
                                        step("TensorArrayGatherV3", Out(0, 0), tf.constant([0, 1]), Out(1),
                                             dtype=dt, element_shape=[2])], label="unwritten")
        fam.seq("TensorArraySizeV3", [ta, step("TensorArraySizeV3", Out(0, 0), Out(0, 1))], label="3")
        fam.seq("TensorArrayCloseV3", [ta, w(0, x[0], Out(0, 1)), step("TensorArrayCloseV3", Out(0, 0)),
                                       step("TensorArrayReadV3", Out(0, 0), tf.constant(0), Out(1), dtype=dt)],
                label="then read")


C = [tf.complex64, tf.complex128]


def complex_values(dt, rng, n=None):
    """Complex edge values (each part 0, -0, ±1, NaN, ±Inf, a subnormal,
    the largest finite) or n seeded ordinary ones."""
    if n is not None:
        v = rng.uniform(-3, 3, n) + 1j * rng.uniform(-3, 3, n)
    else:
        big = float(np.finfo(dt.real_dtype.as_numpy_dtype).max)
        parts = [0.0, -0.0, 1.0, -1.0, 0.5, float("nan"), float("inf"), float("-inf"), 1e-40, big]
        v = [complex(a, b) for a in parts for b in parts[:6]]
    return tf.cast(tf.constant(np.array(v, dtype=np.complex128)), dt)


def takes(op, dt):
    """Whether op's OpDef allows dt for its type attr T."""
    for a in op_def(op).attr:
        if a.name == "T":
            return not a.HasField("allowed_values") or dt.as_datatype_enum in a.allowed_values.list.type
    return False


def complex_(fam, rng):
    """complex64 and complex128 through the ops tfscan registers and
    TensorFlow's CPU kernels take them for."""
    for dt in C:
        ev = complex_values(dt, rng)
        n = ev.shape[0]
        r = complex_values(dt, rng, 3 * 5 * 7)
        for op in UNARY:
            if takes(op, dt) and fam.case(op, [ev], label="edges"):
                fam.case(op, [tf.reshape(r, (3, 5, 7))], label="odd")
        for op in BINARY:
            if not takes(op, dt):
                continue
            if fam.case(op, [tf.reshape(ev, (n, 1)), tf.reshape(ev[::7], (1, -1))], label="edges broadcast"):
                fam.case(op, [tf.reshape(r, (3, 5, 7)), r[:7]], label="odd broadcast")
        for op in ("Sum", "Prod", "Mean"):
            x = tf.reshape(r, (3, 5, 7))
            for axes in ([1], [0, 2], []):
                fam.case(op, [x, tf.constant(axes, tf.int32)], {"keep_dims": False}, label="axes %s" % axes)
            fam.case(op, [ev, tf.constant([0])], {"keep_dims": False}, label="edges")
        a, b = tf.reshape(r[:15], (3, 5)), tf.reshape(r[:35], (5, 7))
        fam.case("MatMul", [a, b], label="3x5 5x7")
        fam.case("MatMul", [tf.transpose(a), b], {"transpose_a": True}, label="ta")
        fam.case("BatchMatMulV2", [tf.reshape(r[:30], (2, 3, 5)), b], label="broadcast")
        fam.case("BatchMatMulV2", [tf.reshape(r[:30], (2, 3, 5)), tf.reshape(r[:30], (2, 3, 5))],
                 {"adj_y": True}, label="adj_y")
        for src in F + I + C:
            if src == dt:
                continue
            x = tensor(edge_values(src), src) if src not in C else complex_values(src, rng)
            fam.case("Cast", [x], {"DstT": dt}, label="edges")
            fam.case("Cast", [ev], {"DstT": src}, label="edges")
        fam.case("Cast", [ev], {"DstT": tf.bool}, label="edges")
    # The complex-only ops, on the edge values and on fixed ordinary ones
    # (no draws: the cases above keep their seeded values).
    for dt in C:
        ev = complex_values(dt, None)
        odd = tf.cast(tf.constant(np.linspace(-3, 3, 35) + 1j * np.linspace(2.5, -2.5, 35)), dt)
        part = dt.real_dtype
        for x, lab in ((ev, "edges"), (odd, "odd")):
            fam.case("Real", [x], {"Tout": part}, label=lab)
            fam.case("Imag", [x], {"Tout": part}, label=lab)
            fam.case("Conj", [x], label=lab)
            fam.case("ComplexAbs", [x], {"Tout": part}, label=lab)
            fam.case("Angle", [x], {"Tout": part}, label=lab)
        re, im = tf.math.real(ev), tf.math.imag(ev)
        fam.case("Complex", [tf.reshape(re, (-1, 1)), tf.reshape(im[::7], (1, -1))], {"Tout": dt},
                 label="edges broadcast")
        fam.case("Complex", [tf.math.real(odd), tf.math.imag(odd)], {"Tout": dt}, label="odd")


# Ops without a tf.raw_ops wrapper (the grappler remapper's _Fused*): run
# eagerly through the op's kernel by name, with the NodeDef's attrs filled
# from the OpDef's defaults as TensorFlow completes them.

def node_def(op, attrs):
    """op's NodeDef with attrs, the rest the OpDef's defaults."""
    nd = tf.compat.v1.NodeDef(op=op)
    for a in op_def(op).attr:
        v = attrs.get(a.name)
        if isinstance(v, list) and v and isinstance(v[0], tf.DType):
            nd.attr[a.name].list.type.extend(d.as_datatype_enum for d in v)
        elif isinstance(v, list) and v and isinstance(v[0], str):
            nd.attr[a.name].list.s.extend(x.encode() for x in v)
        elif a.name in attrs:
            nd.attr[a.name].CopyFrom(attr_value(v))
        elif a.HasField("default_value"):
            nd.attr[a.name].CopyFrom(a.default_value)
    return nd


def raw_case(fam, op, inputs, attrs, num_outputs, label=""):
    from tensorflow.python.eager import context, execute

    flat = [t for x in inputs for t in (x if isinstance(x, list) else [x])]
    nd = node_def(op, attrs)
    # Eager execution by name fills no defaults: every attr is passed.
    flat_attrs = []
    for a in op_def(op).attr:
        if a.name in nd.attr:
            flat_attrs += [a.name, python_attr(nd.attr[a.name], a.type)]
    c = {"op": op, "label": label, "inputs": [proto_b64(t) for t in flat]}
    try:
        with tf.device("/CPU:0"):
            out = execute.execute(op, num_outputs, flat, tuple(flat_attrs), context.context())
    except tf.errors.NotFoundError:
        return False
    except tf.errors.OpError as e:
        msg = str(e.message if hasattr(e, "message") else e).split("\n")[0]
        # No CPU kernel: a dtype the OpDef or the kernel refuses, a kernel
        # registered under an attr the OpDef lacks (TopK's index_type), a
        # fused_ops list the CPU kernel does not implement (tfscan runs
        # those for TF.js graphs).
        if "Could not find device for node" in msg or "No registered" in msg or "not in the list of allowed" in msg \
                or "Op does not support" in msg or "has constraint on attr" in msg or "Fusion is not implemented" in msg:
            return False
        c["error"] = msg[:300]
        out = None
    c["attrs"] = base64.b64encode(nd.SerializeToString(deterministic=True)).decode()
    if out is not None:
        outs = list(out)
        for i in UNWRITTEN.get(op, ()):
            outs[i] = tf.zeros_like(outs[i])
        c["outputs"] = [proto_b64(o) for o in outs]
    fam.cases.append(c)
    return True


def with_defaults(op, attrs=None):
    """attrs with the OpDef's defaults added: what a case passes where
    TensorFlow's shape function refuses the graph (so it does not complete
    the NodeDef)."""
    out = dict(attrs or {})
    for a in op_def(op).attr:
        if a.name not in out and a.HasField("default_value") and not a.type.startswith("list"):
            v = python_attr(a.default_value, a.type)
            if a.type == "type":
                v = tf.as_dtype(v)
            out[a.name] = v.decode() if isinstance(v, bytes) else v
    return out


def python_attr(av, kind):
    """An AttrValue as eager execution takes it, by the OpDef's attr type."""
    if kind.startswith("list("):
        field = {"list(int)": "i", "list(float)": "f", "list(string)": "s", "list(type)": "type",
                 "list(bool)": "b", "list(shape)": "shape"}[kind]
        return list(getattr(av.list, field))
    return getattr(av, {"int": "i", "float": "f", "string": "s", "type": "type", "bool": "b", "shape": "shape"}[kind])



_ALLOWED = {}


def case(fam, op, inputs, attrs=None, label=""):
    """fam.case, but a dtype the OpDef does not allow is no case (False):
    TensorFlow refuses the graph before any kernel runs. Whether it does
    depends on the dtypes alone, so it is asked once per op and dtypes."""
    flat = [t for x in inputs for t in (x if isinstance(x, list) else [x])]
    key = (op, tuple(t.dtype for t in flat), tuple(sorted((k, v) for k, v in (attrs or {}).items()
                                                           if isinstance(v, tf.DType))))
    if key not in _ALLOWED:
        kw = dict(zip(input_names(op), inputs))
        kw.update(attrs or {})

        def placeholder(v):
            if isinstance(v, list):
                return [placeholder(x) for x in v]
            return tf.compat.v1.placeholder(v.dtype, None) if isinstance(v, tf.Tensor) else v

        _ALLOWED[key] = True
        try:
            with tf.Graph().as_default():
                getattr(tf.raw_ops, op)(**{k: placeholder(v) for k, v in kw.items()})
        except (TypeError, ValueError) as e:
            _ALLOWED[key] = "allowed values" not in str(e)
    if not _ALLOWED[key]:
        return False
    return fam.case(op, inputs, attrs, label)


def shape(fam, rng):
    for dt in ALL:
        x = tensor(rand_values(dt, 3 * 5 * 7, rng), dt, (3, 5, 7))
        s = tensor(rand_values(dt, 1, rng)[0], dt, ())
        e = tensor([], dt, (2, 0, 3))
        for op in ("Shape", "Size", "Rank"):
            for t, lab in ((x, "3-D"), (s, "scalar"), (e, "empty")):
                case(fam, op, [t], label=lab)
            if op != "Rank":
                case(fam, op, [x], {"out_type": tf.int64}, label="int64")
        case(fam, "ShapeN", [[x, s, e]], label="three")
        case(fam, "ShapeN", [[x]], {"out_type": tf.int64}, label="int64")
        case(fam, "Empty", [tf.constant([2, 3])], {"dtype": dt, "init": True}, label="init")
        case(fam, "Empty", [tf.constant([0, 3])], {"dtype": dt, "init": False}, label="no elements")
        case(fam, "Empty", [tf.constant([2, -1])], {"dtype": dt, "init": True}, label="negative dim")
    for dt in (tf.int32, tf.int64):
        c = lambda v: tf.constant(v, dt)
        case(fam, "BroadcastArgs", [c([2, 1, 3]), c([5, 1])], label="broadcast")
        case(fam, "BroadcastArgs", [c([]), c([4, 0])], label="scalar empty")
        case(fam, "BroadcastArgs", [c([1, 0]), c([7, 1])], label="zero dim")
        case(fam, "BroadcastArgs", [c([2, 3]), c([4, 3])], label="incompatible")


def layout(fam, rng):
    for dt in ALL:
        x = tensor(rand_values(dt, 3 * 5 * 7, rng), dt, (3, 5, 7))
        y = tensor(rand_values(dt, 3 * 2 * 7, rng), dt, (3, 2, 7))
        if not case(fam, "Concat", [tf.constant(1), [x, y]], label="axis 1"):
            continue
        case(fam, "Concat", [tf.constant(-3), [x, x]], label="axis -3")
        case(fam, "Concat", [tf.constant(0), [tensor([], dt, (0, 5, 7)), x]], label="empty")
        case(fam, "Concat", [tf.constant(0), [x, y]], label="mismatch")
        case(fam, "Concat", [tf.constant(3), [x, x]], label="axis out of range")
        case(fam, "Gather", [x, tf.constant([2, 0, 2])], label="vector")
        case(fam, "Gather", [x, tf.constant([[1, 0], [2, 2]], tf.int64)], label="2-D idx")
        case(fam, "Gather", [x, tf.constant(1)], label="scalar idx")
        case(fam, "Gather", [x, tf.constant([3])], label="out of range")
        case(fam, "Gather", [x, tf.constant([-1])], label="negative")
        case(fam, "Reverse", [x, tf.constant([True, False, True])], label="axes 0 2")
        s = tensor(rand_values(dt, 1, rng)[0], dt, ())
        case(fam, "Reverse", [s, tf.constant([], tf.bool)], label="scalar")
        case(fam, "Reverse", [x, tf.constant([True, False])], label="wrong dims")
        case(fam, "ConjugateTranspose", [x, tf.constant([2, 0, 1])], label="perm")
        case(fam, "ConjugateTranspose", [x, tf.constant([0, 0, 1])], label="bad perm")
        case(fam, "ConjugateTranspose", [s, tf.constant([], tf.int32)], label="scalar")
        img = tensor(rand_values(dt, 2 * 4 * 6 * 3, rng), dt, (2, 4, 6, 3))
        case(fam, "SpaceToBatchND", [img, tf.constant([2, 3]), tf.constant([[0, 0], [0, 0]])], label="b2x3")
        case(fam, "SpaceToBatchND", [img, tf.constant([2, 2]), tf.constant([[1, 1], [0, 2]])], label="padded")
        case(fam, "SpaceToBatchND", [img, tf.constant([4, 4]), tf.constant([[0, 0], [0, 0]])], label="indivisible")
        case(fam, "SpaceToBatchND", [tensor(rand_values(dt, 12, rng), dt, (1, 6, 2)), tf.constant([3]),
                                    tf.constant([[0, 0]])], label="1-D block")
        case(fam, "SpaceToBatch", [img, tf.constant([[0, 0], [1, 1]]), ], {"block_size": 2}, label="b2")
        bat = tensor(rand_values(dt, 8 * 2 * 3 * 2, rng), dt, (8, 2, 3, 2))
        case(fam, "BatchToSpaceND", [bat, tf.constant([2, 2]), tf.constant([[0, 0], [0, 0]])], label="b2")
        case(fam, "BatchToSpaceND", [bat, tf.constant([2, 4]), tf.constant([[1, 0], [2, 3]])], label="cropped")
        case(fam, "BatchToSpaceND", [bat, tf.constant([3, 1]), tf.constant([[0, 0], [0, 0]])], label="indivisible")
        case(fam, "BatchToSpace", [bat, tf.constant([[0, 1], [1, 0]])], {"block_size": 2}, label="b2")
    for dt in [tf.float32, tf.float64, tf.float16, tf.bfloat16, tf.int32, tf.int64, tf.uint8, tf.int8, tf.int16,
               tf.uint16, tf.uint32, tf.uint64]:
        x = tensor(rand_values(dt, 35, rng), dt, (5, 7))
        # TopK is deprecated in GraphDefs (TopKV2 since version 7): built
        # by name.
        def topk(t, k, label, sort=True):
            return raw_case(fam, "TopK", [t], {"T": dt, "k": k, "sorted": sort}, 2, label=label)

        if not topk(x, 3, "k3"):
            continue
        topk(x, 7, "k = n", False)
        topk(x, 0, "k0")
        topk(x, 8, "k > n")
        topk(tensor([3, 1, 3, 2, 1, 3], dt), 4, "ties")
        topk(tensor(edge_values(dt), dt), 6, "edges")
        topk(tensor([], dt, (2, 0)), 0, "empty")


def matrix(fam, rng):
    for dt in ALL:
        x = tensor(rand_values(dt, 2 * 4 * 5, rng), dt, (2, 4, 5))
        d = tensor(rand_values(dt, 2 * 4, rng), dt, (2, 4))
        if not case(fam, "MatrixBandPart", [x, tf.constant(1), tf.constant(2)], label="1 2"):
            continue
        case(fam, "MatrixBandPart", [x, tf.constant(-1, tf.int64), tf.constant(0, tf.int64)], label="lower")
        case(fam, "MatrixBandPart", [x, tf.constant(0), tf.constant(-1)], label="upper")
        case(fam, "MatrixBandPart", [x, tf.constant(5), tf.constant(0)], label="too many lower")
        case(fam, "MatrixBandPart", [tensor(rand_values(dt, 4, rng), dt, (4,)), tf.constant(0), tf.constant(0)],
                 label="vector")
        case(fam, "MatrixDiag", [d], label="2x4")
        case(fam, "MatrixDiagPart", [x], label="2x4x5")
        case(fam, "MatrixSetDiag", [x, d], label="2x4x5")
        case(fam, "MatrixSetDiag", [x, tensor(rand_values(dt, 10, rng), dt, (2, 5))], label="wrong diag")
        pad = tensor(edge_values(dt)[-1], dt, ())
        k = tf.constant([-1, 1])
        band = tensor(rand_values(dt, 2 * 3 * 4, rng), dt, (2, 3, 4))
        case(fam, "MatrixDiagV2", [d, tf.constant(1), tf.constant(-1), tf.constant(-1), pad], label="k1")
        case(fam, "MatrixDiagV2", [band, k, tf.constant(5), tf.constant(6), pad], label="band 5x6")
        case(fam, "MatrixDiagPartV2", [x, tf.constant(-2), pad], label="k-2")
        case(fam, "MatrixDiagPartV2", [x, k, pad], label="band")
        case(fam, "MatrixSetDiagV2", [x, tensor(rand_values(dt, 2 * 3 * 4, rng), dt, (2, 3, 4)), k], label="band")
        case(fam, "MatrixSetDiagV2", [x, d, tf.constant(1)], label="k1")
        for align in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
            case(fam, "MatrixDiagV3", [band, k, tf.constant(5), tf.constant(6), pad], {"align": align}, label=align)
            case(fam, "MatrixDiagPartV3", [x, k, pad], {"align": align}, label=align)
            case(fam, "MatrixSetDiagV3", [x, tensor(rand_values(dt, 2 * 3 * 4, rng), dt, (2, 3, 4)), k],
                     {"align": align}, label=align)
        case(fam, "MatrixDiagV3", [d, tf.constant(0), tf.constant(3), tf.constant(-1), pad], label="too few rows")
        case(fam, "MatrixDiagPartV3", [x, tf.constant([2, -1]), pad], label="k reversed")
        case(fam, "MatrixDiagPartV3", [x, tf.constant(9), pad], label="k out of range")
        case(fam, "MatrixSetDiagV3", [x, d, tf.constant(1)], {"align": "LEFT_RIGHT"}, label="k1")


SEG_DT = F + [tf.int32, tf.int64, tf.int8, tf.int16, tf.uint8, tf.uint16, tf.uint32, tf.uint64]


def segment(fam, rng):
    for dt in SEG_DT:
        data = tensor(rand_values(dt, 6 * 4, rng), dt, (6, 4))
        ids = tf.constant([0, 0, 1, 3, 3, 3])
        for op in ("SegmentSum", "SegmentMean", "SegmentProd", "SegmentMax", "SegmentMin"):
            if not case(fam, op, [data, ids], label="sorted"):
                continue
            case(fam, op, [data, tf.constant([0, 0, 1, 1, 2, 2], tf.int64)], label="int64 ids")
            case(fam, op, [data, tf.constant([1, 0, 1, 2, 2, 2])], label="unsorted")
            case(fam, op, [data, tf.constant([-1, 0, 1, 2, 2, 2])], label="negative")
            case(fam, op, [data, tf.constant([0, 1])], label="wrong length")
            case(fam, op, [tensor([], dt, (0, 4)), tf.constant([], tf.int32)], label="empty")
            case(fam, op, [tensor(edge_values(dt), dt), tf.constant([0] * 5 + [1] * (len(edge_values(dt)) - 5))],
                     label="edges")
        for op in ("UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax", "UnsortedSegmentMin"):
            if not case(fam, op, [data, tf.constant([2, 0, 2, -1, 4, 0]), tf.constant(5)], label="negative dropped"):
                continue
            case(fam, op, [tensor(rand_values(dt, 3 * 2 * 4, rng), dt, (3, 2, 4)),
                          tf.constant([[0, 1], [2, 0], [1, 1]], tf.int64), tf.constant(3, tf.int64)], label="2-D ids")
            case(fam, op, [data, tf.constant([0, 1, 2, 3, 4, 5]), tf.constant(3)], label="out of range")
            case(fam, op, [tensor([], dt, (0, 4)), tf.constant([], tf.int32), tf.constant(2)], label="empty")
            case(fam, op, [tensor(edge_values(dt), dt), tf.constant([i % 3 for i in range(len(edge_values(dt)))]),
                          tf.constant(3)], label="edges")
        if not dt.is_floating and dt not in (tf.int32, tf.int64):
            continue
        ind = tf.constant([0, 5, 2, 2, 1])
        sids = tf.constant([0, 0, 1, 2, 2])
        for op in ("SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"):
            if not case(fam, op, [data, ind, sids], label="sorted"):
                continue
            case(fam, op, [data, tf.constant([0, 6]), tf.constant([0, 1])], label="index out of range")
            case(fam, op, [data, ind, tf.constant([0, 1, 0, 2, 2])], label="unsorted ids")
            case(fam, op, [data, tf.constant([1, 2], tf.int64), tf.constant([0, 2], tf.int64)], label="gap")
            case(fam, op + "WithNumSegments", [data, ind, sids, tf.constant(4)], label="4")
            case(fam, op + "WithNumSegments", [data, ind, sids, tf.constant(2)], label="too few")
    for dt in (tf.int32, tf.int64, tf.float32, tf.float64):
        arr = tf.constant([1, 3, 0, 3, 7, 2, 3], tf.int32)
        w = tensor(rand_values(dt, 7, rng), dt, (7,))
        if not case(fam, "DenseBincount", [arr, tf.constant(5), w], label="weights"):
            continue
        case(fam, "DenseBincount", [arr, tf.constant(5), tensor([], dt)], label="counts")
        case(fam, "DenseBincount", [arr, tf.constant(5), tensor([], dt)], {"binary_output": True}, label="binary")
        case(fam, "DenseBincount", [tf.constant([[1, 2], [0, 2]], tf.int64), tf.constant(3, tf.int64),
                                   tensor([], dt)], label="2-D")
        case(fam, "DenseBincount", [tf.constant([1, -1]), tf.constant(3), tensor([], dt)], label="negative")
        case(fam, "DenseBincount", [arr, tf.constant(-1), tensor([], dt)], label="negative size")
    for dt in (tf.float32, tf.float64, tf.int32, tf.int64):
        v = tensor(rand_values(dt, 40, rng, -6, 6), dt, (40,))
        r = tensor([-5, 5], dt)
        if not case(fam, "HistogramFixedWidth", [v, r, tf.constant(7)], label="7 bins"):
            continue
        case(fam, "HistogramFixedWidth", [v, r, tf.constant(3)], {"dtype": tf.int64}, label="int64")
        case(fam, "HistogramFixedWidth", [v, tensor([2, 1], dt), tf.constant(3)], label="bad range")
        case(fam, "HistogramFixedWidth", [v, r, tf.constant(0)], label="no bins")
        if dt.is_floating:
            case(fam, "HistogramFixedWidth", [tensor(edge_values(dt), dt), r, tf.constant(4)], label="NaN")
            ev = [v for v in edge_values(dt) if v == v]
            case(fam, "HistogramFixedWidth", [tensor(ev, dt), r, tf.constant(4)], label="edges")


def scatter(fam, rng):
    for dt in ALL:
        idx = tf.constant([[1, 0], [2, 3], [1, 0]])
        upd = tensor(rand_values(dt, 3 * 5, rng), dt, (3, 5))
        x = tensor(rand_values(dt, 3 * 4 * 5, rng), dt, (3, 4, 5))
        if not case(fam, "ScatterNd", [idx, upd, tf.constant([3, 4, 5])], label="duplicates"):
            continue
        case(fam, "ScatterNd", [tf.constant([[4], [0]], tf.int64), tensor(rand_values(dt, 2, rng), dt, (2,)),
                               tf.constant([5], tf.int64)], label="1-D")
        case(fam, "ScatterNd", [tf.constant([[3, 0]]), upd[:1], tf.constant([3, 4, 5])], label="out of range")
        case(fam, "ScatterNd", [tf.zeros([0, 2], tf.int32), tensor([], dt, (0, 5)), tf.constant([3, 4, 5])],
                 label="empty")
        ev = edge_values(dt)
        case(fam, "ScatterNd", [tf.constant([[i % 4] for i in range(len(ev))]), tensor(ev, dt), tf.constant([4])],
             label="edges duplicates")
        for op in ("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMax",
                   "TensorScatterMin"):
            if not case(fam, op, [x, tf.constant([[1, 0], [2, 3]]), upd[:2]], label="rows"):
                continue
            case(fam, op, [x, idx, upd], label="duplicates")
            case(fam, op, [x, tf.constant([[0, 1, 2], [2, 3, 4]], tf.int64), tensor(rand_values(dt, 2, rng), dt, (2,))],
                     label="elements")
            case(fam, op, [x, tf.constant([[0, 4]]), upd[:1]], label="out of range")
            case(fam, op, [x, tf.constant([[-1, 0]]), upd[:1]], label="negative")
            case(fam, op, [x, tf.constant([[1, 0]]), upd[:2]], label="wrong updates")
            ev = edge_values(dt)
            n = len(ev)
            case(fam, op, [tensor(ev, dt), tf.constant([[i] for i in range(n)]), tensor(ev[::-1], dt)],
                 label="edges")
        case(fam, "SparseToDense", [tf.constant([[0, 1], [2, 3]]), tf.constant([3, 4]),
                                   tensor(rand_values(dt, 2, rng), dt, (2,)), tensor(edge_values(dt)[1], dt, ())],
                 label="2-D")
        case(fam, "SparseToDense", [tf.constant([1, 4], tf.int64), tf.constant([5], tf.int64),
                                   tensor(rand_values(dt, 1, rng)[0], dt, ()), tensor(edge_values(dt)[0], dt, ())],
                 label="scalar value")
        case(fam, "SparseToDense", [tf.constant([[2, 3], [0, 1]]), tf.constant([3, 4]),
                                   tensor(rand_values(dt, 2, rng), dt, (2,)), tensor(edge_values(dt)[0], dt, ())],
                 label="unsorted")
        case(fam, "SparseToDense", [tf.constant([[2, 3], [0, 1]]), tf.constant([3, 4]),
                                   tensor(rand_values(dt, 2, rng), dt, (2,)), tensor(edge_values(dt)[0], dt, ())],
                 {"validate_indices": False}, label="unsorted unvalidated")
        case(fam, "SparseToDense", [tf.constant([[3, 0]]), tf.constant([3, 4]),
                                   tensor(rand_values(dt, 1, rng), dt, (1,)), tensor(edge_values(dt)[0], dt, ())],
                 label="out of range")


def image(fam, rng):
    for dt in [tf.float32, tf.float64, tf.float16, tf.bfloat16, tf.int32, tf.int64, tf.uint8, tf.int8, tf.int16,
               tf.uint16]:
        lo, hi = (0, 255) if dt == tf.uint8 else (-3, 3)
        img = tensor(rand_values(dt, 2 * 5 * 7 * 3, rng, lo, hi), dt, (2, 5, 7, 3))
        for op in ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic"):
            if not case(fam, op, [img, tf.constant([8, 4])], label="8x4"):
                continue
            case(fam, op, [img, tf.constant([3, 11])], {"align_corners": True}, label="align corners")
            case(fam, op, [img, tf.constant([9, 5])], {"half_pixel_centers": True}, label="half pixel")
            case(fam, op, [img, tf.constant([5, 7])], label="same size")
            case(fam, op, [img, tf.constant([0, 4])], label="zero size")
            case(fam, op, [img, tf.constant([4, 4])], {"align_corners": True, "half_pixel_centers": True},
                     label="both")
        if dt.is_floating:
            edge_img = tensor(edge_values(dt), dt, (1, 4, 5, 1))
            for op in ("ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic"):
                case(fam, op, [edge_img, tf.constant([7, 3])], {"half_pixel_centers": True}, label="edges")
        boxes = tf.constant([[0.1, 0.2, 0.8, 0.9], [0.9, 0.9, 0.1, 0.0], [-0.5, -0.2, 1.3, 1.1]])
        if dt != tf.bfloat16 and case(fam, "CropAndResize", [img, boxes, tf.constant([0, 1, 1]), tf.constant([4, 3])], label="bilinear"):
            case(fam, "CropAndResize", [img, boxes, tf.constant([1, 0, 0]), tf.constant([3, 5])],
                     {"method": "nearest", "extrapolation_value": -1.0}, label="nearest")
            case(fam, "CropAndResize", [img, boxes[:1], tf.constant([0]), tf.constant([1, 1])], label="1x1")
            case(fam, "CropAndResize", [img, boxes[:1], tf.constant([2]), tf.constant([2, 2])], label="bad box index")
            if dt.is_floating:
                for method in ("bilinear", "nearest"):
                    case(fam, "CropAndResize", [edge_img, boxes, tf.constant([0, 0, 0]), tf.constant([3, 4])],
                         {"method": method}, label="edges " + method)
        if case(fam, "ExtractImagePatches", [img], {"ksizes": [1, 2, 3, 1], "strides": [1, 2, 2, 1],
                                                   "rates": [1, 1, 1, 1], "padding": "VALID"}, label="VALID"):
            case(fam, "ExtractImagePatches", [img], {"ksizes": [1, 3, 2, 1], "strides": [1, 1, 3, 1],
                                                    "rates": [1, 2, 1, 1], "padding": "SAME"}, label="SAME rate 2")
    for dt in [tf.float32, tf.float16]:
        bx = rng.uniform(0, 1, (9, 4))
        bx[3] = bx[2]  # a duplicate box
        bx[5] = [0.5, 0.5, 0.5, 0.5]  # a point
        boxes = tensor(bx, dt)
        sc = rng.uniform(0, 1, 9)
        sc[7] = sc[1]  # a tie
        scores = tensor(sc, dt)
        iou = tensor(0.4, dt, ())
        sth = tensor(0.2, dt, ())
        if dt == tf.float32:
            case(fam, "NonMaxSuppression", [boxes, scores, tf.constant(5)], {"iou_threshold": 0.4}, label="5")
            case(fam, "NonMaxSuppression", [boxes, scores, tf.constant(-1)], label="negative max")
            case(fam, "NonMaxSuppression", [boxes, scores[:5], tf.constant(3)], with_defaults("NonMaxSuppression"),
                     label="mismatch")
        case(fam, "NonMaxSuppressionV2", [boxes, scores, tf.constant(6), iou], label="6")
        case(fam, "NonMaxSuppressionV2", [boxes, scores, tf.constant(6), tensor(1.5, dt, ())], label="bad iou")
        case(fam, "NonMaxSuppressionV3", [boxes, scores, tf.constant(6), iou, sth], label="score threshold")
        case(fam, "NonMaxSuppressionV3", [tensor([], dt, (0, 4)), tensor([], dt), tf.constant(3), iou, sth],
                 label="no boxes")
        for pad in (False, True):
            case(fam, "NonMaxSuppressionV4", [boxes, scores, tf.constant(7), iou, sth],
                     {"pad_to_max_output_size": pad}, label="pad %s" % pad)
        for sigma in (0.0, 0.5):
            case(fam, "NonMaxSuppressionV5", [boxes, scores, tf.constant(7), iou, sth, tensor(sigma, dt, ())],
                     label="sigma %g" % sigma)
        case(fam, "NonMaxSuppressionV5", [boxes, scores, tf.constant(12), iou, sth, tensor(0.0, dt, ())],
                 {"pad_to_max_output_size": True}, label="padded")
        sc_edge = np.array(sc)
        sc_edge[[0, 4, 6]] = [np.nan, np.inf, -np.inf]
        bx_edge = np.array(bx)
        bx_edge[8] = [np.nan, 0.1, 0.5, 0.6]
        for op, extra in (("NonMaxSuppressionV3", []), ("NonMaxSuppressionV5", [tensor(0.5, dt, ())])):
            case(fam, op, [tensor(bx_edge, dt), tensor(sc_edge, dt), tf.constant(9), iou, sth] + extra,
                 label="NaN and Inf")


def pool3d(fam, rng):
    for dt in F + I:
        vol = tensor(rand_values(dt, 2 * 5 * 6 * 4 * 3, rng), dt, (2, 5, 6, 4, 3))
        w = tensor(rand_values(dt, 2 * 3 * 2 * 3 * 4, rng, -1, 1), dt, (2, 3, 2, 3, 4))
        for pad in ("SAME", "VALID"):
            for op in ("MaxPool3D", "AvgPool3D"):
                case(fam, op, [vol], {"ksize": [1, 2, 3, 2, 1], "strides": [1, 2, 2, 1, 1], "padding": pad}, label=pad)
            case(fam, "Conv3D", [vol, w], {"strides": [1, 1, 2, 1, 1], "padding": pad}, label=pad)
        case(fam, "Conv3D", [vol, w[:, :, :, :2]], {"strides": [1, 1, 1, 1, 1], "padding": "VALID"},
                 label="channel mismatch")
        img = tensor(rand_values(dt, 2 * 7 * 6 * 3, rng), dt, (2, 7, 6, 3))
        for pad in ("SAME", "VALID"):
            case(fam, "MaxPoolV2", [img, tf.constant([1, 3, 2, 1]), tf.constant([1, 2, 2, 1])], {"padding": pad},
                     label=pad)
        case(fam, "MaxPoolV2", [img, tf.constant([1, 3, 2, 2]), tf.constant([1, 1, 1, 1])], {"padding": "VALID"},
                 label="depth window")
        if dt.is_floating:
            for op in ("MaxPool3D", "AvgPool3D"):
                case(fam, op, [tensor(edge_values(dt)[:16], dt, (1, 2, 2, 4, 1))],
                     {"ksize": [1, 2, 2, 2, 1], "strides": [1, 1, 1, 1, 1], "padding": "VALID"}, label="edges")
            case(fam, "MaxPoolV2", [tensor(edge_values(dt)[:16], dt, (1, 4, 4, 1)), tf.constant([1, 2, 2, 1]),
                                   tf.constant([1, 2, 2, 1])], {"padding": "VALID"}, label="edges")
        f2 = tensor(rand_values(dt, 3 * 3 * 2 * 3, rng, -1, 1), dt, (3, 3, 2, 3))
        for pad, s, size in (("SAME", 2, [2, 7, 6, 2]), ("VALID", 1, [2, 7, 6, 2]), ("SAME", 1, [2, 7, 6, 2])):
            oh = (7 + s - 1) // s if pad == "SAME" else 7 - 2
            ow = (6 + s - 1) // s if pad == "SAME" else 6 - 2
            dy = tensor(rand_values(dt, 2 * oh * ow * 3, rng), dt, (2, oh, ow, 3))
            case(fam, "Conv2DBackpropInput", [tf.constant(size), f2, dy], {"strides": [1, s, s, 1], "padding": pad},
                     label="%s s%d" % (pad, s))
        case(fam, "Conv2DBackpropInput", [tf.constant([2, 7, 6, 2]), f2, tensor(rand_values(dt, 2 * 7 * 6 * 3, rng), dt,
                                                                              (2, 7, 6, 3))],
                 {"strides": [1, 1, 1, 1], "padding": "EXPLICIT", "explicit_paddings": [0, 0, 1, 1, 1, 1, 0, 0]},
                 label="explicit")
        case(fam, "Conv2DBackpropInput", [tf.constant([2, 7, 6, 2]), f2, tensor(rand_values(dt, 2 * 4 * 3 * 3, rng),
                                                                              dt, (2, 4, 3, 3))],
                 {"strides": [1, 1, 1, 1], "padding": "SAME"}, label="wrong out_backprop")


def normmath(fam, rng):
    for dt in F + I + [tf.bool]:
        a = tensor(rand_values(dt, 35, rng), dt, (5, 7))
        b = tensor(rand_values(dt, 35, rng), dt, (5, 7))
        if case(fam, "AddN", [[a, b, a]], label="three"):
            case(fam, "AddN", [[a]], label="one")
            case(fam, "AddN", [[tensor(edge_values(dt), dt), tensor(edge_values(dt)[::-1], dt)]], label="edges")
            case(fam, "AddN", [[tensor([], dt, (0, 3)), tensor([], dt, (0, 3))]], label="empty")
            case(fam, "AddN", [[a, tensor(rand_values(dt, 7, rng), dt, (7,))]], label="shape mismatch")
        img = tensor(rand_values(dt, 2 * 3 * 5 * 4, rng), dt, (2, 3, 5, 4))
        if case(fam, "BiasAddV1", [img, tensor(rand_values(dt, 4, rng), dt, (4,))], label="NHWC"):
            case(fam, "BiasAddV1", [img, tensor(rand_values(dt, 5, rng), dt, (5,))], label="wrong bias")
            ev = edge_values(dt)
            case(fam, "BiasAddV1", [tensor(ev, dt, (1, len(ev))), tensor(ev[::-1], dt)], label="edges")
        if case(fam, "L2Loss", [a], label="5x7"):
            case(fam, "L2Loss", [tensor(edge_values(dt), dt)], label="edges")
            case(fam, "L2Loss", [tensor([], dt, (0,))], label="empty")
            case(fam, "L2Loss", [tensor(rand_values(dt, 1, rng)[0], dt, ())], label="scalar")
        x = tensor(rand_values(dt, 2 * 3 * 4, rng), dt, (2, 3, 4))
        y = tensor(rand_values(dt, 2 * 4 * 5, rng), dt, (2, 4, 5))
        if case(fam, "BatchMatMul", [x, y], label="2x3x4 2x4x5"):
            case(fam, "BatchMatMul", [tf.transpose(x, [0, 2, 1]), y], {"adj_x": True}, label="adj_x")
            case(fam, "BatchMatMul", [x, tf.transpose(y, [0, 2, 1])], {"adj_y": True}, label="adj_y")
            case(fam, "BatchMatMul", [x, y[:1]], with_defaults("BatchMatMul"), label="batch mismatch")
            case(fam, "BatchMatMul", [tensor([], dt, (2, 0, 4)), y], label="empty")
            case(fam, "BatchMatMul", [tensor(rand_values(dt, 3 * 17 * 67, rng), dt, (3, 17, 67)),
                                      tensor(rand_values(dt, 3 * 67 * 33, rng), dt, (3, 67, 33))], label="odd sizes")
            if dt.is_floating:
                e = edge_values(dt)[:16]
                case(fam, "BatchMatMul", [tensor(e, dt, (1, 4, 4)), tensor(e[::-1], dt, (1, 4, 4))], label="edges")
        for tout in (dt,):
            if case(fam, "BatchMatMulV3", [x, y[:1]], {"Tout": tout}, label="broadcast"):
                case(fam, "BatchMatMulV3", [x, tf.transpose(y, [0, 2, 1])], {"Tout": tout, "adj_y": True},
                         label="adj_y")
                case(fam, "BatchMatMulV3", [x, x], with_defaults("BatchMatMulV3", {"Tout": tout}), label="incompatible")
        if case(fam, "Einsum", [[x, y]], {"equation": "bij,bjk->bik"}, label="batch matmul"):
            case(fam, "Einsum", [[x]], {"equation": "bij->jb"}, label="sum transpose")
            case(fam, "Einsum", [[x, tensor(rand_values(dt, 4, rng), dt, (4,))]], {"equation": "...j,j->..."},
                     label="ellipsis")
            case(fam, "Einsum", [[tensor(rand_values(dt, 9, rng), dt, (3, 3))]], {"equation": "ii->i"}, label="diag")
            case(fam, "Einsum", [[x, y]], {"equation": "bij,bkj->bik"}, label="mismatch")
    for dt in F:
        x = tensor(rand_values(dt, 2 * 3 * 5 * 4, rng), dt, (2, 3, 5, 4))
        u = tf.float32
        sc = tensor(rng.uniform(0.5, 1.5, 4), u)
        of = tensor(rng.uniform(-1, 1, 4), u)
        mean = tensor(rng.uniform(-1, 1, 4), u)
        var = tensor(rng.uniform(0.5, 2, 4), u)
        empty = tensor([], u)
        for op in ("FusedBatchNorm", "FusedBatchNormV2"):
            case(fam, op, [x, sc, of, mean, var], {"is_training": False, "epsilon": 0.001}, label="inference")
            case(fam, op, [x, sc, of, empty, empty], {"is_training": True, "epsilon": 0.001}, label="training")
            case(fam, op, [x, sc, of, mean, var], {"is_training": True, "epsilon": 0.001,
                                                  "exponential_avg_factor": 0.3}, label="running average")
            case(fam, op, [x, sc[:3], of, mean, var], with_defaults(op, {"is_training": False}), label="wrong scale")
        case(fam, "FusedBatchNormV3", [x, sc, of, empty, empty], {"is_training": True, "epsilon": 0.001},
             label="training")
        case(fam, "FusedBatchNormV3", [x, sc, of, mean, var], {"is_training": True, "epsilon": 0.001,
                                                               "exponential_avg_factor": 0.3}, label="running average")
        case(fam, "FusedBatchNormV3", [x[:1, :1, :1], sc, of, empty, empty], {"is_training": True, "epsilon": 0.001},
             label="training one element")
        side = tensor(rand_values(dt, 2 * 3 * 5 * 4, rng), dt, (2, 3, 5, 4))


FUSED_EPILOGUES = [
    (["BiasAdd"], 1), (["BiasAdd", "Relu"], 1), (["BiasAdd", "Relu6"], 1), (["BiasAdd", "Elu"], 1),
    (["BiasAdd", "LeakyRelu"], 1), (["BiasAdd", "Tanh"], 1), (["BiasAdd", "Sigmoid"], 1),
    (["BiasAdd", "Add"], 2), (["BiasAdd", "Add", "Relu"], 2), (["FusedBatchNorm"], 4),
    (["FusedBatchNorm", "Relu"], 4), (["BiasAdd", "GeluApproximate"], 1), (["BiasAdd", "GeluExact"], 1),
]


# The grappler remapper's fusions with a CPU kernel of their own
# (conv_ops_fused_impl.h, matmul_op_fused.cc), float16 to float64. The
# CPU's _FusedDepthwiseConv2dNative, _FusedConv3D and _FusedBatchNormEx,
# and every bfloat16 fusion, are NoOp placeholders for the oneDNN layout
# pass (kernels/mkl/mkl_conv_ops.cc, mkl_fused_batch_norm_op.cc) that
# return nothing; a _FusedMatMul bias is not checked against the output's
# width (read past its end), so no case has a wrong bias.
def fused(fam, rng):
    for dt in (tf.float16, tf.float32, tf.float64):
        img = tensor(rand_values(dt, 2 * 7 * 6 * 3, rng), dt, (2, 7, 6, 3))
        w = tensor(rand_values(dt, 3 * 3 * 3 * 4, rng, -1, 1), dt, (3, 3, 3, 4))
        a = tensor(rand_values(dt, 5 * 6, rng), dt, (5, 6))
        b = tensor(rand_values(dt, 6 * 4, rng), dt, (6, 4))

        def args(ops, n, c, out_shape):
            if ops[0] == "FusedBatchNorm":
                return [tensor(rng.uniform(0.5, 1.5, c), dt), tensor(rng.uniform(-1, 1, c), dt),
                        tensor(rng.uniform(-1, 1, c), dt), tensor(rng.uniform(0.5, 2, c), dt)]
            out = [tensor(rand_values(dt, c, rng), dt, (c,))]
            if n == 2:
                out.append(tensor(rand_values(dt, int(np.prod(out_shape)), rng), dt, out_shape))
            return out

        for ops, n in FUSED_EPILOGUES:
            lab = "+".join(ops)
            for s, pad in ((1, "SAME"), (2, "VALID")):
                oh, ow = ((7 + s - 1) // s, (6 + s - 1) // s) if pad == "SAME" else ((7 - 3) // s + 1, (6 - 3) // s + 1)
                ar = args(ops, n, 4, (2, oh, ow, 4))
                raw_case(fam, "_FusedConv2D", [img, w, ar, []],
                         {"T": dt, "TArgs": [dt] * n, "num_args": n, "strides": [1, s, s, 1], "padding": pad,
                          "fused_ops": ops, "epsilon": 0.001}, 1, label="%s %s s%d" % (lab, pad, s))
            ar = args(ops, n, 4, (5, 4))
            raw_case(fam, "_FusedMatMul", [a, b, ar], {"T": dt, "num_args": n, "fused_ops": ops, "epsilon": 0.001},
                     1, label=lab)
        raw_case(fam, "_FusedConv2D", [img, w, [tensor(rand_values(dt, 4, rng), dt, (4,))], []],
                 {"T": dt, "TArgs": [dt], "num_args": 1, "strides": [1, 1, 1, 1], "padding": "SAME",
                  "fused_ops": ["BiasAdd", "Relu"], "dilations": [1, 2, 2, 1]}, 1, label="dilated")
        # Edge values through the activations: NaN, ±Inf and -0.0 in the
        # input and the bias.
        ev = edge_values(dt)
        ea = tensor(ev[:18], dt, (3, 6))
        eb = tensor(edge_values(dt)[2:14][::-1], dt, (6, 2))
        for act in ("Relu", "Relu6", "Elu", "LeakyRelu"):
            raw_case(fam, "_FusedMatMul", [ea, eb, [tensor(ev[-4:-2], dt)]],
                     {"T": dt, "num_args": 1, "fused_ops": ["BiasAdd", act]}, 1, label="edges " + act)
            raw_case(fam, "_FusedConv2D", [tensor(ev, dt, (1, 4, 5, 1)), tensor([1.0, -1.0], dt, (1, 1, 1, 2)),
                                           [tensor([ev[1], ev[12]], dt)], []],
                     {"T": dt, "TArgs": [dt], "num_args": 1, "strides": [1, 1, 1, 1], "padding": "VALID",
                      "fused_ops": ["BiasAdd", act]}, 1, label="edges " + act)


def random(fam, rng):
    for dt in F:
        for seed in ([1, 2], [0, 0], [-7, 123456789]):
            for sh in ([3, 5], [0], [67]):
                case(fam, "StatelessRandomUniform", [tf.constant(sh), tf.constant(seed, tf.int64)], {"dtype": dt},
                         label="seed %s shape %s" % (seed, sh))
        case(fam, "StatelessRandomUniform", [tf.constant([2, 2], tf.int64), tf.constant([5, 6])], {"dtype": dt},
                 label="int32 seed")
        case(fam, "StatelessRandomUniform", [tf.constant([2]), tf.constant([5, 6, 7], tf.int64)], {"dtype": dt},
                 label="bad seed")



# Gradients, text and random ops of the executor the other families leave
# out: the activation and pooling gradients, BiasAddGrad and
# Conv2DBackpropFilter (a training graph's ops), Bitcast, the
# cross-entropy with sparse labels, RaggedTensorToTensor, the string ops
# of a text model's preprocessing, the V2 stateless random ops and
# RngReadAndSkip on a variable's state (a sequence).
def extra(fam, rng):
    for dt in F:
        ev = edge_values(dt)
        n = len(ev)
        g = tensor(rand_values(dt, n, rng), dt)
        for op in ("ReluGrad", "SigmoidGrad", "TanhGrad"):
            case(fam, op, [g, tensor(ev, dt)], label="edges second")
            case(fam, op, [tensor(ev, dt), g], label="edges first")
            a = tensor(rand_values(dt, 12, rng), dt, (3, 4))
            b = tensor(rand_values(dt, 12, rng), dt, (3, 4))
            case(fam, op, [a, b], label="3x4")
            case(fam, op, [tensor(1.5, dt), tensor(-0.5, dt)], label="scalars")
            case(fam, op, [tensor([], dt, (0, 3)), tensor([], dt, (0, 3))], label="empty")
            case(fam, op, [a, b[0]], label="mismatched shapes")
    for dt in F + I:
        x = tensor(rand_values(dt, 2 * 3 * 4 * 5, rng), dt, (2, 3, 4, 5))
        for fmt in ("NHWC", "NCHW"):
            case(fam, "BiasAddGrad", [x], {"data_format": fmt}, label="4-D " + fmt)
        case(fam, "BiasAddGrad", [tensor(rand_values(dt, 6, rng), dt, (3, 2))], label="2-D")
        case(fam, "BiasAddGrad", [tensor(rand_values(dt, 200, rng), dt, (50, 4))], label="50x4")
        case(fam, "BiasAddGrad", [tensor([], dt, (0, 3))], label="empty rows")
        case(fam, "BiasAddGrad", [tensor([], dt, (4, 0))], label="no channels")
        case(fam, "BiasAddGrad", [tensor(rand_values(dt, 3, rng), dt, (3,))], label="1-D")
        ev = edge_values(dt)
        if len(ev) % 2 == 0:
            case(fam, "BiasAddGrad", [tensor(ev, dt, (len(ev) // 2, 2))], label="edges")
    for src, dst, shp in ((tf.float32, tf.int32, (2, 3)), (tf.float32, tf.uint8, (3,)), (tf.uint8, tf.float32, (2, 4)),
                          (tf.float64, tf.int32, (2,)), (tf.int32, tf.int64, (3, 2)), (tf.float16, tf.int16, (5,)),
                          (tf.bfloat16, tf.uint16, (5,)), (tf.int8, tf.uint8, (4,)), (tf.uint64, tf.float64, (3,)),
                          (tf.int16, tf.float16, (2, 2)), (tf.uint8, tf.float32, (3,)), (tf.int32, tf.int64, (3,)),
                          (tf.float32, tf.float32, ()), (tf.uint32, tf.float32, (0, 2)), (tf.int64, tf.uint8, ())):
        n = int(np.prod(shp))
        case(fam, "Bitcast", [tensor(rand_values(src, n, rng), src, shp)], {"type": dst},
             label="%s to %s %s" % (src.name, dst.name, shp))
    for dt in (tf.float32, tf.float64, tf.float16):
        case(fam, "Bitcast", [tensor(edge_values(dt), dt)], {"type": tf.uint64 if dt == tf.float64 else
                                                              (tf.uint32 if dt == tf.float32 else tf.uint16)},
             label="edges")
    for dt in (tf.float16, tf.bfloat16, tf.float32, tf.float64):
        x = tensor(rand_values(dt, 2 * 7 * 6 * 3, rng), dt, (2, 7, 6, 3))
        for s, pad, dil in ((1, "SAME", 1), (2, "VALID", 1), (2, "SAME", 1), (1, "VALID", 2)):
            oh, ow = ((7 + s - 1) // s, (6 + s - 1) // s) if pad == "SAME" else \
                ((7 - 2 * dil - 1) // s + 1, (6 - 2 * dil - 1) // s + 1)
            dy = tensor(rand_values(dt, 2 * oh * ow * 4, rng), dt, (2, oh, ow, 4))
            case(fam, "Conv2DBackpropFilter", [x, tf.constant([3, 3, 3, 4]), dy],
                 {"strides": [1, s, s, 1], "padding": pad, "dilations": [1, dil, dil, 1]},
                 label="%s s%d d%d" % (pad, s, dil))
        dy = tensor(rand_values(dt, 2 * 7 * 6 * 4, rng), dt, (2, 7, 6, 4))
        case(fam, "Conv2DBackpropFilter", [x, tf.constant([3, 3, 3, 4]), dy],
             {"strides": [1, 1, 1, 1], "padding": "EXPLICIT", "explicit_paddings": [0, 0, 1, 1, 1, 1, 0, 0]},
             label="explicit")
        case(fam, "Conv2DBackpropFilter", [x, tf.constant([3, 3, 3, 4]), dy[:, :3]],
             {"strides": [1, 1, 1, 1], "padding": "SAME"}, label="wrong out_backprop shape")
        case(fam, "Conv2DBackpropFilter", [x, tf.constant([3, 3, 2, 4]), dy],
             {"strides": [1, 1, 1, 1], "padding": "SAME"}, label="wrong filter depth")
        case(fam, "Conv2DBackpropFilter", [tensor([], dt, (0, 7, 6, 3)), tf.constant([3, 3, 3, 4]),
                                           tensor([], dt, (0, 7, 6, 4))],
             {"strides": [1, 1, 1, 1], "padding": "SAME"}, label="empty batch")
        ev = edge_values(dt)
        xe = tensor((ev * 3)[:1 * 4 * 5 * 1], dt, (1, 4, 5, 1))
        case(fam, "Conv2DBackpropFilter", [xe, tf.constant([2, 2, 1, 1]),
                                           tensor(rand_values(dt, 12, rng), dt, (1, 3, 4, 1))],
             {"strides": [1, 1, 1, 1], "padding": "VALID"}, label="edges")
        # MaxPoolGrad: orig_output as MaxPool computes it; ties and NaN.
        for k, s, pad, xin in ((2, 2, "VALID", x), (3, 1, "SAME", x), (3, 2, "SAME", x),
                               (2, 1, "VALID", tensor([1, 1, 1, 1, 2, 2, 0, 0, 2] * 2, dt, (1, 3, 3, 2))),
                               (2, 1, "VALID", xe)):
            try:
                y = tf.raw_ops.MaxPool(input=xin, ksize=[1, k, k, 1], strides=[1, s, s, 1], padding=pad)
            except tf.errors.OpError:
                continue
            dy = tensor(rand_values(dt, int(np.prod(y.shape)), rng), dt, tuple(y.shape))
            case(fam, "MaxPoolGrad", [xin, y, dy], {"ksize": [1, k, k, 1], "strides": [1, s, s, 1], "padding": pad},
                 label="k%d s%d %s %s" % (k, s, pad, tuple(xin.shape)))
        y = tf.raw_ops.MaxPool(input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
        case(fam, "MaxPoolGrad", [x, y, y[:, :1]], {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1],
                                                     "padding": "VALID"}, label="wrong grad shape")
    for dt in (tf.float16, tf.bfloat16, tf.float32, tf.float64):
        logits = tensor(rand_values(dt, 4 * 5, rng), dt, (4, 5))
        for lt in (tf.int32, tf.int64):
            for labels, lab in (([0, 4, 2, 2], "in range"), ([0, 5, 1, 1], "label 5 of 5"),
                                ([0, -1, 1, 1], "negative label")):
                case(fam, "SparseSoftmaxCrossEntropyWithLogits", [logits, tf.constant(labels, lt)], label=lab)
        ev = edge_values(dt)
        m = len(ev) // 2
        case(fam, "SparseSoftmaxCrossEntropyWithLogits", [tensor(ev[:2 * m], dt, (m, 2)), tf.constant([0, 1] * (m // 2) +
                                                                                                        [1] * (m % 2))],
             label="edges")
        case(fam, "SparseSoftmaxCrossEntropyWithLogits", [tensor([], dt, (0, 5)), tf.constant([], tf.int32)],
             label="empty batch")
        case(fam, "SparseSoftmaxCrossEntropyWithLogits", [tensor([], dt, (3, 0)), tf.constant([0, 0, 0])],
             label="no classes")
        case(fam, "SparseSoftmaxCrossEntropyWithLogits", [logits, tf.constant([0, 1])], label="labels too short")
        case(fam, "SparseSoftmaxCrossEntropyWithLogits", [logits[0], tf.constant(0)], label="1-D logits")
    # RaggedTensorToTensor: row splits, value rowids, uniform inner dims.
    vals = tf.constant([1.5, 2, 3, 4, 5, 6, 7])
    for shp, lab in (([-1, -1], "natural"), ([2, 2], "truncated"), ([5, 4], "padded"), ([-1, 6], "wider")):
        for dv in (tf.constant(0.0), tf.constant(-1.0)):
            case(fam, "RaggedTensorToTensor", [tf.constant(shp, tf.int64), vals, dv, [tf.constant([0, 2, 2, 5, 7],
                                                                                                tf.int64)]],
                 {"row_partition_types": ["ROW_SPLITS"]}, label="splits %s default %s" % (lab, dv.numpy()))
        case(fam, "RaggedTensorToTensor", [tf.constant(shp, tf.int64), vals, tf.constant(9.0),
                                           [tf.constant(4, tf.int64), tf.constant([0, 0, 2, 2, 2, 3, 3], tf.int64)]],
             {"row_partition_types": ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]}, label="rowids " + lab)
    for dt in (tf.int32, tf.int64, tf.string, tf.bool, tf.float64):
        v = tf.constant([[1, 2], [3, 4], [5, 6]]) if dt != tf.string else tf.constant([["a", "b"], ["c", "d"], ["e", "f"]])
        if dt == tf.bool:
            v = tf.constant([[True, False], [False, True], [True, True]])
        v = tf.cast(v, dt) if dt not in (tf.string, tf.bool) else v
        dflt = tf.zeros([], dt) if dt != tf.string else tf.constant("")
        case(fam, "RaggedTensorToTensor", [tf.constant([-1, -1, -1], tf.int64), v, dflt,
                                           [tf.constant([0, 1, 1, 3], tf.int32)]],
             {"row_partition_types": ["ROW_SPLITS"]}, label="inner dim " + dt.name)
    # Splits that end past the values are read past their end (no check in
    # ragged_tensor_to_tensor_op.cc): no case.
    for shp, sp, lab in (([-1, -1], [1, 2, 7], "splits not from 0"),
                         ([-1, -1, -1], [0, 2, 7], "shape rank 3"), ([-1, -1], [0], "no rows")):
        case(fam, "RaggedTensorToTensor", [tf.constant(shp, tf.int64), vals if lab != "no rows" else vals[:0],
                                           tf.constant(0.0), [tf.constant(sp, tf.int64)]],
             {"row_partition_types": ["ROW_SPLITS"]}, label=lab)
    case(fam, "RaggedTensorToTensor", [tf.constant([-1, -1], tf.int64), vals, tf.constant([1.0, 2.0]),
                                       [tf.constant([0, 2, 7], tf.int64)]],
         {"row_partition_types": ["ROW_SPLITS"]}, label="default of wrong shape")
    # Strings.
    W = tf.constant([b"Hello World", b"", "HÉLLO wörld".encode(), b"\xff\xfeAB", b"a  b\tc", b"ABC,def,,GHI",
                     "ΣΑΣ İstanbul".encode(), b"x"])
    for pat, rw, glob in (("o", "0", True), ("o", "0", False), ("[A-Z]+", "<\\0>", True), ("(\\w+) (\\w+)", "\\2 \\1", True),
                          ("", "-", True), ("^", "^", True), ("\\s+", " ", True), ("(", "x", True), ("l", "", True)):
        case(fam, "StaticRegexReplace", [W], {"pattern": pat, "rewrite": rw, "replace_global": glob},
             label="%r -> %r %s" % (pat, rw, glob))
    case(fam, "StaticRegexReplace", [tf.reshape(W, (2, 4))], {"pattern": "l+", "rewrite": "L"}, label="2x4")
    case(fam, "StaticRegexReplace", [tf.constant("aaa")], {"pattern": "a", "rewrite": "b"}, label="scalar")
    case(fam, "StaticRegexReplace", [tf.constant([], tf.string)], {"pattern": "a", "rewrite": "b"}, label="empty")
    for enc in ("", "utf-8"):
        case(fam, "StringLower", [W], {"encoding": enc}, label="encoding %r" % enc)
        case(fam, "StringLower", [tf.reshape(W, (4, 2))], {"encoding": enc}, label="4x2 %r" % enc)
    case(fam, "StringLower", [tf.constant("ÀB")], label="scalar")
    case(fam, "StringLower", [tf.constant(["Σ", "AΣ", "AΣ.B", "AΣ'", "ΣA", "ὈΔΥΣΣΕΎΣ", "ǅǄǆ", "ẞSS", "K\u212a\u0130\u0049\u0307",
                                           "ΑΣ\u0301 Β", "ÅΩ\u2126", "\U00010400\U0001E900"])],
         {"encoding": "utf-8"}, label="special casing")
    case(fam, "StringLower", [tf.constant([], tf.string)], label="empty")
    case(fam, "StringLower", [W], {"encoding": "latin1"}, label="unknown encoding")
    for sep in ("", " ", ",", ",,", "ab"):
        for mx in (-1, 0, 1, 2):
            case(fam, "StringSplitV2", [W, tf.constant(sep)], {"maxsplit": mx}, label="sep %r max %d" % (sep, mx))
    case(fam, "StringSplitV2", [tf.constant([], tf.string), tf.constant(" ")], label="empty")
    case(fam, "StringSplitV2", [tf.constant("a b"), tf.constant(" ")], label="scalar")
    case(fam, "StringSplitV2", [tf.reshape(W, (2, 4)), tf.constant(" ")], label="2x4")
    case(fam, "StringSplitV2", [W, tf.constant([" ", ","])], label="sep vector")
    # Stateless random V2: the key and counter of the Philox algorithm.
    key, ctr = tf.constant([0x12345678], tf.uint64), tf.constant([1, 2], tf.uint64)
    for alg in (1, 3, 2, 7):
        for sh in ([3, 5], [0], [67], []):
            for dt in F:
                case(fam, "StatelessRandomNormalV2", [tf.constant(sh), key, ctr, tf.constant(alg)], {"dtype": dt},
                     label="alg %d shape %s" % (alg, sh))
            for dt, lo, hi in ((tf.int32, -5, 17), (tf.int64, -2 ** 40, 2 ** 41), (tf.uint32, 3, 2 ** 32 - 1),
                               (tf.uint64, 0, 2 ** 64 - 1), (tf.int32, -2 ** 31, 2 ** 31 - 1)):
                case(fam, "StatelessRandomUniformIntV2", [tf.constant(sh), key, ctr, tf.constant(alg),
                                                          tf.constant(lo, dt), tf.constant(hi, dt)],
                     label="alg %d shape %s [%d, %d)" % (alg, sh, lo, hi))
    for k, c, lab in (([0, 0], [0, 0], "zero"), ([2 ** 64 - 1], [2 ** 64 - 1, 2 ** 64 - 1], "max")):
        case(fam, "StatelessRandomNormalV2", [tf.constant([4, 3]), tf.constant(k[:1], tf.uint64),
                                              tf.constant(c, tf.uint64), tf.constant(1)], label=lab + " key/counter")
    case(fam, "StatelessRandomNormalV2", [tf.constant([4]), tf.constant([1, 2], tf.uint64), ctr, tf.constant(1)],
         label="key of 2")
    # A Philox counter of one element passes CheckKeyCounterShape (it takes the
    # algorithm's id as the least length) and is read past its end: no case.
    case(fam, "StatelessRandomNormalV2", [tf.constant([4]), key, tf.constant([], tf.uint64), tf.constant(1)],
         label="empty counter")
    case(fam, "StatelessRandomNormalV2", [tf.constant([4], tf.int64), key, tf.constant([1, 2, 3], tf.uint64),
                                          tf.constant(1)], label="counter of 3, int64 shape")
    for lo, hi, lab in ((5, 5, "empty range"), (7, 2, "minval above maxval")):
        case(fam, "StatelessRandomUniformIntV2", [tf.constant([3]), key, ctr, tf.constant(1), tf.constant(lo),
                                                  tf.constant(hi)], label=lab)
    case(fam, "StatelessRandomUniformIntV2", [tf.constant([0]), key, ctr, tf.constant(1), tf.constant(5),
                                              tf.constant(5)], label="empty range, no values")
    case(fam, "StatelessRandomUniformIntV2", [tf.constant([3]), key, ctr, tf.constant(1), tf.constant([1, 2]),
                                              tf.constant(5)], label="minval vector")
    # RngReadAndSkip: a variable's algorithm state, read and advanced.
    for alg, init, delta in ((1, [5, 7, 9], 10), (1, [2 ** 63 - 1, -1, 0], 3), (2, [1, 2, 3], 4),
                             (1, [0, 0, 0], 0), (1, [-1, -1, 4], 2 ** 40), (3, [1, 2, 3], 1), (5, [1, 2, 3], 1)):
        h = step("VarHandleOp", dtype=tf.int64, shape=[3])
        st = step("AssignVariableOp", Out(0), tf.constant(init, tf.int64))
        skip = step("RngReadAndSkip", Out(0), tf.constant(alg), tf.constant(delta, tf.uint64))
        lab = "alg %d state %s delta %d" % (alg, init, delta)
        fam.seq("RngReadAndSkip", [h, st, skip], label=lab)
        fam.seq("RngReadAndSkip", [h, st, skip, step("ReadVariableOp", Out(0), dtype=tf.int64)], label=lab + ", then read")
        fam.seq("RngReadAndSkip", [h, st, skip, skip], label=lab + ", twice")
    h = step("VarHandleOp", dtype=tf.int64, shape=[3])
    fam.seq("RngReadAndSkip", [h, step("RngReadAndSkip", Out(0), tf.constant(1), tf.constant(1, tf.uint64))],
            label="uninitialized")
    h2 = step("VarHandleOp", dtype=tf.int64, shape=None)
    fam.seq("RngReadAndSkip", [h2, step("AssignVariableOp", Out(0), tf.constant([1, 2], tf.int64)),
                               step("RngReadAndSkip", Out(0), tf.constant(1), tf.constant(1, tf.uint64))],
            label="state too short")


# The CPU's _FusedConv3D, _FusedDepthwiseConv2dNative and _FusedBatchNormEx
# kernels are NoOps that TensorFlow's oneDNN layout pass rewrites to its
# _Mkl kernels (kernels/mkl/mkl_conv_ops.cc, mkl_fused_batch_norm_op.cc):
# their numbers exist only with oneDNN on, in a graph. A child process
# imports TensorFlow so, with oneDNN held to SSE4.1 code and one thread so
# that its results are the same on every x86 machine, and runs each case
# in a session.
ONEDNN_CHILD = "--onednn-child"


def onednn(fam, rng):
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "cases.json")
        env = dict(os.environ, TF_ENABLE_ONEDNN_OPTS="1", ONEDNN_MAX_CPU_ISA="SSE41", OMP_NUM_THREADS="1")
        subprocess.run([sys.executable, os.path.abspath(__file__), ONEDNN_CHILD, path, str(rng.randint(1 << 30))],
                       env=env, check=True)
        with open(path) as fh:
            fam.cases.extend(json.load(fh))


def onednn_child(path, seed):
    rng = np.random.RandomState(seed)
    tf.compat.v1.disable_eager_execution()
    cases = []
    cfg = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)

    def run(op, inputs, attrs, out_types, label):
        nd = node_def(op, attrs)
        c = {"op": op, "label": label, "inputs": [proto_b64(tf.make_tensor_proto(a)) for a in inputs],
             "attrs": base64.b64encode(nd.SerializeToString(deterministic=True)).decode()}
        g = tf.Graph()
        with g.as_default():
            ins = [tf.constant(a) for a in inputs]
            node = g.create_op(op, ins, out_types, name="n", attrs=dict(nd.attr))
            try:
                with tf.compat.v1.Session(graph=g, config=cfg) as sess:
                    outs = sess.run(node.outputs)
                for i in UNWRITTEN.get(op, ()):
                    outs[i] = np.zeros_like(outs[i])  # oneDNN's workspace: allocator contents
                c["outputs"] = [proto_b64(tf.make_tensor_proto(o)) for o in outs]
            except tf.errors.OpError as e:
                lines = [ln for ln in str(e.message).split("\n") if ln and not ln[0].isspace()
                         and not ln.startswith(("Graph execution error", "Detected at node", "Node: "))]
                msg = (lines or [""])[0]
                # No kernel: the layout pass leaves what oneDNN does not
                # fuse to the NoOp (no output), or the kernel refuses it.
                if "Missing 0-th output" in msg or "Fusion is not implemented" in msg \
                        or "must have one extra argument" in msg:
                    return
                c["error"] = msg[:300]
        cases.append(c)

    f32 = np.float32
    img = rng.uniform(-3, 3, (2, 7, 6, 3)).astype(f32)
    dw = rng.uniform(-1, 1, (3, 3, 3, 2)).astype(f32)
    vol = rng.uniform(-3, 3, (1, 4, 5, 4, 3)).astype(f32)
    w3 = rng.uniform(-1, 1, (2, 2, 3, 3, 4)).astype(f32)
    for ops, n in FUSED_EPILOGUES:
        lab = "+".join(ops)

        def args(c, out_shape):
            if ops[0] == "FusedBatchNorm":
                return [rng.uniform(0.5, 1.5, c).astype(f32), rng.uniform(-1, 1, c).astype(f32),
                        rng.uniform(-1, 1, c).astype(f32), rng.uniform(0.5, 2, c).astype(f32)]
            out = [rng.uniform(-3, 3, c).astype(f32)]
            if n == 2:
                out.append(rng.uniform(-3, 3, out_shape).astype(f32))
            return out

        for s, pad in ((1, "SAME"), (2, "VALID")):
            oh, ow = ((7 + s - 1) // s, (6 + s - 1) // s) if pad == "SAME" else ((7 - 3) // s + 1, (6 - 3) // s + 1)
            run("_FusedDepthwiseConv2dNative", [img, dw] + args(6, (2, oh, ow, 6)),
                {"T": tf.float32, "num_args": n, "strides": [1, s, s, 1], "padding": pad, "fused_ops": ops,
                 "epsilon": 0.001}, [tf.float32], "%s %s s%d" % (lab, pad, s))
        run("_FusedConv3D", [vol, w3] + args(4, (1, 4, 5, 4, 4)),
            {"T": tf.float32, "num_args": n, "strides": [1, 1, 1, 1, 1], "padding": "SAME", "fused_ops": ops,
             "epsilon": 0.001}, [tf.float32], lab)
    x = rng.uniform(-3, 3, (2, 3, 5, 4)).astype(f32)
    side = rng.uniform(-3, 3, (2, 3, 5, 4)).astype(f32)
    p = [rng.uniform(0.5, 1.5, 4), rng.uniform(-1, 1, 4), rng.uniform(-1, 1, 4), rng.uniform(0.5, 2, 4)]
    p = [a.astype(f32) for a in p]
    for act in ("Identity", "Relu"):
        for n_side in (0, 1):
            run("_FusedBatchNormEx", [x] + p + ([side] if n_side else []),
                {"T": tf.float32, "U": tf.float32, "epsilon": 0.001, "is_training": False,
                 "num_side_inputs": n_side, "activation_mode": act}, [tf.float32] * 6,
                "inference %s side %d" % (act, n_side))
        empty = np.zeros([0], f32)
        run("_FusedBatchNormEx", [x, p[0], p[1], empty, empty],
            {"T": tf.float32, "U": tf.float32, "epsilon": 0.001, "is_training": True, "activation_mode": act},
            [tf.float32] * 6, "training %s" % act)
    # Conv2DBackpropFilter with dilations: the stock CPU kernel refuses
    # them (the extra family's "d2" cases); oneDNN's, which the layout pass
    # puts in its place in TensorFlow's default x86 build, computes them, as
    # the GPU kernel does. A generator of its own, so that the cases above
    # keep their inputs.
    r2 = np.random.RandomState(seed + 1)
    xd = r2.uniform(-1, 1, (2, 7, 6, 3)).astype(f32)
    for pad, d, s in (("VALID", 2, 1), ("SAME", 2, 1), ("SAME", 3, 2), ("VALID", 2, 2)):
        ke = 2 * d + 1
        oh, ow = ((7 + s - 1) // s, (6 + s - 1) // s) if pad == "SAME" else ((7 - ke) // s + 1, (6 - ke) // s + 1)
        dy = r2.uniform(-1, 1, (2, oh, ow, 4)).astype(f32)
        run("Conv2DBackpropFilter", [xd, np.array([3, 3, 3, 4], np.int32), dy],
            {"T": tf.float32, "strides": [1, s, s, 1], "padding": pad, "dilations": [1, d, d, 1]}, [tf.float32],
            "%s s%d d%d" % (pad, s, d))
    with open(path, "w") as fh:
        json.dump(cases, fh)


FAMILIES = [
    ("unary", unary),
    ("binary", binary),
    ("cast", cast),
    ("reduce", reduce),
    ("linalg", linalg),
    ("nn", nn),
    ("array", array),
    ("state", state),
    ("tables", tables),
    ("strings", strings),
    ("lists", lists),
    ("complex", complex_),
    ("shape", shape),
    ("layout", layout),
    ("matrix", matrix),
    ("segment", segment),
    ("scatter", scatter),
    ("image", image),
    ("pool3d", pool3d),
    ("normmath", normmath),
    ("fused", fused),
    ("random", random),
    ("onednn", onednn),
    ("extra", extra),
]


def main():
    if len(sys.argv) == 4 and sys.argv[1] == ONEDNN_CHILD:
        onednn_child(sys.argv[2], int(sys.argv[3]))
        return 0
    if len(sys.argv) != 2:
        print("usage: kernel_goldens.py OUT_DIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    tf.config.experimental.enable_op_determinism()
    only = os.environ.get("KERNEL_GOLDENS_ONLY", "")
    for i, (name, gen) in enumerate(FAMILIES):
        if only and name not in only.split(","):
            continue
        fam = Family(name)
        # The first seven families are seeded by position; later ones by
        # name, so that adding a family leaves every other's goldens as
        # they are.
        seed = 1000 + i if i < 7 else zlib.crc32(name.encode())
        gen(fam, np.random.RandomState(seed))
        fam.write(out)
        print("%s: %d cases" % (name, len(fam.cases)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
