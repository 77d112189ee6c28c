"""Runs one exported training step in TensorFlow, for tfscan's conformance.

    python train_step_oracle.py SAVED_MODEL OUT_DIR --classes C
        [--seed N] [--loss-scales S,S,...]

SAVED_MODEL is what export_train_step.py wrote (OUT/saved_model, signature
train_step). Writes OUT_DIR/inputs.npz, seeded inputs keyed by the
signature's input names (float inputs standard normal, the labels
uniform in [0, C)), then runs the step once on those inputs and writes
OUT_DIR/after.npz: "loss" and every variable of the step after it, keyed
by the variable's name without ":0" (its shared_name in the graph).
--loss-scales runs the step once per scale, each time on a freshly loaded
model whose LossScaleOptimizer current_loss_scale is set to S first (a
mixed_float16 step; 1 is the step without loss scaling), and writes
OUT_DIR/after-S.npz (S as an integer) for each. Prints OUT_DIR.

Exit codes: 0 written; 3 the model cannot be loaded or run (one line on
stderr).
"""

import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

import numpy as np  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("saved_model")
    ap.add_argument("out")
    ap.add_argument("--classes", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--loss-scales", default="")
    a = ap.parse_args()
    scales = [float(s) for s in a.loss_scales.split(",") if s]
    step = load(a.saved_model)[2]
    rng = np.random.default_rng(a.seed)
    feeds = {}
    for name, spec in sorted(step.structured_input_signature[1].items()):
        if spec.dtype.is_floating:
            feeds[name] = rng.standard_normal(spec.shape).astype(spec.dtype.as_numpy_dtype)
        else:
            feeds[name] = rng.integers(0, a.classes, spec.shape).astype(spec.dtype.as_numpy_dtype)
    os.makedirs(a.out, exist_ok=True)
    np.savez(os.path.join(a.out, "inputs.npz"), **feeds)
    for scale in scales or [None]:
        tf, module, step = load(a.saved_model)  # noqa: F841 - the module owns the variables
        variables = {v.name.split(":")[0]: v for v in step.variables}
        name = "after.npz"
        if scale is not None:
            ls = [v for k, v in variables.items() if k == "current_loss_scale"]
            if len(ls) != 1:
                print(f"train_step_oracle: {a.saved_model}: no LossScaleOptimizer loss scale to set", file=sys.stderr)
                sys.exit(3)
            ls[0].assign(scale)
            name = f"after-{int(scale)}.npz"
        out = step(**{k: tf.constant(v) for k, v in feeds.items()})
        after = {"loss": out["loss"].numpy()}
        for k, v in sorted(variables.items()):
            after[k] = v.numpy()
        np.savez(os.path.join(a.out, name), **after)
    print(a.out)


def load(path):
    """The tensorflow module, the loaded SavedModel and its train_step signature."""
    import tensorflow as tf

    try:
        m = tf.saved_model.load(path)
        return tf, m, m.signatures["train_step"]
    except Exception as e:  # noqa: BLE001 - any load failure is the model's
        print(f"train_step_oracle: {path}: {type(e).__name__}: {str(e).splitlines()[0]}", file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
