#!/usr/bin/python3
"""Golden outputs for the "extra" reference kernels (kernels/spacebatch.go,
segment.go, matrix.go, bucketize.go, histogram.go, sparse.go,
image_extra.go) from NumPy (Debian's python3-numpy), written independently
of the Go code from TensorFlow's op documentation (core/ops/*.cc and the
tf.* API docs) and, where the docs leave the order of rounding open, from
the kernel sources cited in the Go files.

usage: /usr/bin/python3 tools/goldens/extra_goldens.py > testdata/kernels/extra/numpy.json

Float16 goldens are computed in numpy.float16, whose arithmetic rounds every
operation to binary16 as Eigen::half does.
"""
import json
import math

import numpy as np

rng = np.random.default_rng(20261129)
cases = []

DT = {np.dtype(np.float32): "DT_FLOAT", np.dtype(np.float64): "DT_DOUBLE",
      np.dtype(np.float16): "DT_HALF", np.dtype(np.int8): "DT_INT8",
      np.dtype(np.uint8): "DT_UINT8", np.dtype(np.int32): "DT_INT32",
      np.dtype(np.int64): "DT_INT64", np.dtype(np.bool_): "DT_BOOL"}


def vals(a):
    out = []
    for v in np.asarray(a).reshape(-1).tolist():
        if isinstance(v, float) and math.isnan(v):
            out.append("NaN")
        elif isinstance(v, float) and math.isinf(v):
            out.append("Infinity" if v > 0 else "-Infinity")
        elif isinstance(v, float):
            out.append(float(f"{v:.17g}"))
        else:
            out.append(v)
    return out


def t(a):
    a = np.asarray(a)
    return {"dtype": DT[a.dtype], "shape": list(a.shape), "values": vals(a)}


def add(name, op, attrs, inputs, outputs, rtol=0.0, atol=0.0):
    cases.append({"name": name, "op": op, "attrs": attrs, "inputs": [t(x) for x in inputs],
                  "outputs": [t(y) for y in outputs], "rtol": rtol, "atol": atol})


B = lambda v: {"b": v}
I = lambda v: {"i": v}
S = lambda v: {"s": v}
T = lambda v: {"type": v}
FL = lambda v: {"floats": [float(x) for x in v]}
INTS = lambda v: {"ints": list(v)}


def rnd(dtype, *shape):
    if np.issubdtype(dtype, np.floating):
        return rng.uniform(-4, 4, size=shape).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -50), min(info.max, 50), size=shape, endpoint=True).astype(dtype)


# ---------------- SpaceToBatchND / BatchToSpaceND ----------------
# The algorithm of the op docs (core/ops/array_ops.cc SpaceToBatchND):
# pad, reshape to [batch, p1/b1, b1, ..., rest], permute the block dims
# in front of batch, reshape to [batch*prod(b), p1/b1, ..., rest].
def space_to_batch(x, block, pads):
    m = len(block)
    padw = [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - 1 - m)
    p = np.pad(x, padw)
    batch = x.shape[0]
    rest = list(x.shape[1 + m:])
    shape = [batch]
    for i in range(m):
        shape += [p.shape[1 + i] // block[i], block[i]]
    r = p.reshape(shape + rest)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    r = r.transpose(perm)
    return r.reshape([batch * int(np.prod(block))] + [p.shape[1 + i] // block[i] for i in range(m)] + rest)


def batch_to_space(x, block, crops):
    m = len(block)
    pb = int(np.prod(block))
    batch = x.shape[0] // pb
    rest = list(x.shape[1 + m:])
    r = x.reshape(list(block) + [batch] + list(x.shape[1:]))
    # [b1..bm, batch, s1..sm, rest] -> [batch, s1, b1, ..., sm, bm, rest]
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    r = r.transpose(perm).reshape([batch] + [x.shape[1 + i] * block[i] for i in range(m)] + rest)
    sl = [slice(None)] + [slice(c[0], r.shape[1 + i] - c[1]) for i, c in enumerate(crops)]
    return r[tuple(sl)]


for name, dt, shape, block, pads in [
    ("2x2", np.float32, (1, 4, 4, 1), [2, 2], [[0, 0], [0, 0]]),
    ("pad", np.float32, (2, 5, 3, 3), [2, 3], [[1, 2], [0, 3]]),
    ("1d", np.int32, (3, 7, 2), [3], [[1, 1]]),
    ("int8", np.int8, (2, 2, 4, 2), [2, 2], [[1, 1], [2, 2]]),
    ("uint8", np.uint8, (1, 6, 6, 1), [3, 2], [[0, 0], [1, 1]]),
    ("half", np.float16, (2, 3, 4), [2], [[1, 0]]),
    ("f64_3d", np.float64, (1, 2, 2, 4, 2), [2, 2, 2], [[0, 0], [1, 1], [0, 0]]),
]:
    x = rnd(dt, *shape)
    y = space_to_batch(x, block, pads)
    add("s2b_" + name, "SpaceToBatchND", {}, [x, np.array(block, np.int32), np.array(pads, np.int32)], [y])
    add("b2s_" + name, "BatchToSpaceND", {}, [y, np.array(block, np.int64), np.array(pads, np.int64)], [x])
x = rnd(np.float32, 8, 3, 3, 2)
crops = [[1, 0], [0, 2]]
add("b2s_crop", "BatchToSpaceND", {}, [x, np.array([2, 2], np.int32), np.array(crops, np.int32)],
    [batch_to_space(x, [2, 2], crops)])
x = rnd(np.float32, 2, 4, 4, 3)
add("s2b_v1", "SpaceToBatch", {"block_size": I(2)}, [x, np.array([[0, 2], [2, 0]], np.int32)],
    [space_to_batch(x, [2, 2], [[0, 2], [2, 0]])])
x = rnd(np.float32, 8, 2, 3, 1)
add("b2s_v1", "BatchToSpace", {"block_size": I(2)}, [x, np.array([[1, 1], [0, 1]], np.int32)],
    [batch_to_space(x, [2, 2], [[1, 1], [0, 1]])])

# ---------------- Segment reductions ----------------
# Sorted: a one-row segment is copied; longer ones fold rows in order from
# the reducer identity in the data dtype; missing segments are 0.
def seg_init(op, dt):
    if op in ("Sum", "Mean"):
        return dt(0)
    if op == "Prod":
        return dt(1)
    if np.issubdtype(dt, np.floating):
        return dt(-np.inf) if op == "Max" else dt(np.inf)
    info = np.iinfo(dt)
    return dt(info.min) if op == "Max" else dt(info.max)


def fold(op, acc, row):
    with np.errstate(over="ignore"):
        if op in ("Sum", "Mean"):
            return (acc + row).astype(acc.dtype)
        if op == "Prod":
            return (acc * row).astype(acc.dtype)
    if op == "Max":  # Eigen's maxi(row, acc) = row < acc ? acc : row
        return np.where(row < acc, acc, row)
    return np.where(acc < row, acc, row)


def segment(op, x, ids):
    dt = x.dtype.type
    rows = ids[-1] + 1 if len(ids) else 0
    # Rows no id names hold the kernel's default value: 1 for Prod, 0 for
    # the others (segment_reduction_ops_impl.h).
    out = np.full((rows,) + x.shape[1:], 1 if op == "Prod" else 0, x.dtype)
    for s in sorted(set(ids.tolist())):
        sel = [i for i in range(len(ids)) if ids[i] == s]
        if len(sel) == 1:
            out[s] = x[sel[0]]
            continue
        acc = np.full(x.shape[1:], seg_init(op, dt), x.dtype)
        for i in sel:
            acc = fold(op, acc, x[i])
        if op == "Mean":
            if np.issubdtype(dt, np.integer):
                acc = (np.trunc(acc.astype(np.float64) / len(sel))).astype(x.dtype)
            else:
                acc = (acc / dt(len(sel))).astype(x.dtype)
        out[s] = acc
    return out


def unsorted(op, x, ids, n):
    dt = x.dtype.type
    if op == "Sum":
        init = dt(0)
    elif op == "Prod":
        init = dt(1)
    elif np.issubdtype(dt, np.floating):
        init = dt(np.finfo(dt).min) if op == "Max" else dt(np.finfo(dt).max)
    else:
        init = dt(np.iinfo(dt).min) if op == "Max" else dt(np.iinfo(dt).max)
    inner = x.shape[ids.ndim:]
    out = np.full((n,) + inner, init, x.dtype)
    flat_ids = ids.reshape(-1)
    flat_x = x.reshape((-1,) + inner)
    for i, j in enumerate(flat_ids.tolist()):
        if j >= 0:
            out[j] = fold(op, out[j], flat_x[i])
    return out


ids = np.array([0, 0, 1, 3, 3, 3], np.int32)
for op in ("Sum", "Mean", "Prod", "Max", "Min"):
    for dt in (np.float32, np.float64, np.int32, np.float16, np.int8, np.uint8, np.int64):
        if dt in (np.int8, np.uint8):
            x = rng.integers(0, 5, size=(6, 3)).astype(dt)
        else:
            x = rnd(dt, 6, 3)
        add(f"segment_{op.lower()}_{np.dtype(dt).name}", "Segment" + op, {}, [x, ids], [segment(op, x, ids)])
    uids = np.array([[2, -1, 0], [2, 4, 0]], np.int64)
    for dt in (np.float32, np.int32, np.float16, np.float64):
        if op == "Mean":
            continue
        x = rnd(dt, 2, 3, 2)
        add(f"unsorted_{op.lower()}_{np.dtype(dt).name}", "UnsortedSegment" + op, {},
            [x, uids, np.array(6, np.int32)], [unsorted(op, x, uids, 6)])
x = rnd(np.float32, 4, 2)
x[1, 0] = np.nan
add("segment_sum_nan", "SegmentSum", {}, [x, np.array([0, 0, 0, 1], np.int64)],
    [segment("Sum", x, np.array([0, 0, 0, 1]))])
add("segment_empty", "SegmentSum", {}, [np.zeros((0, 3), np.float32), np.zeros((0,), np.int32)],
    [np.zeros((0, 3), np.float32)])


def sparse_segment(kind, x, idx, ids, n=None):
    rows = (ids[-1] + 1 if len(ids) else 0) if n is None else n
    out = np.zeros((rows,) + x.shape[1:], np.float64)
    for s in sorted(set(ids.tolist())):
        sel = [int(idx[i]) for i in range(len(ids)) if ids[i] == s]
        acc = sum(x[i].astype(np.float64) for i in sel)
        if kind == "Mean":
            acc = acc / len(sel)
        elif kind == "SqrtN":
            acc = acc / math.sqrt(len(sel))
        out[s] = acc
    return out.astype(x.dtype)


x = rnd(np.float32, 30, 4)
idx = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3, 3, 8, 3, 2, 7, 9, 5, 0, 2, 8],
               np.int32)
sids = np.array([0] * 2 + [1] * 1 + [3] * 9 + [4] * 12 + [5] * 11, np.int32)
for kind in ("Sum", "Mean", "SqrtN"):
    for dt, tol in ((np.float32, 1e-6), (np.float64, 1e-12), (np.float16, 1e-3)):
        xx = x.astype(dt)
        add(f"sparse_segment_{kind.lower()}_{np.dtype(dt).name}", "SparseSegment" + kind, {},
            [xx, idx, sids], [sparse_segment(kind, xx, idx, sids)], rtol=tol, atol=tol)
    add(f"sparse_segment_{kind.lower()}_num", "SparseSegment" + kind + "WithNumSegments", {},
        [x, idx.astype(np.int64), sids, np.array(8, np.int32)], [sparse_segment(kind, x, idx, sids, 8)],
        rtol=1e-6, atol=1e-6)
xi = rnd(np.int32, 10, 3)
add("sparse_segment_sum_int32", "SparseSegmentSum", {}, [xi, idx[:10], np.array([0, 0, 0, 2, 2, 2, 2, 2, 2, 2], np.int32)],
    [sparse_segment("Sum", xi, idx[:10], np.array([0, 0, 0, 2, 2, 2, 2, 2, 2, 2]))])

# ---------------- Matrix band / diag ----------------
def band(x, lo, up):
    m, n = x.shape[-2:]
    r = np.arange(m)[:, None]
    c = np.arange(n)[None, :]
    keep = ((lo < 0) | (r - c <= lo)) & ((up < 0) | (c - r <= up))
    return np.where(keep, x, np.zeros_like(x))


for dt in (np.float32, np.int32, np.bool_, np.float16, np.uint8):
    x = rnd(dt, 2, 4, 5)
    for lo, up in ((1, 1), (-1, 0), (0, -1), (2, 3), (-1, -1), (0, 0)):
        add(f"band_{np.dtype(dt).name}_{lo}_{up}", "MatrixBandPart", {},
            [x, np.array(lo, np.int64), np.array(up, np.int64)], [band(x, lo, up)])


def diag_len(d, m, n):
    return min(m + min(0, d), n - max(0, d))


def offset(d, maxlen, m, n, align):
    # tf.linalg.diag_part docs: offset = max_diag_len - diag_len(d) if
    # (align in {RIGHT_LEFT, RIGHT_RIGHT} and d >= 0) or
    # (align in {LEFT_RIGHT, RIGHT_RIGHT} and d <= 0), else 0.
    right = (align in ("RIGHT_LEFT", "RIGHT_RIGHT") and d >= 0) or \
        (align in ("LEFT_RIGHT", "RIGHT_RIGHT") and d <= 0)
    return maxlen - diag_len(d, m, n) if right else 0


def diag_part(x, k, pad, align):
    lo, up = k
    m, n = x.shape[-2:]
    maxlen = min(m + min(up, 0), n - max(lo, 0))
    nd = up - lo + 1
    out = np.full(x.shape[:-2] + (nd, maxlen), pad, x.dtype)
    for b in np.ndindex(*x.shape[:-2]):
        for i in range(nd):
            d = up - i
            off = offset(d, maxlen, m, n, align)
            for j in range(maxlen):
                y = j + max(-d, 0) - off
                xx = j + max(d, 0) - off
                if 0 <= y < m and 0 <= xx < n:
                    out[b + (i, j)] = x[b + (y, xx)]
    return out if nd > 1 else out[..., 0, :]


def mdiag(dg, k, m, n, pad, align):
    lo, up = k
    nd = up - lo + 1
    maxlen = dg.shape[-1]
    lead = dg.shape[:-1] if nd == 1 else dg.shape[:-2]
    out = np.full(lead + (m, n), pad, dg.dtype)
    for b in np.ndindex(*lead):
        for i in range(m):
            for j in range(n):
                d = j - i
                if lo <= d <= up:
                    off = offset(d, maxlen, m, n, align)
                    v = dg[b + (j - max(d, 0) + off,)] if nd == 1 else dg[b + (up - d, j - max(d, 0) + off)]
                    out[b + (i, j)] = v
    return out


def set_diag(x, dg, k, align):
    lo, up = k
    m, n = x.shape[-2:]
    full = mdiag(dg, k, m, n, 0, align)
    r = np.arange(m)[:, None]
    c = np.arange(n)[None, :]
    mask = (c - r >= lo) & (c - r <= up)
    return np.where(mask, full, x)


for align in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
    for k in ((0, 0), (-1, 2), (1, 3), (-3, -1), (-2, 0)):
        for dt in (np.float32, np.int32):
            x = rnd(dt, 2, 4, 5)
            part = diag_part(x, k, 9, align)
            tag = f"{align}_{k[0]}_{k[1]}_{np.dtype(dt).name}"
            add("diagpart_" + tag, "MatrixDiagPartV3", {"align": S(align)},
                [x, np.array(k, np.int32), np.array(9, dt)], [part])
            add("setdiag_" + tag, "MatrixSetDiagV3", {"align": S(align)},
                [x, part, np.array(k, np.int32)], [set_diag(x, part, k, align)])
            add("diag_" + tag, "MatrixDiagV3", {"align": S(align)},
                [part, np.array(k, np.int32), np.array(4, np.int32), np.array(5, np.int32), np.array(7, dt)],
                [mdiag(part, k, 4, 5, 7, align)])
dg = rnd(np.float32, 2, 3)
add("diag_v1", "MatrixDiag", {}, [dg], [mdiag(dg, (0, 0), 3, 3, 0, "LEFT_LEFT")])
add("diag_v3_infer", "MatrixDiagV3", {"align": S("RIGHT_LEFT")},
    [dg, np.array([1], np.int32), np.array(-1, np.int32), np.array(-1, np.int32), np.array(0, np.float32)],
    [mdiag(dg, (1, 1), 4, 4, 0, "RIGHT_LEFT")])
x = rnd(np.float32, 3, 4)
add("diagpart_v1", "MatrixDiagPart", {}, [x], [diag_part(x, (0, 0), 0, "LEFT_LEFT")])
add("diagpart_v2", "MatrixDiagPartV2", {}, [x, np.array([-1, 1], np.int32), np.array(0, np.float32)],
    [diag_part(x, (-1, 1), 0, "LEFT_LEFT")])
add("setdiag_v1", "MatrixSetDiag", {}, [x, np.array([7, 8, 9], np.float32)],
    [set_diag(x, np.array([7, 8, 9], np.float32), (0, 0), "LEFT_LEFT")])
xb = rnd(np.bool_, 3, 3)
add("setdiag_bool", "MatrixSetDiagV3", {"align": S("RIGHT_LEFT")}, [xb, np.array([True, True, True]), np.array(0, np.int32)],
    [set_diag(xb, np.array([True, True, True]), (0, 0), "RIGHT_LEFT")])

# ---------------- L2Loss ----------------
for dt, tol in ((np.float32, 1e-6), (np.float64, 1e-14), (np.float16, 1e-3)):
    x = rnd(dt, 7, 9)
    add(f"l2loss_{np.dtype(dt).name}", "L2Loss", {}, [x],
        [np.array((x.astype(np.float64) ** 2).sum() / 2, dt)], rtol=tol)

# ---------------- Bucketize ----------------
bounds = np.array([-2.5, -1, 0, 0.5, 0.5, 1, 3.25], np.float32)
for dt in (np.float32, np.float64, np.int32, np.int64):
    x = (rng.uniform(-4, 4, size=(5, 7)) if np.issubdtype(dt, np.floating)
         else rng.integers(-4, 5, size=(5, 7))).astype(dt)
    x.reshape(-1)[:4] = [0, 0.5, -1, 1] if np.issubdtype(dt, np.floating) else [0, 1, -1, 3]
    if dt == np.float64:
        cmp_b, cmp_x = bounds.astype(np.float64), x
    else:
        cmp_b, cmp_x = bounds, x.astype(np.float32)
    add(f"bucketize_{np.dtype(dt).name}", "Bucketize", {"boundaries": FL(bounds)}, [x],
        [np.searchsorted(cmp_b, cmp_x, side="right").astype(np.int32)])
xn = np.array([np.nan, -np.inf, np.inf, 0.0], np.float32)
add("bucketize_nan", "Bucketize", {"boundaries": FL(bounds)}, [xn],
    [np.array([len(bounds), 0, len(bounds), 3], np.int32)])

# ---------------- HistogramFixedWidth ----------------
def hist(x, lo, hi, nbins):
    c = np.clip(x, lo, hi).astype(np.float64)
    step = float(hi) / nbins - float(lo) / nbins
    b = np.minimum((c - float(lo)) / step, nbins - 1).astype(np.int32)
    return np.bincount(b, minlength=nbins)


for dt, nb, odt in ((np.float32, 5, np.int32), (np.float64, 7, np.int64), (np.int32, 4, np.int32), (np.float32, 1, np.int32)):
    x = (rng.uniform(-3, 8, size=40) if np.issubdtype(dt, np.floating) else rng.integers(-3, 9, size=40)).astype(dt)
    lo, hi = dt(0), dt(5)
    add(f"histogram_{np.dtype(dt).name}_{nb}", "HistogramFixedWidth", {"dtype": T(DT[np.dtype(odt)])},
        [x, np.array([lo, hi], dt), np.array(nb, np.int32)], [hist(x, lo, hi, nb).astype(odt)])

# ---------------- SparseToDense ----------------
for dt in (np.float32, np.int32, np.bool_, np.int64):
    ix = np.array([[0, 1], [0, 3], [2, 0], [3, 4]], np.int64)
    v = rnd(dt, 4)
    d = np.full((4, 5), dt(1) if dt == np.bool_ else dt(-1), dt)
    dense = d.copy()
    for (i, j), val in zip(ix.tolist(), v.tolist()):
        dense[i, j] = val
    add(f"sparse_to_dense_{np.dtype(dt).name}", "SparseToDense", {"validate_indices": B(True)},
        [ix, np.array([4, 5], np.int64), v, np.array(d[0, 0], dt)], [dense])
ix = np.array([1, 4, 6], np.int32)
dense = np.zeros(8, np.float32)
dense[ix] = 2.5
add("sparse_to_dense_scalar_value", "SparseToDense", {"validate_indices": B(True)},
    [ix, np.array([8], np.int32), np.array(2.5, np.float32), np.array(0, np.float32)], [dense])

# ---------------- CropAndResize ----------------
# tf.image.crop_and_resize: sample y = y1*(h-1) + i*(y2-y1)*(h-1)/(ch-1)
# (the centre 0.5*(y1+y2)*(h-1) when ch == 1), extrapolation_value
# outside [0, h-1], bilinear lerps; computed in float32 in the kernel's
# operation order.
f32 = np.float32


def crop_and_resize(img, boxes, bidx, ch, cw, method, extrap):
    n = boxes.shape[0]
    h, w, depth = img.shape[1:]
    out = np.zeros((n, ch, cw, depth), np.float32)
    im = img.astype(np.float32)
    for b in range(n):
        y1, x1, y2, x2 = [f32(v) for v in boxes[b]]
        hs = f32(f32((y2 - y1) * f32(h - 1)) / f32(ch - 1)) if ch > 1 else f32(0)
        ws = f32(f32((x2 - x1) * f32(w - 1)) / f32(cw - 1)) if cw > 1 else f32(0)
        for y in range(ch):
            iy = f32(f32(y1 * f32(h - 1)) + f32(f32(y) * hs)) if ch > 1 else f32(0.5 * float(f32(y1 + y2)) * (h - 1))
            for x in range(cw):
                ix = f32(f32(x1 * f32(w - 1)) + f32(f32(x) * ws)) if cw > 1 else f32(0.5 * float(f32(x1 + x2)) * (w - 1))
                if iy < 0 or iy > h - 1 or ix < 0 or ix > w - 1:
                    out[b, y, x, :] = extrap
                    continue
                if method == "nearest":
                    out[b, y, x] = im[bidx[b], int(math.floor(iy + 0.5)), int(math.floor(ix + 0.5))]
                    continue
                t, bo = int(math.floor(iy)), int(math.ceil(iy))
                l, r = int(math.floor(ix)), int(math.ceil(ix))
                yl, xl = f32(iy - f32(t)), f32(ix - f32(l))
                tl, tr, bl, br = im[bidx[b], t, l], im[bidx[b], t, r], im[bidx[b], bo, l], im[bidx[b], bo, r]
                top = (tl + ((tr - tl) * xl).astype(np.float32)).astype(np.float32)
                bot = (bl + ((br - bl) * xl).astype(np.float32)).astype(np.float32)
                out[b, y, x] = (top + ((bot - top) * yl).astype(np.float32)).astype(np.float32)
    return out


img = rnd(np.float32, 2, 5, 7, 3)
boxes = np.array([[0.1, 0.2, 0.8, 0.9], [0.5, -0.2, 1.3, 0.7], [0.9, 0.9, 0.1, 0.1], [0, 0, 1, 1]], np.float32)
bidx = np.array([0, 1, 1, 0], np.int32)
for method in ("bilinear", "nearest"):
    for ch, cw in ((4, 3), (1, 5), (3, 1)):
        add(f"crop_and_resize_{method}_{ch}x{cw}", "CropAndResize",
            {"method": S(method), "extrapolation_value": {"f": -1.5}},
            [img, boxes, bidx, np.array([ch, cw], np.int32)],
            [crop_and_resize(img, boxes, bidx, ch, cw, method, -1.5)])
imgi = rnd(np.uint8, 1, 4, 4, 2)
add("crop_and_resize_uint8", "CropAndResize", {"method": S("bilinear"), "extrapolation_value": {"f": 0.0}},
    [imgi, boxes[:2], bidx[:2] * 0, np.array([3, 3], np.int32)],
    [crop_and_resize(imgi, boxes[:2], bidx[:2] * 0, 3, 3, "bilinear", 0.0)])

# ---------------- ExtractImagePatches ----------------
# tf.image.extract_patches: patch (r, c) covers rows r*sr - pad_top +
# i*rate_r; padding as for a convolution with the effective kernel
# (k-1)*rate+1; zeros outside.
def patches(x, ks, st, rt, padding):
    b, h, w, d = x.shape
    out_dims, pads = [], []
    for n, k, s, r in ((h, ks[0], st[0], rt[0]), (w, ks[1], st[1], rt[1])):
        eff = (k - 1) * r + 1
        if padding == "VALID":
            o = (n - eff + s) // s
            pads.append(0)
        else:
            o = (n + s - 1) // s
            pads.append(max(0, (o - 1) * s + eff - n) // 2)
        out_dims.append(o)
    out = np.zeros((b, out_dims[0], out_dims[1], ks[0] * ks[1] * d), x.dtype)
    for r in range(out_dims[0]):
        for c in range(out_dims[1]):
            for i in range(ks[0]):
                for j in range(ks[1]):
                    y = r * st[0] - pads[0] + i * rt[0]
                    xx = c * st[1] - pads[1] + j * rt[1]
                    if 0 <= y < h and 0 <= xx < w:
                        out[:, r, c, (i * ks[1] + j) * d:(i * ks[1] + j + 1) * d] = x[:, y, xx, :]
    return out


for dt, shape, ks, st, rt, pad in ((np.float32, (2, 6, 7, 3), (2, 3), (2, 2), (1, 1), "SAME"),
                                   (np.int32, (1, 5, 5, 1), (3, 3), (1, 1), (2, 2), "VALID"),
                                   (np.float16, (1, 7, 6, 2), (2, 2), (3, 2), (2, 1), "SAME"),
                                   (np.uint8, (1, 4, 4, 2), (1, 1), (2, 2), (1, 1), "VALID")):
    x = rnd(dt, *shape)
    add(f"patches_{np.dtype(dt).name}_{pad}", "ExtractImagePatches",
        {"ksizes": INTS([1, *ks, 1]), "strides": INTS([1, *st, 1]), "rates": INTS([1, *rt, 1]), "padding": S(pad)},
        [x], [patches(x, ks, st, rt, pad)])

print(json.dumps({"generator": "tools/goldens/extra_goldens.py", "numpy": np.__version__, "cases": cases},
                 separators=(",", ":")))
