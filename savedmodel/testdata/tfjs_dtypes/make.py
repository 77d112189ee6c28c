"""Makes the TF.js fixtures of savedmodel's tests of the weights the
converter stores in another dtype than the graph declares (tfjs_dtypes.go),
with TensorFlow 2.15.0 and tensorflowjs 4.17.0 (the venv of
tools/tf/ensure.sh):

    $(tools/tf/ensure.sh) savedmodel/testdata/tfjs_dtypes/make.py

A small Keras model (Conv2D with bias and ReLU, Dense with bias, a float32
output) with seeded weights, exported as a SavedModel and converted:

  mixed/      the model under the mixed_float16 policy, converted as is: the
              converter stores its float16 weights as float32 and keeps the
              graph's DT_HALF Consts, Casts, Conv2D and MatMul;
  mixed_q16/  the same, converted with float16 quantization ('*');
  float32_q16/ the float32 model converted with float16 quantization: weights
              stored as float16, graph float32;
  wide/       a tf.Module with a float64 and an int64 variable, which the
              converter stores as float32 and int32 (values both hold, so
              that TensorFlow's results are the file's).

io.npz holds the input x and what TensorFlow computes from each SavedModel:
mixed (the mixed_float16 model) and float32_q16 (the float32 model with its
weights rounded to float16, the values its quantized weights hold); and the
weights in Keras's order (Conv2D kernel and bias, Dense kernel and bias,
the manifests' order too): mixed_w0..3, the float16 values TensorFlow
computes with (the float32 variables cast to float16, as the graph's Casts
do), and float32_q16_w0..3, the float32 weights rounded to float16 and back;
and wide's inputs and outputs (wide_x, wide_i; wide_y, wide_j).

The converter writes a node's attrs in no fixed order, so model.json's bytes
can differ from one run to the next; the shards and io.npz do not.
"""

import os
import shutil
import tempfile

# oneDNN on, TensorFlow's default on x86 Linux: the converter's Grappler
# pass then gives the fused nodes an _input_shapes attr with symbolic
# dimensions, as a user's conversion does.
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "1"

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402
from tensorflowjs.converters import tf_saved_model_conversion_v2 as conv  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SIG = "serving_default"


def build(policy):
    keras.mixed_precision.set_global_policy(policy)
    try:
        init = keras.initializers.RandomNormal(stddev=0.5, seed=1)
        binit = keras.initializers.RandomNormal(stddev=0.1, seed=2)
        x = keras.layers.Input((5, 5, 2), name="x")
        h = keras.layers.Conv2D(3, 2, activation="relu", kernel_initializer=init, bias_initializer=binit)(x)
        h = keras.layers.Flatten()(h)
        h = keras.layers.Dense(4, kernel_initializer=init, bias_initializer=binit)(h)
        y = keras.layers.Activation("linear", dtype="float32")(h)
        return keras.Model(x, y)
    finally:
        keras.mixed_precision.set_global_policy("float32")


def export(model, d):
    @tf.function(input_signature=[tf.TensorSpec([None, 5, 5, 2], tf.float32, name="x")])
    def serve(x):
        return {"y": model(x, training=False)}

    tf.saved_model.save(model, d, signatures={SIG: serve})
    return serve


class Wide(tf.Module):
    def __init__(self):
        super().__init__()
        self.a = tf.Variable(np.array([0.5, 2.25, -3.0]), dtype=tf.float64)
        self.b = tf.Variable(np.array([5, -6, 1 << 30]), dtype=tf.int64)

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float64, name="x"), tf.TensorSpec([3], tf.int64, name="i")])
    def serve(self, x, i):
        return {"y": x * self.a, "j": i + self.b}


def convert(sm, name, q16):
    out = os.path.join(HERE, name)
    shutil.rmtree(out, ignore_errors=True)
    conv.convert_tf_saved_model(sm, out, signature_def=SIG, saved_model_tags="serve",
                                quantization_dtype_map={"float16": "*"} if q16 else None)


def main():
    keras.utils.set_random_seed(26)
    x = np.random.RandomState(26).normal(0, 1, (2, 5, 5, 2)).astype(np.float32)
    io = {"x": x}
    tmp = tempfile.mkdtemp()
    try:
        mixed = build("mixed_float16")
        sm = os.path.join(tmp, "mixed")
        export(mixed, sm)
        io["mixed"] = tf.saved_model.load(sm).signatures[SIG](x=tf.constant(x))["y"].numpy()
        for i, w in enumerate(mixed.get_weights()):
            io["mixed_w%d" % i] = w.astype(np.float16)
        convert(sm, "mixed", False)
        convert(sm, "mixed_q16", True)

        plain = build("float32")
        plain.set_weights([w.astype(np.float16).astype(np.float32) for w in plain.get_weights()])
        for i, w in enumerate(plain.get_weights()):
            io["float32_q16_w%d" % i] = w
        sm = os.path.join(tmp, "float32")
        export(plain, sm)
        io["float32_q16"] = tf.saved_model.load(sm).signatures[SIG](x=tf.constant(x))["y"].numpy()
        convert(sm, "float32_q16", True)

        wide = Wide()
        sm = os.path.join(tmp, "wide")
        tf.saved_model.save(wide, sm, signatures={SIG: wide.serve})
        io["wide_x"] = np.array([1.5, -0.1, 3.0])
        io["wide_i"] = np.array([1, 2, 1 << 40], dtype=np.int64)
        out = tf.saved_model.load(sm).signatures[SIG](x=tf.constant(io["wide_x"]), i=tf.constant(io["wide_i"]))
        io["wide_y"], io["wide_j"] = out["y"].numpy(), out["j"].numpy()
        convert(sm, "wide", False)
    finally:
        shutil.rmtree(tmp)
    np.savez(os.path.join(HERE, "io.npz"), **io)


if __name__ == "__main__":
    main()
