#!/usr/bin/env python3
"""Asks TensorFlow whether it imports or loads each model of a list.

Usage: import_verdict.py [LIST]   (LIST: a file, or stdin when absent or "-")

Each line of the list is a model path, optionally preceded by its format and
a tab ("graph_def\tpath"; the formats are tfscan's: graph_def,
graph_def_pbtxt, meta_graph, meta_graph_pbtxt, saved_model,
saved_model_pbtxt). Without a format the path decides: a directory or a
saved_model.pb(txt) is a SavedModel, *.meta a MetaGraphDef, *.pbtxt a text
GraphDef, anything else a binary GraphDef.

For each model and each TensorFlow API its format goes through, JSON lines
are printed on stdout as they happen (flushed), in the list's order:

  {"path": P, "format": F, "api": A, "status": "started"}
  {"path": P, "format": F, "api": A, "status": "accepted"}
  {"path": P, "format": F, "api": A, "status": "refused", "error": CLASS, "message": TEXT}

The APIs, tried in this order:

  graph_def   import_graph_def   tf.compat.v1.import_graph_def into a new graph
              session            a tf.compat.v1.Session over that graph runs a
                                 NoOp added to it and fetches every Const
                                 without inputs: the session imports the
                                 whole graph again (as a session does, not as
                                 import_graph_def does), places it, builds the
                                 executor of the step and the Consts' kernels
                                 (which parse their tensors); no other node of
                                 the model runs. Tried only when the import
                                 succeeded.
  meta_graph  import_meta_graph  tf.compat.v1.train.import_meta_graph
  saved_model saved_model.load   tf.saved_model.load (TF2's loader)
              loader.load        tf.compat.v1.saved_model.loader.load into a
                                 session (TF1's loader), with the first meta
                                 graph's tags. Tried only when TF2's loader
                                 accepted: TF1's crashes on the recursive
                                 function libraries TF2's refuses, and a model
                                 one loader refuses is refused already.

A "started" line with no verdict after it is where TensorFlow crashed (a
CHECK failure or a stack overflow ends the process): the caller knows the
model and API from it and can go on with the next models in a new process.

TensorFlow's messages are kept whole up to 4000 characters; the Python
traceback is not printed. The process exits 0 when every model got its
verdicts, 2 when the list cannot be read.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import tensorflow as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow.core.framework import graph_pb2  # noqa: E402
from tensorflow.core.protobuf import meta_graph_pb2, saved_model_pb2  # noqa: E402

MAX_MESSAGE = 4000


def guess_format(path):
    base = os.path.basename(path)
    if os.path.isdir(path) or base == "saved_model.pb":
        return "saved_model"
    if base == "saved_model.pbtxt":
        return "saved_model_pbtxt"
    if base.endswith(".meta"):
        return "meta_graph"
    if base.endswith(".pbtxt"):
        return "graph_def_pbtxt"
    return "graph_def"


def failure(e):
    """The fields of a refusal: the exception's class and TensorFlow's message."""
    msg = getattr(e, "message", None)
    if msg is None:
        # ValueError("a", "b") prints as a tuple; KeyError('x') as 'x'.
        args = e.args
        msg = "".join(args) if args and all(isinstance(a, str) for a in args) and len(args) > 1 else str(e)
    return {"error": type(e).__name__, "message": msg[:MAX_MESSAGE]}


def read_proto(path, cls, text):
    msg = cls()
    if text:
        with open(path, "r", encoding="utf-8") as f:
            text_format.Parse(f.read(), msg)
    else:
        with open(path, "rb") as f:
            msg.ParseFromString(f.read())
    return msg


class Model:
    """One model of the list: prints what each API says about it."""

    def __init__(self, fmt, path):
        self.fmt, self.path = fmt, path

    def emit(self, api, **fields):
        rec = {"path": self.path, "format": self.fmt, "api": api}
        rec.update(fields)
        print(json.dumps(rec, sort_keys=True), flush=True)

    def attempt(self, api, fn):
        """Runs fn under api's name; True when TensorFlow accepted."""
        self.emit(api, status="started")
        try:
            fn()
        except Exception as e:  # TensorFlow raises ValueError, KeyError and its own errors
            self.emit(api, status="refused", **failure(e))
            return False
        self.emit(api, status="accepted")
        return True


def graph_def_apis(m, text):
    g = tf.Graph()

    def imp():
        gd = read_proto(m.path, graph_pb2.GraphDef, text)
        with g.as_default():
            tf.compat.v1.import_graph_def(gd, name="")

    def session():
        with g.as_default():
            # A NoOp of its own is a target that needs no feed. Running it
            # makes the session import the whole graph, place it and build
            # the executor of its step. Every Const without inputs is
            # fetched with it, so that its kernel parses its tensor (a Const
            # inside a v1 loop has a control input and is left out). No
            # other node of the model runs.
            consts = [op.outputs[0] for op in g.get_operations()
                      if op.type == "Const" and not op.inputs and not op.control_inputs]
            noop = tf.no_op(name="import_verdict_noop")
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run([noop] + consts)

    if m.attempt("import_graph_def", imp):
        m.attempt("session", session)


def meta_graph_apis(m, text):
    def imp():
        mg = read_proto(m.path, meta_graph_pb2.MetaGraphDef, text)
        with tf.Graph().as_default():
            tf.compat.v1.train.import_meta_graph(mg, clear_devices=True)

    m.attempt("import_meta_graph", imp)


def saved_model_apis(m, text):
    export_dir = m.path if os.path.isdir(m.path) else os.path.dirname(m.path) or "."

    def v2():
        tf.saved_model.load(export_dir)

    def v1():
        tags = ["serve"]
        name = "saved_model.pbtxt" if text else "saved_model.pb"
        sm = read_proto(os.path.join(export_dir, name), saved_model_pb2.SavedModel, text)
        if sm.meta_graphs:
            tags = list(sm.meta_graphs[0].meta_info_def.tags)
        with tf.compat.v1.Session(graph=tf.Graph()) as sess:
            tf.compat.v1.saved_model.loader.load(sess, tags, export_dir)

    # TF1's loader only after TF2's accepted: it crashes (a stack overflow)
    # on recursive function libraries, which TF2's loader refuses.
    if m.attempt("saved_model.load", v2):
        m.attempt("loader.load", v1)


APIS = {
    "graph_def": graph_def_apis,
    "meta_graph": meta_graph_apis,
    "saved_model": saved_model_apis,
}


def main(argv):
    src = argv[1] if len(argv) > 1 else "-"
    try:
        lines = (sys.stdin if src == "-" else open(src, encoding="utf-8")).read().splitlines()
    except OSError as e:
        print("import_verdict.py: %s: %s" % (src, e.strerror), file=sys.stderr)
        return 2
    for line in lines:
        if not line.strip():
            continue
        fmt, _, path = line.partition("\t")
        if not path:
            fmt, path = guess_format(line), line
        base = fmt[: -len("_pbtxt")] if fmt.endswith("_pbtxt") else fmt
        m = Model(fmt, path)
        if base not in APIS:
            m.emit("none", status="refused", error="UsageError",
                   message="format %r is not one TensorFlow loads" % fmt)
            continue
        APIS[base](m, fmt.endswith("_pbtxt"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
