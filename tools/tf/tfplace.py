"""TensorFlow's own placement of a model on a fake device, as data.

    tfplace.py MODEL --pack NAME|FILE|PLUGIN.so [--no-soft-placement]
               [--clear-devices] [--signature KEY] [--fetch NAME]...
               [--inputs in.npz] [--grappler] -o placement.json

MODEL is a SavedModel directory, a GraphDef or a MetaGraphDef (binary or
text), or a TF.js graph model (model.json or its directory: the GraphDef it
holds, with its weights as Const values). The pack's fake PluggableDevice (tools/fakedevice, built on demand
into out/fakedevice/) is loaded into the pinned TensorFlow, the model into a
tf.compat.v1.Session with log_device_placement (a SavedModel's meta graph
imported, its variables not restored: fake kernels make no ref outputs),, and one step runs with
RunOptions.output_partition_graphs. The result is written as JSON:

    {"tf_version", "pack", "device_type", "source_type", "soft_placement",
     "nodes": {path: device}, "log_names": {TF name: path},
     "unmapped": {TF name: device},
     "partitions": N | null, "cut_edges": ["src:out -> DEVICE"...] | null,
     "step": {"nodes", "edges", "feeds", "fetches"} | absent,
     "run_error": null | msg, "error": null | "TensorFlow's message"}

nodes are every node TensorFlow's placer logged, by tfscan's path (graph/
paths.go): a top-level node by its name, a node of a function that
TensorFlow inlined at placement ("call/node") by "call/FUNCTION/node";
log_names maps each logged name to that path. cut_edges name a fed tensor
by its name (the client's _arg_ node stands for it). step is the session
step as DirectSession prunes it (step_of), from which the conformance test
derives partitions and cut edges where the step does not finish.
unmapped holds the logged nodes that are not a node of the model (those
TensorFlow adds when it inlines a call, and function bodies instantiated at
run time, whose logged names carry no caller). Devices are short
("CPU:0", "TFSCAN_MUSA:0").

What is real: TensorFlow's import, its placer and partitioner, and its
kernel registry with the pack's kernels on the fake device. What is not: the
fake kernels' numbers (they give outputs of the right dtype, shaped as an
input), so a step whose control flow or shapes depend on values may fail
after placement: run_error says why, and partitions and cut_edges are null
(a failed step returns no partition graphs); where a fetch run on its own
misses a kernel at run time, that is the step's error (first_refusal), as on
a real device, whatever else failed first. Grappler is off unless
--grappler: it rewrites the graph after placement, which tfscan's placement
does not simulate.

Exit codes: 0 TensorFlow placed the model; 1 TensorFlow refused to place it
(its message in "error"); 2 usage; 3 a model TensorFlow cannot read; 4 no
TensorFlow or no plugin (the reason on stderr). The output file is written
whole (by rename) for exit 0 and 1, and not at all otherwise.
"""

import argparse
import ctypes
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

EXIT_PLACED, EXIT_REFUSED, EXIT_USAGE, EXIT_INPUT, EXIT_ENV = 0, 1, 2, 3, 4

# TensorFlow's placement refusals: the placer (placer.cc, colocation_graph.cc)
# and the kernel lookup of a node it placed (op_kernel.cc).
REFUSAL = re.compile(
    r"Cannot assign a device for operation|Could not satisfy (explicit )?device specification|"
    r"No OpKernel was registered to support Op|No registered '[^']*' OpKernel for|"
    r"Cannot colocate nodes|was explicitly assigned to")

LOG_LINE = re.compile(r"^(\S+): \((\S+)\): /job:[^/]+/replica:\d+/task:\d+/device:(\S+)$")


class Fail(Exception):
    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code


def parse_args(argv):
    p = argparse.ArgumentParser(prog="tfplace", description="TensorFlow's placement of MODEL on a pack's fake device")
    p.add_argument("model")
    p.add_argument("--pack", required=True, help="built-in pack name, pack or dump file, or a built plugin .so")
    p.add_argument("--no-soft-placement", action="store_true")
    p.add_argument("--clear-devices", action="store_true")
    p.add_argument("--signature", default="")
    p.add_argument("--fetch", action="append", default=[])
    p.add_argument("--inputs", default="")
    p.add_argument("--grappler", action="store_true", help="leave grappler on (off by default)")
    p.add_argument("--log", default="", help="also write TensorFlow's log_device_placement lines to this file")
    p.add_argument("-o", "--output", required=True)
    try:
        return p.parse_args(argv)
    except SystemExit as e:
        sys.exit(EXIT_USAGE if e.code else 0)


def plugin_for(pack):
    """The plugin .so and its description for pack, built when missing."""
    if pack.endswith(".so"):
        so = pack
    else:
        out = os.environ.get("TFSCAN_FAKEDEVICE_DIR", os.path.join(ROOT, "out", "fakedevice"))
        if os.path.isfile(pack):
            with open(pack, "rb") as f:
                out = os.path.join(out, hashlib.sha256(f.read()).hexdigest()[:16])
        built = [n for n in os.listdir(out) if n.endswith(".so")] if os.path.isdir(out) else []
        name = os.path.basename(pack) if not os.path.isfile(pack) else None
        so = os.path.join(out, name + ".so") if name else (os.path.join(out, built[0]) if len(built) == 1 else "")
        if not so or not os.path.exists(so):
            r = subprocess.run([os.path.join(ROOT, "tools", "fakedevice", "build.sh"), pack, out],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "build failed"
                raise Fail(EXIT_USAGE if r.returncode == 2 else EXIT_INPUT if r.returncode == 3 else EXIT_ENV,
                           "tfplace: --pack %s: %s" % (pack, msg))
            if not name:
                so = os.path.join(out, [n for n in os.listdir(out) if n.endswith(".so")][0])
    desc = so[:-3] + ".json"
    if not os.path.exists(so) or not os.path.exists(desc):
        raise Fail(EXIT_USAGE, "tfplace: --pack %s: no plugin %s with %s beside it" % (pack, so, desc))
    with open(desc) as f:
        return os.path.abspath(so), json.load(f)


def read_model(path, tf):
    """(kind, proto): kind is saved_model, graph_def or meta_graph."""
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2
    from tensorflow.core.protobuf import meta_graph_pb2, saved_model_pb2
    if os.path.isdir(path) and os.path.exists(os.path.join(path, "model.json")):
        path = os.path.join(path, "model.json")
    if path.endswith(".json"):
        return read_tfjs(path)
    if os.path.isdir(path):
        for name, text in (("saved_model.pb", False), ("saved_model.pbtxt", True)):
            f = os.path.join(path, name)
            if os.path.exists(f):
                sm = saved_model_pb2.SavedModel()
                with open(f, "rb") as fh:
                    data = fh.read()
                try:
                    text_format.Parse(data, sm) if text else sm.ParseFromString(data)
                except Exception as e:
                    raise Fail(EXIT_INPUT, "tfplace: %s: not a SavedModel: %s" % (f, first_line(e)))
                if not sm.meta_graphs:
                    raise Fail(EXIT_INPUT, "tfplace: %s: a SavedModel without meta graphs" % f)
                return "saved_model", sm
        files = [f for f in sorted(os.listdir(path)) if os.path.isfile(os.path.join(path, f)) and not f.startswith(".")
                 and f.rsplit(".", 1)[-1] in ("pb", "pbtxt", "txt", "meta")]
        if len(files) != 1:
            raise Fail(EXIT_INPUT, "tfplace: %s: a directory without saved_model.pb(txt) or one graph file" % path)
        path = os.path.join(path, files[0])
    return read_graph_file(path)


# TF.js op names TensorFlow spells otherwise (savedmodel/tfjs.go).
TFJS_RENAMES = {"FusedDepthwiseConv2dNative": "_FusedDepthwiseConv2dNative"}


def read_tfjs(path):
    """A TF.js graph model (model.json) as TensorFlow reads it: its
    modelTopology is a GraphDef in proto JSON, its signature a SignatureDef
    (under serving_default, as tfscan takes it); the weights become the
    Const values they stand for, dequantized. TensorFlow has no loader of
    its own for the format."""
    import numpy as np
    from google.protobuf import json_format
    from tensorflow.core.framework import graph_pb2
    from tensorflow.core.protobuf import meta_graph_pb2
    from tensorflow.python.framework import tensor_util
    try:
        with open(path) as f:
            mj = json.load(f)
        gd = json_format.ParseDict(mj["modelTopology"], graph_pb2.GraphDef(), ignore_unknown_fields=True)
    except (OSError, ValueError, KeyError, json_format.ParseError) as e:
        raise Fail(EXIT_INPUT, "tfplace: %s: not a TF.js graph model: %s" % (path, first_line(e)))
    for fn in [gd.node] + [f.node_def for f in gd.library.function]:
        for n in fn:
            n.op = TFJS_RENAMES.get(n.op, n.op)
            if n.op.startswith("_Fused") and "TArgs" not in n.attr and "T" in n.attr:
                # model.json leaves out the fused ops' TArgs (the types of
                # the extra arguments, each T), which their OpDef requires.
                k = n.attr["num_args"].i if "num_args" in n.attr else len([i for i in n.input if not i.startswith("^")]) - 2
                n.attr["TArgs"].list.type.extend([n.attr["T"].type] * max(k, 0))
    consts = {n.name: n for n in gd.node}
    base = os.path.dirname(path)
    sizes = {"float32": 4, "int32": 4, "bool": 1, "float16": 2, "uint8": 1, "uint16": 2, "int8": 1}
    try:
        for group in mj.get("weightsManifest", []):
            data = b"".join(open(os.path.join(base, p), "rb").read() for p in group["paths"])
            off = 0
            for w in group["weights"]:
                shape = w.get("shape", [])
                count = int(np.prod(shape)) if shape else 1
                q = w.get("quantization")
                if w["dtype"] == "string":
                    raise ValueError("string weights are not read")
                dt = q["dtype"] if q else w["dtype"]
                raw = np.frombuffer(data, dtype=np.dtype(dt if dt != "bool" else "uint8"), count=count, offset=off)
                off += count * sizes[dt]
                if q and dt == "float16":
                    arr = raw.astype(np.float32)
                elif q:
                    arr = (raw.astype(np.float32) * q["scale"] + q["min"]).astype(np.float32)
                else:
                    arr = raw.astype(np.bool_) if w["dtype"] == "bool" else raw
                n = consts.get(w["name"])
                if n is not None and n.op == "Const":
                    n.attr["value"].tensor.CopyFrom(tensor_util.make_tensor_proto(arr.reshape(shape)))
    except (OSError, ValueError, KeyError) as e:
        raise Fail(EXIT_INPUT, "tfplace: %s: the weights do not read: %s" % (path, first_line(e)))
    sig = mj.get("signature")
    if sig:
        mg = meta_graph_pb2.MetaGraphDef()
        mg.graph_def.CopyFrom(gd)
        json_format.ParseDict(sig, mg.signature_def["serving_default"], ignore_unknown_fields=True)
        return "meta_graph", mg
    return "graph_def", gd


def read_graph_file(path):
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2
    from tensorflow.core.protobuf import meta_graph_pb2
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        raise Fail(EXIT_INPUT, "tfplace: %s: %s" % (path, e.strerror))
    errors = []
    for cls, kind in ((meta_graph_pb2.MetaGraphDef, "meta_graph"), (graph_pb2.GraphDef, "graph_def")):
        for text in (False, True):
            m = cls()
            try:
                text_format.Parse(data, m) if text else m.ParseFromString(data)
            except Exception as e:
                errors.append(first_line(e))
                continue
            if kind == "meta_graph" and m.graph_def.node:
                return kind, m
            if kind == "graph_def" and m.node:
                return kind, m
    raise Fail(EXIT_INPUT, "tfplace: %s: neither a GraphDef nor a MetaGraphDef (binary or text)" % path)


def one_line(msg):
    """TensorFlow's message on one line, without the creation traceback."""
    return " ".join(clean_message(msg).split())


def first_line(e):
    s = str(e).strip()
    return s.splitlines()[0] if s else type(e).__name__


def call_targets(graph_def, library):
    """{node name: function name} for the function-calling nodes of a graph."""
    names = {f.signature.name for f in library.function}
    out = {}
    for n in graph_def.node:
        if n.op in names:
            out[n.name] = n.op
        elif n.op in ("PartitionedCall", "StatefulPartitionedCall") and "f" in n.attr:
            out[n.name] = n.attr["f"].func.name
    return out


class Namer:
    """TensorFlow's names of placed nodes as tfscan paths."""

    def __init__(self, graph_def, library):
        self.lib = {f.signature.name: f for f in library.function}
        self.top = {n.name for n in graph_def.node}
        self.calls = call_targets(graph_def, library)
        self.fcache = {}

    def body(self, fname):
        if fname not in self.fcache:
            f = self.lib[fname]
            gd = type_graph_def()
            gd.node.extend(f.node_def)
            self.fcache[fname] = ({n.name for n in f.node_def}, call_targets(gd, self.libproto()))
        return self.fcache[fname]

    def libproto(self):
        from tensorflow.core.framework import function_pb2
        lib = function_pb2.FunctionDefLibrary()
        lib.function.extend(self.lib.values())
        return lib

    def path(self, name, nodes=None, calls=None, depth=0):
        nodes = self.top if nodes is None else nodes
        calls = self.calls if calls is None else calls
        if name in nodes:
            return name
        if depth > 32:
            return None
        parts = name.split("/")
        for i in range(len(parts) - 1, 0, -1):
            caller = "/".join(parts[:i])
            f = calls.get(caller)
            if f and f in self.lib:
                bn, bc = self.body(f)
                rest = self.path("/".join(parts[i:]), bn, bc, depth + 1)
                if rest is not None:
                    return caller + "/" + f + "/" + rest
        return None


def type_graph_def():
    from tensorflow.core.framework import graph_pb2
    return graph_pb2.GraphDef()


def zeros_for(dtype, shape, np, tf):
    dims = [d if d is not None and d >= 0 else 1 for d in shape] if shape is not None else []
    dt = tf.as_dtype(dtype)
    if dt == tf.string:
        return np.full(dims, b"", dtype=object)
    return np.zeros(dims, dtype=dt.as_numpy_dtype)


def ancestors(graph_def, names):
    by = {n.name: n for n in graph_def.node}
    seen, stack = set(), [s.split(":")[0].lstrip("^") for s in names]
    while stack:
        n = stack.pop()
        if n in seen or n not in by:
            continue
        seen.add(n)
        stack.extend(i.split(":")[0].lstrip("^") for i in by[n].input)
    return [by[n] for n in seen]


def possible_outputs(graph_def):
    """summarize_graph's outputs (graph/outputs.go)."""
    consumed = set()
    for n in graph_def.node:
        for i in n.input:
            consumed.add(i.lstrip("^").split(":")[0])
    return [n.name for n in graph_def.node
            if n.name not in consumed and n.op not in ("Const", "Assign", "NoOp", "Placeholder")]


def short(device):
    m = re.search(r"device:([A-Za-z_]+:\d+)$", device)
    return m.group(1) if m else device


def run(args, plugin=None, rawlog=None):
    so, desc = plugin or plugin_for(args.pack)
    logf = open(rawlog, "w+b") if rawlog else tempfile.TemporaryFile(mode="w+b")
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(logf.fileno(), 1)
    line_buffered()
    try:
        return place(args, so, desc, logf)
    finally:
        try:
            ctypes.CDLL(None).fflush(None)
        except OSError:
            pass
        os.dup2(saved, 1)


def line_buffered():
    """Makes C's stdout, where TensorFlow logs placements, line-buffered,
    so that the log survives a step that aborts the process."""
    try:
        libc = ctypes.CDLL(None)
        libc.setvbuf(ctypes.c_void_p.in_dll(libc, "stdout"), None, 1, 0)  # _IOLBF
    except (OSError, ValueError):
        pass


def place(args, so, desc, logf):
    os.environ["TF_PLUGGABLE_DEVICE_LIBRARY_PATH"] = so
    try:
        import numpy as np
        import tensorflow as tf
    except Exception as e:  # the plugin aborts TensorFlow's start or TF is missing
        raise Fail(EXIT_ENV, "tfplace: cannot import tensorflow with %s: %s" % (so, first_line(e)))
    if not any(d.device_type == desc["device_type"] for d in tf.config.list_physical_devices()):
        raise Fail(EXIT_ENV, "tfplace: TensorFlow did not register device type %s from %s" % (desc["device_type"], so))
    kind, proto = read_model(args.model, tf)
    tf.compat.v1.disable_eager_execution()
    config = tf.compat.v1.ConfigProto(allow_soft_placement=not args.no_soft_placement, log_device_placement=True)
    if not args.grappler:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
    result = {"tf_version": tf.__version__, "pack": desc["pack"], "device_type": desc["device_type"],
              "source_type": desc["source_type"], "soft_placement": not args.no_soft_placement,
              "nodes": {}, "log_names": {}, "unmapped": {}, "partitions": None, "cut_edges": None, "run_error": None, "error": None}
    feeds_npz = {}
    if args.inputs:
        try:
            feeds_npz = dict(np.load(args.inputs, allow_pickle=False))
        except Exception as e:
            raise Fail(EXIT_INPUT, "tfplace: %s: %s" % (args.inputs, first_line(e)))

    graph = tf.Graph()
    sess = tf.compat.v1.Session(graph=graph, config=config)
    feeds, fetches = {}, []
    try:
        with graph.as_default():
            try:
                if kind == "saved_model":
                    mg = pick_meta_graph(proto, args)
                    gd, library = mg.graph_def, mg.graph_def.library
                    sig = pick_signature(mg, args)
                    # The graph only: a restore would run the fake kernels of
                    # the variables, which cannot make ref outputs.
                    tf.compat.v1.train.import_meta_graph(mg, clear_devices=args.clear_devices)
                else:
                    if kind == "meta_graph":
                        gd = proto.graph_def
                        tf.compat.v1.train.import_meta_graph(proto, clear_devices=args.clear_devices)
                        sig = pick_signature(proto, args) if proto.signature_def else None
                    else:
                        gd = proto
                        if args.clear_devices:
                            for n in gd.node:
                                n.device = ""
                        tf.compat.v1.import_graph_def(gd, name="")
                        sig = None
                    library = gd.library
            except tf.errors.OpError as e:
                if REFUSAL.search(e.message):
                    raise Refused(e.message)
                raise Fail(EXIT_INPUT, "tfplace: %s: TensorFlow cannot load it: %s" % (args.model, one_line(e.message)))
            except (ValueError, TypeError, KeyError, ImportError) as e:
                raise Fail(EXIT_INPUT, "tfplace: %s: TensorFlow cannot load it: %s" % (args.model, first_line(e)))
            if args.fetch:
                fetches = args.fetch
            elif sig is not None:
                fetches = [t.name for _, t in sorted(sig.outputs.items())]
            else:
                fetches = possible_outputs(gd)
            if sig is not None and not args.fetch:
                for key, t in sorted(sig.inputs.items()):
                    shape = None if t.tensor_shape.unknown_rank else [d.size for d in t.tensor_shape.dim]
                    feeds[tensor(t.name)] = feeds_npz.get(key, feeds_npz.get(t.name, zeros_for(t.dtype, shape, np, tf)))
            else:
                for n in ancestors(gd, fetches):
                    if n.op in ("Placeholder", "PlaceholderV2"):
                        shape = None
                        if "shape" in n.attr and not n.attr["shape"].shape.unknown_rank:
                            shape = [d.size for d in n.attr["shape"].shape.dim]
                        name = n.name + ":0"
                        feeds[name] = feeds_npz.get(n.name, feeds_npz.get(name, zeros_for(n.attr["dtype"].type, shape, np, tf)))
            result["step"] = step_of(gd, list(feeds), fetches)
            try:
                fetch_ops = [graph.as_graph_element(f) for f in fetches]
            except (KeyError, ValueError) as e:
                raise Fail(EXIT_USAGE, "tfplace: --fetch: %s" % first_line(e))
            md = tf.compat.v1.RunMetadata()
            opts = tf.compat.v1.RunOptions(output_partition_graphs=True)
            try:
                sess.run(fetch_ops, feed_dict={graph.as_graph_element(k): v for k, v in feeds.items()},
                         options=opts, run_metadata=md)
                result["partitions"] = len(md.partition_graphs)
                result["cut_edges"] = feeds_named(cut_edges(md.partition_graphs), feeds)
            except tf.errors.OpError as e:
                if REFUSAL.search(e.message):
                    raise Refused(e.message)
                refusal = first_refusal(sess, graph, fetch_ops, feeds, tf)
                if refusal:
                    raise Refused(refusal)
                result["run_error"] = one_line(e.message)
    except Refused as r:
        result["error"] = r.message
    finally:
        sess.close()
    ctypes.CDLL(None).fflush(None)
    logf.seek(0)
    text = logf.read().decode("utf-8", "replace")
    result["_log"] = "".join(l + "\n" for l in text.splitlines() if LOG_LINE.match(l.strip()))
    namer = Namer(gd, library) if "gd" in locals() else None
    name_nodes(result, text, namer)
    return result


def name_nodes(result, text, namer):
    """Maps the cut edges and the logged placements to tfscan's paths."""
    if namer and result["cut_edges"]:
        mapped = set()
        for e in result["cut_edges"]:
            src, dst = e.split(" -> ")
            node, out = src.rsplit(":", 1)
            mapped.add("%s:%s -> %s" % (namer.path(node) or node, out, dst))
        result["cut_edges"] = sorted(mapped)
    for line in text.splitlines():
        m = LOG_LINE.match(line.strip())
        if not m:
            continue
        name, device = m.group(1), m.group(3)
        path = namer.path(name) if namer else None
        if path is None:
            result["unmapped"].setdefault(name, device)
        else:
            result["nodes"].setdefault(path, device)
            result["log_names"].setdefault(name, path)


class Refused(Exception):
    def __init__(self, message):
        super().__init__(message)
        self.message = clean_message(message)


def clean_message(msg):
    """TensorFlow's message without what differs between runs: the Python
    traceback of the node's creation and the run's step id."""
    msg = msg.split("\n\nOriginal stack trace")[0]
    msg = msg.split("\n\nErrors may have originated")[0]
    return msg.strip()


def pick_meta_graph(sm, args):
    for mg in sm.meta_graphs:
        if "serve" in mg.meta_info_def.tags:
            return mg
    return sm.meta_graphs[0]


def pick_signature(mg, args):
    if args.signature:
        if args.signature not in mg.signature_def:
            raise Fail(EXIT_USAGE, "tfplace: --signature %s: the model has %s" % (
                args.signature, ", ".join(sorted(mg.signature_def)) or "no signatures"))
        return mg.signature_def[args.signature]
    for key in ("serving_default",):
        if key in mg.signature_def:
            return mg.signature_def[key]
    if mg.signature_def:
        return mg.signature_def[sorted(mg.signature_def)[0]]
    return None


def cut_edges(partitions):
    """Every tensor a _Send carries from one device to another, as
    "src:out -> DEVICE" (DEVICE short), sorted."""
    out = set()
    for g in partitions:
        for n in g.node:
            if n.op in ("_Send", "_HostSend"):
                src = n.input[0] if n.input else "?"
                if ":" not in src:
                    src += ":0"
                out.add("%s -> %s" % (src, short(n.attr["recv_device"].s.decode())))
    return sorted(out)


def tensor(name):
    return name if ":" in name else name + ":0"


# FETCH_TIMEOUT_MS bounds each run of first_refusal: a fetch run on its own
# can wait for what the failed step never fed it (a queue, a reader).
FETCH_TIMEOUT_MS = 20000


def first_refusal(sess, graph, fetch_ops, feeds, tf):
    """The first kernel a fetch of a failed step misses at run time, each
    fetch run on its own in order (each at most FETCH_TIMEOUT_MS); None when
    none does.

    A step can fail in several places at once: a fake kernel's output failing
    a real kernel's check (which no real device would meet), and a kernel
    missing in a function body that a branch runs (which a real device meets
    too). Which failure TensorFlow reports first depends on its threads; the
    missing kernel is reported whenever one is there, so the same step gives
    the same answer in every run.
    """
    feed_dict = {graph.as_graph_element(k): v for k, v in feeds.items()}
    opts = tf.compat.v1.RunOptions(timeout_in_ms=FETCH_TIMEOUT_MS)
    for f in fetch_ops:
        try:
            sess.run(f, feed_dict=feed_dict, options=opts)
        except tf.errors.OpError as e:
            if REFUSAL.search(e.message):
                return e.message
    return None


def step_of(graph_def, feeds, fetches):
    """The session graph's step as DirectSession prunes it (subgraph.cc:
    the ancestors of the fetches, a fed tensor read from the feed): its
    nodes, its edges ["src:port" or "^src", dst], its feeds and its fetched
    tensors (a fetch by node name is a target). The conformance test derives
    partitions and cut edges from it and a placement."""
    by = {n.name: n for n in graph_def.node}
    fed = {tensor(f) for f in feeds}
    seen, edges, stack, fetched = set(), [], [], []
    for f in fetches:
        if ":" in f:
            fetched.append(f)
        stack.append(f.split(":")[0])
    while stack:
        n = stack.pop()
        if n in seen or n not in by:
            continue
        seen.add(n)
        for i in by[n].input:
            if i.startswith("^"):
                edges.append([i, n])
                stack.append(i[1:])
                continue
            t = tensor(i)
            edges.append([t, n])
            if t not in fed:
                stack.append(t.split(":")[0])
    return {"nodes": sorted(seen), "edges": sorted(edges), "feeds": sorted(fed), "fetches": sorted(fetched)}


def feeds_named(edges, feeds):
    """Cut edges with the client's feed arguments (_arg_NAME_PORT_I) by
    the fed tensor's name (NAME:PORT)."""
    out = set()
    for e in edges:
        src, dst = e.split(" -> ")
        node = src.rsplit(":", 1)[0]
        for f in feeds:
            prefix = "_arg_" + tensor(f).replace(":", "_") + "_"
            if node.startswith(prefix) and node[len(prefix):].isdigit():
                src = tensor(f)
        out.add(src + " -> " + dst)
    return sorted(out)


def write(path, result):
    data = json.dumps(result, indent=1, sort_keys=True) + "\n"
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(data)
    os.replace(tmp, path)


def one(args, plugin=None, rawlog=None):
    """Runs one placement and writes its file; returns the exit code."""
    try:
        result = run(args, plugin, rawlog)
    except Fail as f:
        print(str(f), file=sys.stderr)
        return f.code, str(f)
    return finish(args, result)


def aborted(args, plugin, rawlog):
    """The placement of a job whose step aborted the process (a fake
    kernel's output failing a real kernel's CHECK): the placer had logged
    its devices, which rawlog kept; the step gave no partition graphs."""
    so, desc = plugin
    os.environ["TF_PLUGGABLE_DEVICE_LIBRARY_PATH"] = so
    import tensorflow as tf
    with open(rawlog, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    kind, proto = read_model(args.model, tf)
    sig = None
    if kind == "saved_model":
        mg = pick_meta_graph(proto, args)
        gd, sig = mg.graph_def, pick_signature(mg, args)
    elif kind == "meta_graph":
        gd = proto.graph_def
        sig = pick_signature(proto, args) if proto.signature_def else None
    else:
        gd = proto
    result = {"tf_version": tf.__version__, "pack": desc["pack"], "device_type": desc["device_type"],
              "source_type": desc["source_type"], "soft_placement": not args.no_soft_placement,
              "nodes": {}, "log_names": {}, "unmapped": {}, "partitions": None, "cut_edges": None,
              "run_error": "TensorFlow aborted the process during the step, after placement (a fake kernel's output failed a real kernel's check)",
              "error": None}
    result["_log"] = "".join(l + "\n" for l in text.splitlines() if LOG_LINE.match(l.strip()))
    fetches = args.fetch or ([t.name for _, t in sorted(sig.outputs.items())] if sig is not None else possible_outputs(gd))
    if sig is not None and not args.fetch:
        feeds = [tensor(t.name) for _, t in sorted(sig.inputs.items())]
    else:
        feeds = [n.name + ":0" for n in ancestors(gd, fetches) if n.op in ("Placeholder", "PlaceholderV2")]
    result["step"] = step_of(gd, feeds, fetches)
    name_nodes(result, text, Namer(gd, gd.library))
    return finish(args, result)


def finish(args, result):
    log = result.pop("_log")
    if args.log:
        with open(args.log + ".tmp", "w") as f:
            f.write(log)
        os.replace(args.log + ".tmp", args.log)
    result["nodes"] = {k: short(v) for k, v in sorted(result["nodes"].items())}
    result["unmapped"] = {k: short(v) for k, v in sorted(result["unmapped"].items())}
    result["log_names"] = dict(sorted(result["log_names"].items()))
    write(args.output, result)
    return (EXIT_REFUSED if result["error"] else EXIT_PLACED), None


def main(argv):
    if argv[:1] == ["--batch"]:
        return batch(argv[1:])
    args = parse_args(argv)
    return one(args)[0]


def batch(argv):
    """--batch PACK JOBS.json: the placements of a list of jobs
    ({"model", "output", "no_soft_placement", "clear_devices", "fetch"}) on
    one pack in one process (TensorFlow starts once); each job's exit code
    and message go to its output + ".exit", TensorFlow's placement log to
    its output + ".log". A job with an ".exit" is skipped, so a batch whose
    process a step aborted is run again: the aborting job's placement is
    then read from the log it left (output + ".rawlog")."""
    if len(argv) != 2:
        print("usage: tfplace.py --batch PACK JOBS.json", file=sys.stderr)
        return EXIT_USAGE
    try:
        plugin = plugin_for(argv[0])
    except Fail as f:
        print(str(f), file=sys.stderr)
        return f.code
    with open(argv[1]) as f:
        jobs = json.load(f)
    for j in jobs:
        args = parse_args([j["model"], "--pack", argv[0], "-o", j["output"], "--log", j["output"] + ".log"] +
                          (["--no-soft-placement"] if j.get("no_soft_placement") else []) +
                          (["--clear-devices"] if j.get("clear_devices") else []) +
                          sum((["--fetch", x] for x in j.get("fetch", [])), []))
        rawlog = j["output"] + ".rawlog"
        if os.path.exists(j["output"] + ".exit"):
            continue  # done by an earlier run of the batch
        if os.path.exists(rawlog):
            code, msg = aborted(args, plugin, rawlog)  # the job that aborted an earlier run
        else:
            code, msg = one(args, plugin, rawlog)
        write(j["output"] + ".exit", {"exit": code, "message": msg})
        os.remove(rawlog)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
