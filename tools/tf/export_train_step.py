"""Exports the training step TensorFlow runs for a Keras model, for tfscan.

    python export_train_step.py MODEL OUT --optimizer NAME --loss NAME
        [--batch N] [--mixed-float16] [--replicas N] [--jit-compile]

MODEL is a SavedModel folder, an .h5 or .keras file, or a Python factory
"module:function" (module importable from the working directory or by
path, e.g. pkg/models.py:cnn) that returns a built tf_keras model. The
inputs are the model's own input specs with the batch dimension set to
--batch (default 2); the labels have the shape of its output (without the
last axis for a sparse_* loss, as int32).

The step is a tf.function with GradientTape and optimizer.apply_gradients,
as a custom Keras training loop writes it: the forward pass, the loss, the
gradients and the update. --mixed-float16 sets the mixed_float16 policy
before the model is built (a factory model; a loaded model keeps its own
dtypes) and wraps the optimizer in LossScaleOptimizer (dynamic loss scale:
scaled loss, unscaled gradients, finite check, scale update). --replicas N
splits the CPU into N logical devices
(tf.config.set_logical_device_configuration) and runs the step under
MirroredStrategy over them. --jit-compile makes the per-replica step a
tf.function(jit_compile=True) of its own: the node calling it carries
_XlaMustCompile.

Writes OUT/saved_model (a SavedModel whose signature train_step runs one
step) and OUT/train_step.pb (the traced step's GraphDef with its function
library; with --replicas above 1 only this, since tf.saved_model.save
refuses a MirroredStrategy step's signature) and OUT/step.json, what
TensorFlow says of the step (step_facts: trainable variables and bytes,
the collective ops it built, the functions XLA must compile). Prints OUT.
export() does the same from Python, for the model zoo.

Exit codes: 0 written; 2 bad arguments (an optimizer or loss name TensorFlow
does not know, --replicas or --batch below 1); 3 the model cannot be loaded
or traced. Each failure is one line on stderr naming the model.
"""

import argparse
import json
import importlib
import importlib.util
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")


def fail(code, msg):
    print("export_train_step: " + msg.splitlines()[0] if msg else "export_train_step: failed", file=sys.stderr)
    sys.exit(code)


def parse():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("out")
    ap.add_argument("--optimizer", required=True, help="a Keras optimizer name, e.g. sgd, adam")
    ap.add_argument("--loss", required=True, help="a Keras loss name, e.g. sparse_categorical_crossentropy")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--mixed-float16", action="store_true")
    ap.add_argument("--replicas", type=int, default=1)
    ap.add_argument("--jit-compile", action="store_true")
    a = ap.parse_args()
    if a.replicas < 1:
        fail(2, f"--replicas {a.replicas}: a strategy needs at least 1 device")
    if a.batch < 1:
        fail(2, f"--batch {a.batch}: want at least 1")
    return a


def factory(spec):
    """Returns the function a "module:function" spec names."""
    mod, _, fn = spec.rpartition(":")
    if mod.endswith(".py"):
        s = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(mod))[0], mod)
        m = importlib.util.module_from_spec(s)
        s.loader.exec_module(m)
    else:
        sys.path.insert(0, os.getcwd())
        m = importlib.import_module(mod)
    return getattr(m, fn)


class ExportError(Exception):
    """A failure with its exit code and one line."""

    def __init__(self, code, msg):
        super().__init__(msg)
        self.code = code


def why(e):
    """The one line that says what went wrong: AutoGraph's errors start
    with "in user code:" and a traceback, then the error itself
    ("AttributeError: ..."; the innermost last), then Keras' call arguments."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    for ln in reversed(lines):
        if re.match(r"[A-Za-z_]*(Error|Exception): ", ln):
            return ln
    return f"{type(e).__name__}: {lines[0] if lines else ''}"


def logical_cpus(n):
    """Splits the CPU into n logical devices; before TensorFlow starts its
    runtime (the first op), as tf.config requires."""
    import tensorflow as tf

    if n > 1:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * n)


def export(build, out, optimizer, loss, batch=2, mixed_float16=False, replicas=1, jit_compile=False, name="model",
           saved_model=True):
    """Traces the training step of the model build() returns and writes it
    under out (see the module doc; saved_model=False skips the SavedModel,
    the slowest part); raises ExportError. Returns the facts of
    step.json."""
    import tensorflow as tf
    import tf_keras as keras

    if replicas < 1:
        raise ExportError(2, f"--replicas {replicas}: a strategy needs at least 1 device")
    if batch < 1:
        raise ExportError(2, f"--batch {batch}: want at least 1")
    try:
        keras.optimizers.get(optimizer)
    except Exception as e:  # noqa: BLE001 - Keras raises ValueError or others
        raise ExportError(2, f"--optimizer {optimizer}: TensorFlow does not know it ({e})")
    try:
        loss_fn = keras.losses.get(loss)
    except Exception as e:  # noqa: BLE001
        raise ExportError(2, f"--loss {loss}: TensorFlow does not know it ({e})")
    if not callable(loss_fn):
        raise ExportError(2, f"--loss {loss}: not a loss")
    have = len(tf.config.list_logical_devices("CPU"))
    if replicas > have:
        raise ExportError(2, f"--replicas {replicas}: {have} logical CPU device(s) configured")
    policy = keras.mixed_precision.global_policy()
    if mixed_float16:
        keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        return _export(tf, keras, build, out, optimizer, loss, loss_fn, batch, mixed_float16, replicas, jit_compile, name,
                       saved_model)
    finally:
        keras.mixed_precision.set_global_policy(policy)


def _export(tf, keras, build, out, optimizer, loss, loss_fn, batch, mixed, replicas, jit_compile, name, saved_model):
    strategy = (tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(replicas)])
                if replicas > 1 else tf.distribute.get_strategy())
    with strategy.scope():
        try:
            model = build()
        except Exception as e:  # noqa: BLE001 - any failure to build is the model's
            raise ExportError(3, f"{name}: cannot load the model: {type(e).__name__}: {e}")
        opt = keras.optimizers.get(optimizer)
        if mixed:
            opt = keras.mixed_precision.LossScaleOptimizer(opt)
    try:
        x_specs = [tf.TensorSpec([batch] + list(t.shape[1:]), t.dtype, name=f"x{i}") for i, t in enumerate(model.inputs)]
        out_t = model.outputs[0]
        sparse = "sparse" in loss
        y_shape = [batch] + list(out_t.shape[1:-1] if sparse else out_t.shape[1:])
        y_spec = tf.TensorSpec(y_shape, tf.int32 if sparse else tf.float32, name="y")
    except Exception as e:  # noqa: BLE001
        raise ExportError(3, f"{name}: the model has no input or output specs: {type(e).__name__}: {e}")

    def step(x, y):
        with tf.GradientTape() as tape:
            pred = model(x if len(x) > 1 else x[0], training=True)
            loss_v = tf.reduce_mean(loss_fn(y, tf.cast(pred, tf.float32)))
            scaled = opt.get_scaled_loss(loss_v) if mixed else loss_v
        grads = tape.gradient(scaled, model.trainable_variables)
        if mixed:
            grads = opt.get_unscaled_gradients(grads)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss_v

    if jit_compile:
        # The step as a function of its own that XLA must compile: the
        # caller's StatefulPartitionedCall carries _XlaMustCompile.
        step = tf.function(step, jit_compile=True)

    @tf.function(input_signature=[x_specs, y_spec])
    def train_step(x, y):
        if replicas > 1:
            per = strategy.run(step, args=(x, y))
            return {"loss": strategy.reduce(tf.distribute.ReduceOp.MEAN, per, axis=None)}
        return {"loss": step(x, y)}

    try:
        with strategy.scope():
            concrete = train_step.get_concrete_function()
    except Exception as e:  # noqa: BLE001 - tracing failures are the model's
        raise ExportError(3, f"{name}: cannot trace the training step: {why(e)}")
    os.makedirs(out, exist_ok=True)
    # add_shapes: every node carries the shapes TensorFlow inferred
    # (_output_shapes), which a captured variable of unknown shape does not
    # let a reader of the graph alone infer.
    gd = concrete.graph.as_graph_def(add_shapes=True)
    with open(os.path.join(out, "train_step.pb"), "wb") as f:
        f.write(gd.SerializeToString())
    facts = step_facts(tf, concrete, gd, model, replicas, mixed, jit_compile)
    with open(os.path.join(out, "step.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)
        f.write("\n")

    if replicas > 1:
        # tf.saved_model.save refuses the step's signature wrapper under
        # MirroredStrategy ("Unable to save function
        # b'__inference_signature_wrapper_…'"): the GraphDef is the export.
        print(f"export_train_step: --replicas {replicas}: TensorFlow does not save a MirroredStrategy step as a "
              "SavedModel signature; wrote train_step.pb only", file=sys.stderr)
        return facts
    if not saved_model:
        return facts

    class Step(tf.Module):
        pass

    m = Step()
    m.model, m.opt, m.train_step = model, opt, train_step
    try:
        with strategy.scope():
            tf.saved_model.save(m, os.path.join(out, "saved_model"), signatures={"train_step": concrete})
    except Exception as e:  # noqa: BLE001
        raise ExportError(3, f"{name}: cannot save the training step: {type(e).__name__}: {e}")
    return facts


# Collective ops (tensorflow/core/ops/collective_ops.cc, nccl_ops.cc).
COLLECTIVE_PREFIXES = ("Collective", "Nccl", "_Nccl")


def step_facts(tf, concrete, gd, model, replicas, mixed, jit_compile):
    """What TensorFlow itself says about the traced step, for tests to
    compare tfscan with: the trainable variables and their bytes, the
    collective ops it built (by op, in the graph and its functions: the
    all-gathers of sparse gradients sit in cond branches), the bytes the
    all-reduce ops of the graph reduce (TensorFlow's own shapes) and the
    functions XLA must compile."""
    ops = {}
    hints = set()
    for n in list(gd.node) + [n for f in gd.library.function for n in f.node_def]:
        if n.op.startswith(COLLECTIVE_PREFIXES):
            ops[n.op] = ops.get(n.op, 0) + 1
            if "communication_hint" in n.attr:
                hints.add(n.attr["communication_hint"].s.decode())
    reduce_bytes = 0
    for op in concrete.graph.get_operations():
        if op.type.startswith(COLLECTIVE_PREFIXES) and ("Reduce" in op.type or op.type == "NcclAllReduce"):
            t = op.inputs[0]
            reduce_bytes += t.shape.num_elements() * t.dtype.size
    xla = sorted(n.attr["f"].func.name for n in gd.node if n.attr["_XlaMustCompile"].b)
    return {
        "replicas": replicas,
        "mixed_float16": mixed,
        "jit_compile": jit_compile,
        "trainable_variables": len(model.trainable_variables),
        "trainable_bytes": int(sum(v.shape.num_elements() * v.dtype.size for v in model.trainable_variables)),
        "collective_ops": ops,
        "communication_hints": sorted(hints),
        "collective_reduce_bytes": int(reduce_bytes),
        "xla_must_compile": xla,
    }


def load(spec):
    """The builder of the model spec names: a SavedModel folder or a Keras
    file loaded, or a factory "module:function"."""
    import tf_keras as keras

    if os.path.isdir(spec) or spec.endswith((".h5", ".keras")):
        return lambda: keras.models.load_model(spec, compile=False)
    return lambda: factory(spec)()


def main():
    a = parse()
    try:
        logical_cpus(a.replicas)
        export(load(a.model), a.out, a.optimizer, a.loss, a.batch, a.mixed_float16, a.replicas, a.jit_compile,
               name=a.model)
    except ExportError as e:
        fail(e.code, str(e))
    print(a.out)


if __name__ == "__main__":
    main()
