"""Times TensorFlow's CPU runtime on zoo models and NumPy's (OpenBLAS) float32
matmul, for the executor's same-run benchmarks (executor/tfbench_test.go,
kernels/matmul_bench_test.go; `make bench-exec`).

It is a server, so that TensorFlow is imported and each model loaded once
while the Go benchmark alternates rounds with it: every line on stdin is one
JSON request, answered by one JSON line on stdout.

    {"model": DIR, "reps": N}   DIR/saved_model's signature (DIR/meta.json)
                                called N times on DIR/inputs.npz
    {"matmul": N, "reps": R}    R products of two seeded N×N float32 arrays

The answer lists each repetition's wall and process CPU seconds:
{"wall": [...], "cpu": [...]}, or {"error": "..."}. The first request for a
model loads it and runs it once untimed (tracing, Grappler).

--threads T sets TensorFlow's intra-op and inter-op pools to T threads each
(0: TensorFlow's default, the machine's cores). OpenBLAS's thread count is
the caller's OPENBLAS_NUM_THREADS, read when NumPy is imported.
"""

import argparse
import json
import os
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()

    import numpy as np
    import tensorflow as tf

    if args.threads > 0:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)

    models = {}

    def load(d):
        if d in models:
            return models[d]
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        loaded = tf.saved_model.load(os.path.join(d, "saved_model"))
        fn = loaded.signatures[meta.get("signature") or "serving_default"]
        with np.load(os.path.join(d, "inputs.npz"), allow_pickle=False) as z:
            feeds = {k: tf.constant(z[k]) for k in z.files}
        fn(**feeds)  # tracing, Grappler, first allocations
        models[d] = (loaded, fn, feeds)
        return models[d]

    def timed(step, reps):
        wall, cpu = [], []
        for _ in range(reps):
            t, p = time.perf_counter(), time.process_time()
            step()
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - p)
        return {"wall": wall, "cpu": cpu}

    print(json.dumps({"ready": True, "tensorflow": tf.__version__}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            reps = int(req.get("reps", 1))
            if "matmul" in req:
                n = int(req["matmul"])
                r = np.random.RandomState(n)
                a = r.rand(n, n).astype(np.float32)
                b = r.rand(n, n).astype(np.float32)
                a @ b
                res = timed(lambda: a @ b, reps)
            else:
                _, fn, feeds = load(req["model"])

                def step():
                    out = fn(**feeds)
                    for v in out.values():
                        v.numpy()  # the result on the host, as the Go run returns it

                res = timed(step, reps)
        except Exception as e:  # one line back; the caller names the model
            res = {"error": "%s: %s" % (type(e).__name__, e)}
        print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
