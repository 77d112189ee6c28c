"""The zoo's training steps: TensorFlow's own train steps of a small CNN,
the Transformer encoder and the LSTM of zoo.py, each plain, under
mixed_float16 (LossScaleOptimizer) and under a 2-replica MirroredStrategy
over logical CPU devices, and the CNN's step compiled by XLA
(jit_compile=True), for tfscan's training tests.

    python train_steps.py OUT

Writes OUT/NAME/ per step as tools/tf/export_train_step.py does, without
the SavedModel (train_step.pb and step.json), and
OUT/index.json (step name -> step.json's facts). zoo.py runs it in a
process of its own: the CPU is split into logical devices before
TensorFlow's runtime starts.
"""

import json
import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tf"))
sys.path.insert(0, here)

import export_train_step as ets  # noqa: E402

REPLICAS = 2
ets.logical_cpus(REPLICAS)

import tf_keras as keras  # noqa: E402

import zoo  # noqa: E402


def cnn():
    """A small CNN: convolution, batch normalisation, ReLU, pooling and a
    dense head."""
    return keras.Sequential(
        [
            keras.Input((16, 16, 3)),
            keras.layers.Conv2D(8, 3),
            keras.layers.BatchNormalization(),
            keras.layers.ReLU(),
            keras.layers.MaxPooling2D(),
            keras.layers.Flatten(),
            keras.layers.Dense(5),
        ]
    )


# name -> (builder, optimizer, loss)
MODELS = {
    "cnn": (cnn, "adam", "sparse_categorical_crossentropy"),
    "transformer_encoder": (zoo.transformer_model, "adam", "sparse_categorical_crossentropy"),
    "lstm_text": (lambda: zoo.text_rnn_model(keras.layers.LSTM), "sgd", "sparse_categorical_crossentropy"),
}

# variant -> export() keyword arguments
VARIANTS = {
    "plain": {},
    "mixed_float16": {"mixed_float16": True},
    "mirrored2": {"replicas": REPLICAS},
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    steps = [(f"{m}_{v}", m, kw) for m in MODELS for v, kw in VARIANTS.items()]
    steps.append(("cnn_jit", "cnn", {"jit_compile": True}))
    index = {}
    for name, model, kw in steps:
        t0 = time.time()
        build, opt, loss = MODELS[model]
        zoo.seed_all(26)
        index[name] = ets.export(build, os.path.join(out, name), opt, loss, name=name, saved_model=False, **kw)
        print("zoo: train/%s (%.1fs)" % (name, time.time() - t0), file=sys.stderr, flush=True)
    with open(os.path.join(out, "index.json"), "w") as fh:
        json.dump(index, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
