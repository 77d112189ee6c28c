#!/usr/bin/env python3
"""Make real TensorFlow logs for tfscan's log parser (tflog) and `tfscan explain`.

    python3 tools/tf/make_logs.py OUTDIR

runs small models in the pinned TensorFlow (tools/tf/ensure.sh) so that
TensorFlow itself prints the messages tfscan reads, and writes, per case,
OUTDIR/CASE.log (everything the process printed while running the case:
TensorFlow's C++ log lines, log_device_placement's stdout, the Python
traceback a user sees) and the model the log is about (OUTDIR/CASE.pbtxt,
a GraphDef with the devices the code pinned, or OUTDIR/CASE/, a SavedModel).

Two TensorFlow processes run the cases (this script starts them with
--part):

  xla  XLA devices on (TF_XLA_FLAGS=--tf_xla_enable_xla_devices): XLA_CPU is
       a device type of the process with kernels for only some ops, which is
       what an accelerator is to a CPU-only machine; tensorflow_text is
       imported to export the custom-op model.
  cpu  a CPU-only process without tensorflow_text: it loads that model.

The models are built from fixed names and constants (seeded where random),
so the logs differ between runs only in timestamps, process ids, addresses,
host names and paths.
"""

import argparse
import contextlib
import ctypes
import os
import subprocess
import sys
import traceback

LIBC = ctypes.CDLL(None)


def flush_all():
    sys.stdout.flush()
    sys.stderr.flush()
    LIBC.fflush(None)


@contextlib.contextmanager
def captured(path):
    """Sends fds 1 and 2 (C++ and Python alike) to path for the block."""
    flush_all()
    saved = os.dup(1), os.dup(2)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        yield
    except Exception:  # what an uncaught exception prints
        sys.stderr.write(traceback.format_exc())
    finally:
        flush_all()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])


def unbuffered_stdout():
    """printf (log_device_placement's placer lines) and glog's stderr then
    reach the file in the order they are written, as on a terminal."""
    stdout = ctypes.c_void_p.in_dll(LIBC, "stdout")
    LIBC.setvbuf(stdout, None, 2, 0)  # _IONBF


def session_config(tf, soft, log):
    return tf.compat.v1.ConfigProto(allow_soft_placement=soft, log_device_placement=log)


def write_graph(tf, g, out, case):
    tf.io.write_graph(g.as_graph_def(), out, case + ".pbtxt", as_text=True)


# --- xla part ---------------------------------------------------------------


def explicit_device(tf, out):
    """The placer error: MatrixDeterminant pinned to XLA_CPU, which has no
    kernel for it, soft placement off (colocation_graph.cc:1311)."""
    case = "explicit_device"
    with captured(os.path.join(out, case + ".log")):
        g = tf.Graph()
        with g.as_default():
            x = tf.compat.v1.placeholder(tf.float32, [None, 3, 3], name="x")
            with tf.device("/device:XLA_CPU:0"):
                sq = tf.linalg.matmul(x, x, transpose_b=True, name="gram")
                det = tf.linalg.det(sq, name="det")
        write_graph(tf, g, out, case)
        with tf.compat.v1.Session(graph=g, config=session_config(tf, False, False)) as s:
            s.run(det, {x: [[[1, 2, 0], [0, 1, 0], [0, 0, 2]]]})


def amsgrad_graph(tf, step_device):
    """AMSGrad's update of a variable, the variables and their slots pinned
    to XLA_CPU (which has kernels for them but not for
    ResourceApplyAdamWithAmsgrad), the update to step_device."""
    g = tf.Graph()
    with g.as_default():
        with tf.device("/device:XLA_CPU:0"):
            var = tf.compat.v1.get_variable("w", initializer=tf.constant([1.0, 2.0]), use_resource=True)
            m = tf.compat.v1.get_variable("w_m", initializer=tf.zeros([2]), use_resource=True)
            v = tf.compat.v1.get_variable("w_v", initializer=tf.zeros([2]), use_resource=True)
            vhat = tf.compat.v1.get_variable("w_vhat", initializer=tf.zeros([2]), use_resource=True)
            grad = tf.constant([0.5, -0.5], name="grad")
        with tf.device(step_device):
            step = tf.raw_ops.ResourceApplyAdamWithAmsgrad(
                var=var.handle, m=m.handle, v=v.handle, vhat=vhat.handle,
                beta1_power=tf.constant(0.9), beta2_power=tf.constant(0.999), lr=tf.constant(0.01),
                beta1=tf.constant(0.9), beta2=tf.constant(0.999), epsilon=tf.constant(1e-7),
                grad=grad, name="amsgrad")
        init = tf.compat.v1.global_variables_initializer()
    return g, init, step


def run_amsgrad(tf, out, case, update_device, soft):
    """Writes case's log and model: one step of amsgrad_graph with its update
    on update_device, soft placement (and log_device_placement) as soft."""
    with captured(os.path.join(out, case + ".log")):
        g, init, step = amsgrad_graph(tf, update_device)
        write_graph(tf, g, out, case)
        with tf.compat.v1.Session(graph=g, config=session_config(tf, soft, soft)) as s:
            s.run(init)
            s.run(step)


def soft_placement_resources(tf, out):
    """Soft placement moves a resource group: AMSGrad's update pinned with its
    variables to XLA_CPU (colocation_graph.cc:1213), with
    log_device_placement."""
    run_amsgrad(tf, out, "soft_placement_resources", "/device:XLA_CPU:0", True)


def explicit_device_group(tf, out):
    """The same update pinned to the CPU, its variables to XLA_CPU, soft
    placement off: a resource and the ops using it must share a device, so
    the placer error names a node of the group that has an XLA_CPU kernel
    (colocation_graph.cc:1311), and the group's debug block the op that has
    none."""
    run_amsgrad(tf, out, "explicit_device_group", "/device:CPU:0", False)


def eager_device(tf, out):
    """An eager MatrixDeterminant pinned to XLA_CPU with soft placement off
    (eager/context.cc:357)."""
    case = "eager_device"
    with captured(os.path.join(out, case + ".log")):
        tf.config.set_soft_device_placement(False)
        try:
            with tf.device("/device:XLA_CPU:0"):
                tf.linalg.det(tf.constant([[[1.0, 2.0], [3.0, 4.0]]]))
        finally:
            tf.config.set_soft_device_placement(True)


def export_text_model(tf, out):
    """A SavedModel calling a tensorflow-text custom op (the case folding
    of a text pipeline's normalisation step)."""
    import tensorflow_text as text

    class Normalize(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def __call__(self, s):
            return tf.strings.length(text.case_fold_utf8(s), name="length")

    tf.saved_model.save(Normalize(), os.path.join(out, "op_not_registered"))


# --- cpu part ---------------------------------------------------------------


def dense_graph(tf, device):
    """A one-layer classifier, its layer pinned to device."""
    g = tf.Graph()
    with g.as_default():
        tf.random.set_seed(0)
        x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")
        with tf.device(device):
            w = tf.constant([[0.1, -0.2, 0.3], [0.0, 0.5, -0.1], [0.2, 0.2, 0.2], [-0.3, 0.1, 0.0]], name="w")
            b = tf.constant([0.01, 0.02, 0.03], name="b")
            h = tf.nn.bias_add(tf.linalg.matmul(x, w, name="dense"), b, name="bias")
            probs = tf.nn.softmax(tf.nn.relu(h, name="relu"), name="probs")
    return g, x, probs


def placement(tf, out):
    """log_device_placement of a graph whose layer code pins /device:GPU:0,
    run with soft placement on a machine without a GPU."""
    case = "placement"
    with captured(os.path.join(out, case + ".log")):
        g, x, probs = dense_graph(tf, "/device:GPU:0")
        write_graph(tf, g, out, case)
        with tf.compat.v1.Session(graph=g, config=session_config(tf, True, True)) as s:
            s.run(probs, {x: [[1, 2, 3, 4]]})


def device_not_available(tf, out):
    """The same graph with soft placement off (colocation_graph.cc:1304)."""
    case = "device_not_available"
    with captured(os.path.join(out, case + ".log")):
        g, x, probs = dense_graph(tf, "/device:GPU:0")
        write_graph(tf, g, out, case)
        with tf.compat.v1.Session(graph=g, config=session_config(tf, False, False)) as s:
            s.run(probs, {x: [[1, 2, 3, 4]]})


def no_opkernel(tf, out):
    """A uint8 MatMul pinned to the CPU, whose MatMul kernels lack uint8
    (colocation_graph.cc:1513)."""
    case = "no_opkernel"
    with captured(os.path.join(out, case + ".log")):
        g = tf.Graph()
        with g.as_default():
            a = tf.compat.v1.placeholder(tf.uint8, [2, 2], name="a")
            with tf.device("/device:CPU:0"):
                q = tf.constant([[1, 0], [0, 1]], tf.uint8, name="q")
                mm = tf.linalg.matmul(a, q, name="qmatmul")
        write_graph(tf, g, out, case)
        with tf.compat.v1.Session(graph=g, config=session_config(tf, False, False)) as s:
            s.run(mm, {a: [[1, 2], [3, 4]]})


def eager(tf, out):
    """Eager ops with log_device_placement (execute.cc:1747), then a uint8
    MatMul pinned to the CPU (eager/context.cc:326). run_part turns the
    logging on before the eager context starts: TensorFlow 2.15 ignores
    tf.debugging.set_log_device_placement once it runs."""
    case = "eager"
    with captured(os.path.join(out, case + ".log")):
        try:
            x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
            tf.nn.softmax(tf.linalg.matmul(x, x))
            with tf.device("/device:CPU:0"):
                q = tf.constant([[1, 0], [0, 1]], tf.uint8)
                tf.linalg.matmul(q, q)
        finally:
            tf.debugging.set_log_device_placement(False)


def op_not_registered(tf, out):
    """The tensorflow-text model loaded without tensorflow_text (op.cc:66)."""
    case = "op_not_registered"
    with captured(os.path.join(out, case + ".log")):
        tf.saved_model.load(os.path.join(out, case))


PARTS = {
    "xla": [export_text_model, explicit_device, soft_placement_resources, explicit_device_group, eager_device],
    "cpu": [eager, placement, device_not_available, no_opkernel, op_not_registered],
}


def run_part(part, out):
    unbuffered_stdout()
    startup = os.path.join(out, ".startup-" + part)
    with captured(startup):
        import tensorflow as tf
        if eager in PARTS[part]:
            tf.debugging.set_log_device_placement(True)
        tf.config.list_logical_devices()
    for case in PARTS[part]:
        case(tf, out)
    # TensorFlow's start-up lines open the part's first log, as in a real run.
    first = os.path.join(out, [c for c in PARTS[part] if c is not export_text_model][0].__name__ + ".log")
    with open(startup, "rb") as f:
        head = f.read()
    with open(first, "rb") as f:
        body = f.read()
    with open(first, "wb") as f:
        f.write(head + body)
    os.remove(startup)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--part", choices=sorted(PARTS), help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    if args.part:
        run_part(args.part, args.outdir)
        return
    base = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0", CUDA_VISIBLE_DEVICES="", TF_ENABLE_ONEDNN_OPTS="0",
                PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    base.pop("TF_XLA_FLAGS", None)
    for part, extra in (("xla", {"TF_XLA_FLAGS": "--tf_xla_enable_xla_devices"}), ("cpu", {})):
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--part", part, args.outdir],
                           env=dict(base, **extra))
        if r.returncode != 0:
            sys.exit("make_logs.py: the %s part failed (exit %d)" % (part, r.returncode))


if __name__ == "__main__":
    main()
