"""The model zoo TensorFlow itself makes, for tfscan's conformance tests.

    python zoo.py OUT [--full] [--only NAME,...]

Writes one folder per model under OUT (layout in README.md): the model as a
SavedModel, as a frozen GraphDef (convert_variables_to_constants_v2) and,
where the TF.js converter takes it, as a TF.js graph model; seeded inputs
(inputs.npz) and what TensorFlow computes from them (outputs.npz, from the
exported SavedModel loaded back, so the numbers are the artifact's);
meta.json says which formats exist, the tensor names of the frozen graph and
why a format is missing. OUT/index.json lists the models with the
TensorFlow version. Every random number comes from the model's seed.

Runs with the pinned TensorFlow (tools/tf/ensure.sh); tools/tfmodels/make.sh
calls it into the cache folder.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras as keras  # noqa: E402

from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2,
)

SIG = "serving_default"


# ---------------------------------------------------------------------------
# helpers


def seed_all(seed):
    keras.utils.set_random_seed(seed)
    tf.random.set_seed(seed)
    np.random.seed(seed)


def perturb_batchnorm(model, seed):
    """Gives every BatchNormalization layer non-trivial statistics (fresh
    layers have mean 0, variance 1, gamma 1, beta 0, which hide mistakes in
    the inference formula)."""
    rng = np.random.RandomState(seed)
    for layer in model.submodules if hasattr(model, "submodules") else []:
        if isinstance(layer, keras.layers.BatchNormalization):
            ws = []
            for w in layer.weights:
                shape = w.shape
                name = w.name
                if "moving_variance" in name:
                    ws.append(rng.uniform(0.5, 1.5, shape).astype(w.dtype.as_numpy_dtype))
                elif "moving_mean" in name or "beta" in name:
                    ws.append(rng.normal(0, 0.1, shape).astype(w.dtype.as_numpy_dtype))
                else:  # gamma
                    ws.append(rng.uniform(0.8, 1.2, shape).astype(w.dtype.as_numpy_dtype))
            layer.set_weights(ws)


def keras_fn(model, specs):
    @tf.function(input_signature=specs)
    def serve(*args):
        out = model(list(args) if len(args) > 1 else args[0], training=False)
        if isinstance(out, dict):
            return out
        if isinstance(out, (list, tuple)):
            return {"output_%d" % i: o for i, o in enumerate(out)}
        return {"output_0": out}

    return serve


# ---------------------------------------------------------------------------
# the models: each returns (export, inputs) where export(dir) writes the
# SavedModel and inputs maps signature input keys to numpy arrays.


def keras_model(build, specs, make_inputs, bn=True):
    def make(seed):
        seed_all(seed)
        model = build()
        if bn:
            perturb_batchnorm(model, seed)
        serve = keras_fn(model, specs)

        def export(d):
            tf.saved_model.save(model, d, signatures={SIG: serve})

        rng = np.random.RandomState(seed)
        return export, make_inputs(rng)

    return make


def image_inputs(shape):
    def f(rng):
        return {"x": rng.uniform(-1, 1, shape).astype(np.float32)}

    return f


def app(ctor, size, **kw):
    def build():
        return ctor(input_shape=(size, size, 3), weights=None, classes=10, **kw)

    return keras_model(
        build, [tf.TensorSpec([None, size, size, 3], tf.float32, name="x")], image_inputs((2, size, size, 3))
    )


def text_rnn_model(cell):
    """Embedding, a recurrent layer and a softmax head over 12 tokens."""
    return keras.Sequential(
        [
            keras.layers.Input((12,), dtype="int32"),
            keras.layers.Embedding(100, 16),
            cell(16),
            keras.layers.Dense(3, activation="softmax"),
        ]
    )


def text_rnn(cell):
    def build():
        return text_rnn_model(cell)

    def inputs(rng):
        return {"x": rng.randint(0, 100, (2, 12)).astype(np.int32)}

    return keras_model(build, [tf.TensorSpec([None, 12], tf.int32, name="x")], inputs, bn=False)


def transformer_model():
    """One Transformer encoder block over 8 tokens of width 16 and a
    softmax head."""
    x = keras.layers.Input((8, 16))
    a = keras.layers.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)
    # Add layers rather than +: they cast their inputs to the compute
    # dtype, so that the block builds under mixed_float16 too.
    h = keras.layers.LayerNormalization(epsilon=1e-6)(keras.layers.Add()([x, a]))
    f = keras.layers.Dense(32, activation="gelu")(h)
    f = keras.layers.Dense(16)(f)
    f = keras.layers.Lambda(lambda t: tf.nn.gelu(t, approximate=True))(f)
    y = keras.layers.LayerNormalization(epsilon=1e-6)(keras.layers.Add()([h, f]))
    y = keras.layers.GlobalAveragePooling1D()(y)
    return keras.Model(x, keras.layers.Dense(4, activation="softmax")(y))


def transformer():
    def inputs(rng):
        return {"x": rng.normal(0, 1, (2, 8, 16)).astype(np.float32)}

    return keras_model(transformer_model, [tf.TensorSpec([None, 8, 16], tf.float32, name="x")], inputs, bn=False)


CORPUS = [
    "The quick brown fox jumps over the lazy dog.",
    "A journey of a thousand miles begins with one step!",
    "To be, or not to be: that is the question.",
    "All that glitters is not gold; all who wander are not lost.",
]


def text_vectorization():
    def build():
        tv = keras.layers.TextVectorization(max_tokens=40, output_sequence_length=8)
        tv.adapt(CORPUS)
        x = keras.layers.Input((), dtype=tf.string)
        ids = tv(x)
        e = keras.layers.Embedding(40, 8)(ids)
        y = keras.layers.GlobalAveragePooling1D()(e)
        return keras.Model(x, {"ids": ids, "score": keras.layers.Dense(2)(y)})

    def inputs(rng):
        words = " ".join(CORPUS).split() + ["unknown", "ZEBRA", "?!"]
        s = [" ".join(rng.choice(words, 6)) for _ in range(3)]
        return {"x": np.array(s, dtype=object)}

    return keras_model(build, [tf.TensorSpec([None], tf.string, name="x")], inputs, bn=False)


def string_lookup():
    def build():
        vocab = ["red", "green", "blue", "cyan", "magenta"]
        x = keras.layers.Input((4,), dtype=tf.string)
        ids = keras.layers.StringLookup(vocabulary=vocab, num_oov_indices=1)(x)
        back = keras.layers.StringLookup(vocabulary=vocab, invert=True)(ids)
        oh = keras.layers.CategoryEncoding(num_tokens=len(vocab) + 1, output_mode="count")(ids)
        return keras.Model(x, {"ids": ids, "back": back, "counts": oh})

    def inputs(rng):
        words = ["red", "green", "blue", "cyan", "magenta", "black", ""]
        return {"x": np.array(rng.choice(words, (3, 4)), dtype=object)}

    return keras_model(build, [tf.TensorSpec([None, 4], tf.string, name="x")], inputs, bn=False)


def control_flow():
    def make(seed):
        seed_all(seed)

        class M(tf.Module):
            def __init__(self):
                self.w = tf.Variable(tf.random.normal([4, 4], seed=seed), name="w")

            @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x"),
                                          tf.TensorSpec([], tf.int32, name="n")])
            def serve(self, x, n):
                ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

                def body(i, h, ta):
                    h = tf.tanh(tf.matmul(h, self.w))
                    h = tf.cond(tf.reduce_sum(h) > 0, lambda: h * 0.5, lambda: h - 0.25)
                    return i + 1, h, ta.write(i, tf.reduce_mean(h, axis=1))

                _, h, ta = tf.while_loop(lambda i, h, ta: i < n, body, (0, x, ta))
                return {"h": h, "trace": tf.transpose(ta.stack())}

        m = M()

        def export(d):
            tf.saved_model.save(m, d, signatures={SIG: m.serve})

        rng = np.random.RandomState(seed)
        return export, {"x": rng.normal(0, 1, (3, 4)).astype(np.float32), "n": np.array(5, np.int32)}

    return make


def random_generator():
    def make(seed):
        seed_all(seed)

        class M(tf.Module):
            def __init__(self):
                self.g = tf.random.Generator.from_seed(seed)

            @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32, name="x")])
            def serve(self, x):
                n = self.g.normal(tf.shape(x))
                u = self.g.uniform([4], maxval=10, dtype=tf.int32)
                return {"noisy": x + n, "ints": u}

        m = M()

        def export(d):
            tf.saved_model.save(m, d, signatures={SIG: m.serve})

        rng = np.random.RandomState(seed)
        return export, {"x": rng.normal(0, 1, (2, 4)).astype(np.float32)}

    return make


def mixed_float16():
    def build():
        keras.mixed_precision.set_global_policy("mixed_float16")
        try:
            x = keras.layers.Input((16, 16, 3))
            h = keras.layers.Conv2D(8, 3, activation="relu")(x)
            h = keras.layers.BatchNormalization()(h)
            h = keras.layers.MaxPooling2D()(h)
            h = keras.layers.Flatten()(h)
            h = keras.layers.Dense(16, activation="relu")(h)
            y = keras.layers.Dense(4)(h)
            y = keras.layers.Activation("softmax", dtype="float32")(y)
            return keras.Model(x, y)
        finally:
            keras.mixed_precision.set_global_policy("float32")

    return keras_model(build, [tf.TensorSpec([None, 16, 16, 3], tf.float32, name="x")], image_inputs((2, 16, 16, 3)))


def cpu_pinned():
    def make(seed):
        seed_all(seed)

        class M(tf.Module):
            def __init__(self):
                self.dense = keras.layers.Dense(5)
                self.dense.build((None, 64))

            @tf.function(input_signature=[tf.TensorSpec([None, 12, 12, 3], tf.uint8, name="image")])
            def serve(self, image):
                with tf.device("/CPU:0"):
                    x = tf.cast(image, tf.float32) / 255.0
                    x = tf.image.resize(x, [8, 8], method="bilinear")
                    x = (x - 0.5) * 2.0
                    x = tf.reduce_mean(x, axis=-1)
                    x = tf.reshape(x, [-1, 64])
                return {"logits": self.dense(x)}

        m = M()

        def export(d):
            tf.saved_model.save(m, d, signatures={SIG: m.serve})

        rng = np.random.RandomState(seed)
        return export, {"image": rng.randint(0, 256, (2, 12, 12, 3)).astype(np.uint8)}

    return make


def tf1_builder():
    """A TF1 export: placeholders, a variable restored by the saver
    (saver_def), a hash table filled by main_op."""

    def make(seed):
        rng = np.random.RandomState(seed)
        w0 = rng.normal(0, 1, (3, 2)).astype(np.float32)

        def export(d):
            v1 = tf.compat.v1
            g = tf.Graph()
            with g.as_default():
                x = v1.placeholder(tf.float32, [None, 3], name="x")
                key = v1.placeholder(tf.string, [None], name="key")
                w = v1.get_variable("w", initializer=w0)
                table = tf.lookup.StaticHashTable(
                    tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], tf.constant([1.0, 2.0, 3.0])), -1.0
                )
                scale = table.lookup(key)
                y = tf.matmul(x, w) * tf.expand_dims(scale, 1)
                y = tf.identity(y, name="y")
                with v1.Session(graph=g) as sess:
                    sess.run(v1.global_variables_initializer())
                    b = v1.saved_model.Builder(d)
                    sig = v1.saved_model.predict_signature_def({"x": x, "key": key}, {"y": y})
                    b.add_meta_graph_and_variables(
                        sess,
                        [v1.saved_model.tag_constants.SERVING],
                        signature_def_map={SIG: sig},
                        main_op=v1.tables_initializer(),
                        saver=v1.train.Saver(),
                    )
                    b.save()

        return export, {
            "x": rng.normal(0, 1, (4, 3)).astype(np.float32),
            "key": np.array(["a", "c", "z", "b"], dtype=object),
        }

    return make


SMALL = {
    "mobilenetv2_a035_32": app(keras.applications.MobileNetV2, 32, alpha=0.35),
    "lstm_text": text_rnn(keras.layers.LSTM),
    "gru_text": text_rnn(keras.layers.GRU),
    "transformer_encoder": transformer(),
    "text_vectorization": text_vectorization(),
    "string_lookup": string_lookup(),
    "control_flow": control_flow(),
    "random_generator": random_generator(),
    "mixed_float16": mixed_float16(),
    "tf1_builder": tf1_builder(),
    "cpu_pinned": cpu_pinned(),
}

FULL = {
    "mobilenetv2": app(keras.applications.MobileNetV2, 224),
    "mobilenetv3small": app(keras.applications.MobileNetV3Small, 224),
    "resnet50": app(keras.applications.ResNet50, 224),
    "efficientnetb0": app(keras.applications.EfficientNetB0, 224),
    "densenet121": app(keras.applications.DenseNet121, 224),
    "inceptionv3": app(keras.applications.InceptionV3, 299),
    "convnexttiny": app(keras.applications.ConvNeXtTiny, 224),
}


# ---------------------------------------------------------------------------
# exporting one model


def to_npz(path, arrays):
    out = {}
    for k, v in arrays.items():
        if v.dtype == object:
            v = np.array([s.encode() if isinstance(s, str) else s for s in v.ravel()], dtype=object).reshape(v.shape)
            v = v.astype(np.bytes_)
        out[k] = v
    np.savez(path, **out)


def to_numpy(t):
    a = t.numpy()
    if a.dtype == object:
        a = a.astype(np.bytes_)
    return a


def freeze(sm_dir, out_dir):
    """The serving signature as a frozen GraphDef; returns the tensor names
    of its inputs and outputs by signature key."""
    loaded = tf.saved_model.load(sm_dir)
    f = loaded.signatures[SIG]
    frozen = convert_variables_to_constants_v2(f)
    gd = frozen.graph.as_graph_def()
    with open(os.path.join(out_dir, "frozen.pb"), "wb") as fh:
        fh.write(gd.SerializeToString())
    # A lookup table's handle stays an input of the frozen function: a
    # GraphDef cannot hold the table, so there is no self-contained frozen
    # model to export.
    res = [t.name for t in frozen.inputs if t.dtype == tf.resource]
    if res:
        raise ValueError("the frozen function keeps %d resource input(s) (%s): lookup tables do not freeze"
                         % (len(res), ", ".join(res)))
    # A signature's placeholders are named for its input keys.
    ins = {t.name.split(":")[0]: t.name for t in frozen.inputs}
    # Its outputs are the signature's, flattened in sorted key order.
    keys = sorted(f.structured_outputs)
    if len(keys) != len(frozen.outputs):
        raise ValueError("frozen function has %d outputs, the signature %d" % (len(frozen.outputs), len(keys)))
    outs = {k: t.name for k, t in zip(keys, frozen.outputs)}
    return ins, outs


def tfjs(sm_dir, out_dir):
    from tensorflowjs.converters import tf_saved_model_conversion_v2 as conv

    d = os.path.join(out_dir, "tfjs")
    conv.convert_tf_saved_model(sm_dir, d, signature_def=SIG, saved_model_tags="serve")


def build_one(name, make, out, seed):
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    meta = {"name": name, "seed": seed, "signature": SIG, "formats": {}}
    export, inputs = make(seed)
    sm = os.path.join(d, "saved_model")
    export(sm)
    meta["formats"]["saved_model"] = "saved_model"
    to_npz(os.path.join(d, "inputs.npz"), inputs)

    loaded = tf.saved_model.load(sm)
    f = loaded.signatures[SIG]
    feed = {k: tf.constant(v) for k, v in inputs.items()}
    res = f(**feed)
    outputs = {k: to_numpy(v) for k, v in res.items()}
    np.savez(os.path.join(d, "outputs.npz"), **outputs)
    meta["inputs"] = sorted(inputs)
    meta["outputs"] = sorted(outputs)
    del loaded, f

    try:
        ins, outs = freeze(sm, d)
        meta["formats"]["frozen"] = "frozen.pb"
        meta["frozen_inputs"] = ins
        meta["frozen_outputs"] = outs
    except Exception as e:  # noqa: BLE001 - the reason is recorded
        meta["missing"] = meta.get("missing", {})
        meta["missing"]["frozen"] = one_line(e)
    try:
        tfjs(sm, d)
        meta["formats"]["tfjs"] = "tfjs/model.json"
    except BaseException as e:  # noqa: BLE001 - the converter may sys.exit
        shutil.rmtree(os.path.join(d, "tfjs"), ignore_errors=True)
        meta["missing"] = meta.get("missing", {})
        meta["missing"]["tfjs"] = one_line(e)
    with open(os.path.join(d, "meta.json"), "w") as fh:
        json.dump(meta, fh, indent=1, sort_keys=True)
        fh.write("\n")
    return meta


def one_line(e):
    s = "%s: %s" % (type(e).__name__, e)
    return s.strip().splitlines()[0][:300] if s.strip() else type(e).__name__


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--full", action="store_true", help="the large keras.applications set too")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--seed", type=int, default=26)
    a = ap.parse_args()
    models = dict(SMALL)
    if a.full:
        models.update(FULL)
    if a.only:
        want = a.only.split(",")
        unknown = [w for w in want if w not in SMALL and w not in FULL]
        if unknown:
            print("zoo.py: unknown model(s): %s" % ", ".join(unknown), file=sys.stderr)
            return 2
        models = {w: SMALL.get(w) or FULL[w] for w in want}
    os.makedirs(a.out, exist_ok=True)
    index = {"tensorflow": tf.__version__, "keras": keras.__version__, "models": {}}
    failed = 0
    for name, make in models.items():
        t0 = time.time()
        try:
            meta = build_one(name, make, a.out, a.seed)
            print("zoo: %s (%.1fs)" % (name, time.time() - t0), file=sys.stderr, flush=True)
            index["models"][name] = {"formats": sorted(meta["formats"]), "missing": meta.get("missing", {})}
        except Exception:  # noqa: BLE001
            traceback.print_exc()
            failed += 1
    if not a.only:
        # The training steps (train_steps.py) in a process of their own:
        # MirroredStrategy needs the CPU split into logical devices before
        # TensorFlow's runtime starts.
        t0 = time.time()
        here = os.path.dirname(os.path.abspath(__file__))
        r = subprocess.run([sys.executable, os.path.join(here, "train_steps.py"), os.path.join(a.out, "train")])
        print("zoo: train steps (%.1fs)" % (time.time() - t0), file=sys.stderr, flush=True)
        if r.returncode != 0:
            failed += 1
    with open(os.path.join(a.out, "index.json"), "w") as fh:
        json.dump(index, fh, indent=1, sort_keys=True)
        fh.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
