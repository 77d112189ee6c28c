"""Runs one exported training step in TensorFlow, for tfscan's conformance.

    python train_step_oracle.py SAVED_MODEL OUT_DIR --classes C
        [--seed N] [--loss-scale S]

SAVED_MODEL is what export_train_step.py wrote (OUT/saved_model, signature
train_step). Writes OUT_DIR/inputs.npz, seeded inputs keyed by the
signature's input names (float inputs standard normal, the labels
uniform in [0, C)), then runs the step once on those inputs and writes
OUT_DIR/after.npz: "loss" and every variable of the step after it, keyed
by the variable's name without ":0" (its shared_name in the graph).
--loss-scale S assigns S to LossScaleOptimizer's current_loss_scale
before the step (a mixed_float16 step; 1 is the step without loss
scaling). Prints OUT_DIR.

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
    ap.add_argument("--loss-scale", type=float)
    a = ap.parse_args()
    import tensorflow as tf

    try:
        m = tf.saved_model.load(a.saved_model)
        step = m.signatures["train_step"]
    except Exception as e:  # noqa: BLE001 - any load failure is the model's
        print(f"train_step_oracle: {a.saved_model}: {type(e).__name__}: {str(e).splitlines()[0]}", file=sys.stderr)
        sys.exit(3)
    rng = np.random.default_rng(a.seed)
    feeds = {}
    for name, spec in sorted(step.structured_input_signature[1].items()):
        if spec.dtype.is_floating:
            feeds[name] = rng.standard_normal(spec.shape).astype(spec.dtype.as_numpy_dtype)
        else:
            feeds[name] = rng.integers(0, a.classes, spec.shape).astype(spec.dtype.as_numpy_dtype)
    os.makedirs(a.out, exist_ok=True)
    np.savez(os.path.join(a.out, "inputs.npz"), **feeds)
    variables = {v.name.split(":")[0]: v for v in step.variables}
    if a.loss_scale is not None:
        scale = [v for k, v in variables.items() if k.endswith("current_loss_scale")]
        if len(scale) != 1:
            print(f"train_step_oracle: {a.saved_model}: no LossScaleOptimizer loss scale to set", file=sys.stderr)
            sys.exit(3)
        scale[0].assign(a.loss_scale)
    out = step(**{k: tf.constant(v) for k, v in feeds.items()})
    after = {"loss": out["loss"].numpy()}
    for k, v in sorted(variables.items()):
        after[k] = v.numpy()
    np.savez(os.path.join(a.out, "after.npz"), **after)
    print(a.out)


if __name__ == "__main__":
    main()
