"""Exports the training step TensorFlow runs for a Keras model, for tfscan.

    python export_train_step.py MODEL OUT --optimizer NAME --loss NAME
        [--batch N] [--mixed-float16] [--replicas N]

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
MirroredStrategy over them.

Writes OUT/saved_model (a SavedModel whose signature train_step runs one
step) and OUT/train_step.pb (the traced step's GraphDef with its function
library; with --replicas above 1 only this, since tf.saved_model.save
refuses a MirroredStrategy step's signature). Prints OUT.

Exit codes: 0 written; 2 bad arguments (an optimizer or loss name TensorFlow
does not know, --replicas or --batch below 1); 3 the model cannot be loaded
or traced. Each failure is one line on stderr naming the model.
"""

import argparse
import importlib
import importlib.util
import os
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


def main():
    a = parse()
    if a.replicas > 1:
        import tensorflow as tf

        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * a.replicas)
    import tensorflow as tf
    import tf_keras as keras

    try:
        opt = keras.optimizers.get(a.optimizer)
    except Exception as e:  # noqa: BLE001 - Keras raises ValueError or others
        fail(2, f"--optimizer {a.optimizer}: TensorFlow does not know it ({e})")
    try:
        loss_fn = keras.losses.get(a.loss)
    except Exception as e:  # noqa: BLE001
        fail(2, f"--loss {a.loss}: TensorFlow does not know it ({e})")
    if not callable(loss_fn):
        fail(2, f"--loss {a.loss}: not a loss")
    if a.mixed_float16:
        keras.mixed_precision.set_global_policy("mixed_float16")
    strategy = (tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(a.replicas)])
                if a.replicas > 1 else tf.distribute.get_strategy())
    with strategy.scope():
        try:
            if os.path.isdir(a.model) or a.model.endswith((".h5", ".keras")):
                model = keras.models.load_model(a.model, compile=False)
            else:
                model = factory(a.model)()
        except Exception as e:  # noqa: BLE001 - any failure to build is the model's
            fail(3, f"{a.model}: cannot load the model: {type(e).__name__}: {e}")
        opt = keras.optimizers.get(a.optimizer)
        if a.mixed_float16:
            opt = keras.mixed_precision.LossScaleOptimizer(opt)
    try:
        x_specs = [tf.TensorSpec([a.batch] + list(t.shape[1:]), t.dtype, name=f"x{i}") for i, t in enumerate(model.inputs)]
        out = model.outputs[0]
        sparse = "sparse" in a.loss
        y_shape = [a.batch] + list(out.shape[1:-1] if sparse else out.shape[1:])
        y_spec = tf.TensorSpec(y_shape, tf.int32 if sparse else tf.float32, name="y")
    except Exception as e:  # noqa: BLE001
        fail(3, f"{a.model}: the model has no input or output specs: {type(e).__name__}: {e}")

    def step(x, y):
        with tf.GradientTape() as tape:
            pred = model(x if len(x) > 1 else x[0], training=True)
            loss = tf.reduce_mean(loss_fn(y, tf.cast(pred, tf.float32)))
            scaled = opt.get_scaled_loss(loss) if a.mixed_float16 else loss
        grads = tape.gradient(scaled, model.trainable_variables)
        if a.mixed_float16:
            grads = opt.get_unscaled_gradients(grads)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function(input_signature=[x_specs, y_spec])
    def train_step(x, y):
        if a.replicas > 1:
            per = strategy.run(step, args=(x, y))
            return {"loss": strategy.reduce(tf.distribute.ReduceOp.MEAN, per, axis=None)}
        return {"loss": step(x, y)}

    try:
        with strategy.scope():
            concrete = train_step.get_concrete_function()
    except Exception as e:  # noqa: BLE001 - tracing failures are the model's
        fail(3, f"{a.model}: cannot trace the training step: {type(e).__name__}: {e}")
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "train_step.pb"), "wb") as f:
        f.write(concrete.graph.as_graph_def().SerializeToString())

    if a.replicas > 1:
        # tf.saved_model.save refuses the step's signature wrapper under
        # MirroredStrategy ("Unable to save function
        # b'__inference_signature_wrapper_…'"): the GraphDef is the export.
        print(f"export_train_step: --replicas {a.replicas}: TensorFlow does not save a MirroredStrategy step as a "
              "SavedModel signature; wrote train_step.pb only", file=sys.stderr)
        print(a.out)
        return

    class Step(tf.Module):
        pass

    m = Step()
    m.model, m.opt, m.train_step = model, opt, train_step
    try:
        with strategy.scope():
            tf.saved_model.save(m, os.path.join(a.out, "saved_model"), signatures={"train_step": concrete})
    except Exception as e:  # noqa: BLE001
        fail(3, f"{a.model}: cannot save the training step: {type(e).__name__}: {e}")
    print(a.out)


if __name__ == "__main__":
    main()
