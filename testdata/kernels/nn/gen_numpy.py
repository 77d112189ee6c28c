#!/usr/bin/python3
"""Golden outputs for the NN reference kernels from NumPy (Debian's
python3-numpy), written independently of the Go code: naive loops for the
convolutions and pooling, following TensorFlow's documented semantics.

usage: /usr/bin/python3 gen_numpy.py > numpy.json
"""
import json
import math
import sys

import numpy as np

rng = np.random.default_rng(20261129)
cases = []


def vals(a):
    out = []
    for v in np.asarray(a).reshape(-1).tolist():
        if isinstance(v, float) and math.isnan(v):
            out.append("NaN")
        elif isinstance(v, float) and math.isinf(v):
            out.append("Infinity" if v > 0 else "-Infinity")
        elif isinstance(v, float):
            out.append(float(f"{v:.9g}") if a.dtype == np.float32 else v)  # 9 digits round-trip float32
        else:
            out.append(v)
    return out


def t(a, dtype=None):
    a = np.asarray(a)
    if dtype is None:
        dtype = {np.dtype(np.float32): "DT_FLOAT", np.dtype(np.float64): "DT_DOUBLE",
                 np.dtype(np.int32): "DT_INT32", np.dtype(np.int64): "DT_INT64"}[a.dtype]
    return {"dtype": dtype, "shape": list(a.shape), "values": vals(a)}


def add(name, op, attrs, inputs, outputs, rtol=1e-4, atol=1e-5):
    cases.append({"name": name, "op": op, "attrs": attrs, "inputs": [t(x) for x in inputs],
                  "outputs": [t(y) for y in outputs], "rtol": rtol, "atol": atol})


def r32(*shape):
    return rng.uniform(-1, 1, size=shape).astype(np.float32)


B = lambda v: {"b": v}
I = lambda v: {"i": v}
F = lambda v: {"f": v}
S = lambda v: {"s": v}
INTS = lambda v: {"ints": list(v)}
STRS = lambda v: {"strs": list(v)}

# ---------------- MatMul / BatchMatMul ----------------
for ta in (False, True):
    for tb in (False, True):
        a, b = r32(7, 13), r32(13, 5)
        want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
        add(f"matmul_t{int(ta)}{int(tb)}", "MatMul", {"transpose_a": B(ta), "transpose_b": B(tb)},
            [a.T.copy() if ta else a, b.T.copy() if tb else b], [want])
a64, b64 = rng.standard_normal((4, 9)), rng.standard_normal((9, 3))
add("matmul_f64", "MatMul", {"transpose_a": B(False), "transpose_b": B(False)}, [a64, b64], [a64 @ b64], rtol=1e-12, atol=1e-12)
x, y = r32(2, 1, 3, 4), r32(3, 5, 4)
add("batchmatmulv2_bcast_adjy", "BatchMatMulV2", {"adj_x": B(False), "adj_y": B(True)}, [x, y],
    [np.matmul(x.astype(np.float64), np.swapaxes(y, -1, -2).astype(np.float64)).astype(np.float32)])
x, y = r32(3, 4, 2), r32(3, 4, 6)
add("batchmatmul_adjx", "BatchMatMul", {"adj_x": B(True), "adj_y": B(False)}, [x, y],
    [np.matmul(np.swapaxes(x, -1, -2).astype(np.float64), y.astype(np.float64)).astype(np.float32)])
x, y = r32(0, 3, 4), r32(4, 2)
add("batchmatmulv2_empty_batch", "BatchMatMulV2", {"adj_x": B(False), "adj_y": B(False)}, [x, y], [np.matmul(x, y)])

# ---------------- Einsum ----------------
def einsum_case(name, eq, *shapes):
    ops = [r32(*s) for s in shapes]
    want = np.einsum(eq, *[o.astype(np.float64) for o in ops]).astype(np.float32)
    add(name, "Einsum", {"equation": S(eq), "N": I(len(ops))}, ops, [want])

einsum_case("einsum_matmul", "ij,jk->ik", (3, 4), (4, 5))
einsum_case("einsum_batch", "bij,bjk->bik", (2, 3, 4), (2, 4, 5))
einsum_case("einsum_attention", "bhqd,bhkd->bhqk", (2, 3, 4, 8), (2, 3, 5, 8))
einsum_case("einsum_ellipsis_bcast", "...ij,...jk->...ik", (2, 1, 3, 4), (3, 4, 2))
einsum_case("einsum_outer", "i,j->ij", (3,), (4,))
einsum_case("einsum_rowdot", "ij,ij->i", (3, 4), (3, 4))
einsum_case("einsum_diag", "ii->i", (4, 4))
einsum_case("einsum_trace_sum", "ij->", (3, 4))
einsum_case("einsum_transpose", "abc->cba", (2, 3, 4))
einsum_case("einsum_implicit", "ij,jk", (3, 4), (4, 2))
einsum_case("einsum_sum_one_side", "abc,cd->ad", (2, 3, 4), (4, 5))

# ---------------- Softmax ----------------
def softmax64(x):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)

x = r32(3, 7) * 5
x[1] += 1000  # large logits: the max shift avoids overflow
sm = softmax64(x.astype(np.float64))
add("softmax", "Softmax", {}, [x], [sm.astype(np.float32)])
add("logsoftmax", "LogSoftmax", {}, [x], [np.log(sm).astype(np.float32)], atol=1e-4)
xn = np.array([[1, np.nan, 2], [1, 2, 3]], np.float32)
with np.errstate(invalid="ignore"):
    add("softmax_nan_row", "Softmax", {}, [xn], [softmax64(xn.astype(np.float64)).astype(np.float32)])

# ---------------- Convolutions (naive) ----------------
def out_size(n, k, s, d, padding, before=0, after=0):
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return (n - eff + s) // s, 0
    if padding == "SAME":
        o = (n + s - 1) // s
        need = max(0, (o - 1) * s + eff - n)
        return o, need // 2
    return (n + before + after - eff + s) // s, before


def conv2d_naive(x, f, strides, dil, padding, explicit=None, groups=1):
    n, h, w, c = x.shape
    kh, kw, cg, o = f.shape
    oh, ph = out_size(h, kh, strides[0], dil[0], padding, *(explicit[0] if explicit else (0, 0)))
    ow, pw = out_size(w, kw, strides[1], dil[1], padding, *(explicit[1] if explicit else (0, 0)))
    og = o // groups
    out = np.zeros((n, oh, ow, o))
    x64, f64 = x.astype(np.float64), f.astype(np.float64)
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for di in range(kh):
                    for dj in range(kw):
                        ii = i * strides[0] - ph + di * dil[0]
                        jj = j * strides[1] - pw + dj * dil[1]
                        if 0 <= ii < h and 0 <= jj < w:
                            for g in range(groups):
                                out[b, i, j, g * og:(g + 1) * og] += x64[b, ii, jj, g * cg:(g + 1) * cg] @ f64[di, dj, :, g * og:(g + 1) * og]
    return out.astype(np.float32)


def conv_attrs(strides, padding, dil=(1, 1), explicit=None, fmt="NHWC"):
    if fmt == "NHWC":
        a = {"strides": INTS([1, strides[0], strides[1], 1]), "dilations": INTS([1, dil[0], dil[1], 1])}
    else:
        a = {"strides": INTS([1, 1, strides[0], strides[1]]), "dilations": INTS([1, 1, dil[0], dil[1]])}
    a["padding"] = S(padding)
    a["data_format"] = S(fmt)
    ep = []
    if explicit:
        ep = [0, 0, explicit[0][0], explicit[0][1], explicit[1][0], explicit[1][1], 0, 0]
        if fmt == "NCHW":
            ep = [0, 0, 0, 0] + ep[2:6]
    a["explicit_paddings"] = INTS(ep)
    a["use_cudnn_on_gpu"] = B(True)
    return a


conv_cases = [
    ("same_s1", (1, 5, 5, 3), (3, 3, 3, 4), (1, 1), "SAME", (1, 1), None, 1),
    ("valid_s2", (2, 5, 6, 3), (3, 3, 3, 5), (2, 2), "VALID", (1, 1), None, 1),
    ("same_s2_even", (1, 6, 6, 2), (3, 3, 2, 3), (2, 2), "SAME", (1, 1), None, 1),
    ("same_dil2", (1, 7, 7, 2), (3, 3, 2, 2), (1, 1), "SAME", (2, 2), None, 1),
    ("explicit", (1, 5, 4, 2), (3, 2, 2, 3), (1, 2), "EXPLICIT", (1, 1), ((1, 2), (2, 1)), 1),
    ("stride_gt_kernel", (1, 8, 8, 2), (2, 2, 2, 3), (3, 3), "VALID", (1, 1), None, 1),
    ("pointwise", (2, 3, 3, 8), (1, 1, 8, 5), (1, 1), "VALID", (1, 1), None, 1),
    ("pointwise_s2", (1, 5, 5, 4), (1, 1, 4, 3), (2, 2), "SAME", (1, 1), None, 1),
    ("grouped", (1, 5, 5, 4), (3, 3, 2, 6), (1, 1), "SAME", (1, 1), None, 2),
    ("big_k", (1, 4, 4, 12), (3, 3, 12, 18), (1, 1), "SAME", (1, 1), None, 1),
    ("empty_batch", (0, 5, 5, 3), (3, 3, 3, 4), (1, 1), "SAME", (1, 1), None, 1),
]
for name, xs, fs, st, pad, dil, ex, groups in conv_cases:
    x, f = r32(*xs), r32(*fs)
    add("conv2d_" + name, "Conv2D", conv_attrs(st, pad, dil, ex), [x, f], [conv2d_naive(x, f, st, dil, pad, ex, groups)])
x, f = r32(1, 5, 6, 3), r32(3, 3, 3, 2)
want = conv2d_naive(x, f, (2, 1), (1, 1), "SAME")
add("conv2d_nchw", "Conv2D", conv_attrs((2, 1), "SAME", fmt="NCHW"), [x.transpose(0, 3, 1, 2).copy(), f],
    [want.transpose(0, 3, 1, 2).copy()])
xn = r32(1, 4, 4, 2)
xn[0, 1, 1, 0] = np.nan
with np.errstate(invalid="ignore"):
    add("conv2d_nan", "Conv2D", conv_attrs((1, 1), "SAME"), [xn, r32(3, 3, 2, 2)[:] * 0 + 1],
        [conv2d_naive(xn, np.ones((3, 3, 2, 2), np.float32), (1, 1), (1, 1), "SAME")])


def depthwise_naive(x, f, strides, dil, padding):
    n, h, w, c = x.shape
    kh, kw, _, m = f.shape
    # Depthwise = grouped conv with groups=c and filter [kh, kw, 1, c*m].
    fg = f.reshape(kh, kw, 1, c * m)
    return conv2d_naive(x, fg, strides, dil, padding, None, groups=c)


for name, xs, fs, st, pad, dil in [
    ("same_s2_mult2", (1, 7, 7, 3), (3, 3, 3, 2), (2, 2), "SAME", (1, 1)),
    ("valid_dil2", (1, 7, 7, 4), (3, 3, 4, 1), (1, 1), "VALID", (2, 2)),
    ("same_s1", (1, 5, 5, 4), (5, 5, 4, 1), (1, 1), "SAME", (1, 1)),
]:
    x, f = r32(*xs), r32(*fs)
    add("depthwise_" + name, "DepthwiseConv2dNative", conv_attrs(st, pad, dil), [x, f], [depthwise_naive(x, f, st, dil, pad)])


def conv2d_backprop_input_naive(sizes, f, dy, strides, padding, dil=(1, 1)):
    n, h, w, c = sizes
    kh, kw, _, o = f.shape
    oh, ph = out_size(h, kh, strides[0], dil[0], padding)
    ow, pw = out_size(w, kw, strides[1], dil[1], padding)
    dx = np.zeros((n, h, w, c))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for di in range(kh):
                    for dj in range(kw):
                        ii = i * strides[0] - ph + di * dil[0]
                        jj = j * strides[1] - pw + dj * dil[1]
                        if 0 <= ii < h and 0 <= jj < w:
                            dx[b, ii, jj] += f[di, dj].astype(np.float64) @ dy[b, i, j].astype(np.float64)
    return dx.astype(np.float32)


for name, sizes, fs, st, pad in [
    ("same_s2", (1, 6, 6, 3), (3, 3, 3, 4), (2, 2), "SAME"),
    ("valid_s2_odd", (1, 7, 7, 2), (3, 3, 2, 3), (2, 2), "VALID"),
    ("same_s2_k4", (1, 8, 8, 3), (4, 4, 3, 2), (2, 2), "SAME"),
]:
    f = r32(*fs)
    oh, _ = out_size(sizes[1], fs[0], st[0], 1, pad)
    ow, _ = out_size(sizes[2], fs[1], st[1], 1, pad)
    dy = r32(sizes[0], oh, ow, fs[3])
    add("conv2dbackpropinput_" + name, "Conv2DBackpropInput", conv_attrs(st, pad),
        [np.array(sizes, np.int32), f, dy], [conv2d_backprop_input_naive(sizes, f, dy, st, pad)])


def conv3d_naive(x, f, strides, padding):
    n, d, h, w, c = x.shape
    kd, kh, kw, _, o = f.shape
    od, pd = out_size(d, kd, strides[0], 1, padding)
    oh, ph = out_size(h, kh, strides[1], 1, padding)
    ow, pw = out_size(w, kw, strides[2], 1, padding)
    out = np.zeros((n, od, oh, ow, o))
    for b in range(n):
        for a in range(od):
            for i in range(oh):
                for j in range(ow):
                    for da in range(kd):
                        for di in range(kh):
                            for dj in range(kw):
                                aa, ii, jj = a * strides[0] - pd + da, i * strides[1] - ph + di, j * strides[2] - pw + dj
                                if 0 <= aa < d and 0 <= ii < h and 0 <= jj < w:
                                    out[b, a, i, j] += x[b, aa, ii, jj].astype(np.float64) @ f[da, di, dj].astype(np.float64)
    return out.astype(np.float32)


x, f = r32(1, 3, 4, 4, 2), r32(2, 3, 3, 2, 3)
add("conv3d_same_s2", "Conv3D", {"strides": INTS([1, 1, 2, 2, 1]), "dilations": INTS([1, 1, 1, 1, 1]), "padding": S("SAME"),
    "data_format": S("NDHWC")}, [x, f], [conv3d_naive(x, f, (1, 2, 2), "SAME")])

# ---------------- Pooling ----------------
def pool_naive(x, k, s, padding, kind):
    sp = x.shape[1:-1]
    outs, pads = [], []
    for i, n in enumerate(sp):
        o, p = out_size(n, k[i], s[i], 1, padding)
        outs.append(o)
        pads.append(p)
    out = np.zeros((x.shape[0], *outs, x.shape[-1]), np.float64)
    for b in range(x.shape[0]):
        for pos in np.ndindex(*outs):
            lo = [pos[i] * s[i] - pads[i] for i in range(len(sp))]
            sl = tuple(slice(max(l, 0), min(l + k[i], sp[i])) for i, l in enumerate(lo))
            win = x[(b,) + sl].reshape(-1, x.shape[-1]).astype(np.float64)
            if kind == "max":
                m = np.full(x.shape[-1], -np.finfo(np.float32).max)
                for row in win:
                    m = np.where(row > m, row, m)  # NaN never wins, as in TF's cwiseMax
                out[(b,) + pos] = m
            else:
                out[(b,) + pos] = win.mean(axis=0)
    return out.astype(np.float32)


def pool_attrs(k, s, padding, fmt="NHWC"):
    return {"ksize": INTS([1, *k, 1]), "strides": INTS([1, *s, 1]), "padding": S(padding), "data_format": S(fmt),
            "explicit_paddings": INTS([])}


for name, xs, k, s, pad in [
    ("same_s2", (1, 7, 7, 3), (3, 3), (2, 2), "SAME"),
    ("valid_s2", (2, 6, 6, 2), (2, 2), (2, 2), "VALID"),
    ("same_s1", (1, 5, 5, 2), (3, 3), (1, 1), "SAME"),
    ("stride_gt_kernel", (1, 8, 8, 2), (2, 2), (3, 3), "SAME"),
    ("same_even", (1, 6, 8, 1), (3, 2), (2, 3), "SAME"),
]:
    x = r32(*xs)
    add("maxpool_" + name, "MaxPool", pool_attrs(k, s, pad), [x], [pool_naive(x, k, s, pad, "max")])
    add("avgpool_" + name, "AvgPool", pool_attrs(k, s, pad), [x], [pool_naive(x, k, s, pad, "avg")])
x = r32(1, 4, 4, 1)
x[0, 0, 0, 0] = np.nan
add("maxpool_nan", "MaxPool", pool_attrs((2, 2), (2, 2), "VALID"), [x], [pool_naive(x, (2, 2), (2, 2), "VALID", "max")])
x = r32(1, 4, 5, 5, 2)
a3 = {"ksize": INTS([1, 2, 3, 3, 1]), "strides": INTS([1, 2, 2, 2, 1]), "padding": S("SAME"), "data_format": S("NDHWC")}
add("maxpool3d_same", "MaxPool3D", a3, [x], [pool_naive(x, (2, 3, 3), (2, 2, 2), "SAME", "max")])
add("avgpool3d_same", "AvgPool3D", a3, [x], [pool_naive(x, (2, 3, 3), (2, 2, 2), "SAME", "avg")])

# ---------------- BiasAdd / BatchNorm / activations ----------------
x, b = r32(2, 3, 4, 5), r32(5)
add("biasadd_nhwc", "BiasAdd", {"data_format": S("NHWC")}, [x, b], [x + b])
x, b = r32(2, 5, 3, 4), r32(5)
add("biasadd_nchw", "BiasAdd", {"data_format": S("NCHW")}, [x, b], [x + b.reshape(1, 5, 1, 1)])
x = r32(2, 3, 3, 4)
sc, of, mu, var = r32(4), r32(4), r32(4), np.abs(r32(4)) + 0.1
eps = 0.001
y = ((x.astype(np.float64) - mu) / np.sqrt(var.astype(np.float64) + np.float32(eps)) * sc + of).astype(np.float32)
bn_attrs = {"epsilon": F(eps), "data_format": S("NHWC"), "is_training": B(False), "exponential_avg_factor": F(1.0)}
add("fusedbatchnormv3", "FusedBatchNormV3", bn_attrs, [x, sc, of, mu, var], [y, mu, var, mu, var, np.float32(0)])

xa = np.concatenate([r32(20) * 8, np.array([np.nan, np.inf, -np.inf, 0, 6, 6.5, -0.5], np.float32)])
x64 = xa.astype(np.float64)
with np.errstate(invalid="ignore", over="ignore"):
    add("relu", "Relu", {}, [xa], [np.where(np.isnan(xa), np.nan, np.maximum(xa, 0))])
    add("relu6", "Relu6", {}, [xa], [np.where(np.isnan(xa), np.nan, np.minimum(np.maximum(xa, 0), 6))])
    add("elu", "Elu", {}, [xa], [np.where(x64 < 0, np.exp(x64) - 1, x64).astype(np.float32)])
    add("selu", "Selu", {}, [xa], [np.where(x64 < 0, 1.7580993408473768599402175208123 * (np.exp(x64) - 1),
                                            1.0507009873554804934193349852946 * x64).astype(np.float32)])
    add("leakyrelu", "LeakyRelu", {"alpha": F(0.2)}, [xa], [np.where(x64 > 0, x64, x64 * np.float32(0.2)).astype(np.float32)])
    add("sigmoid", "Sigmoid", {}, [xa], [(1 / (1 + np.exp(-x64))).astype(np.float32)])
    add("tanh", "Tanh", {}, [xa], [np.tanh(x64).astype(np.float32)])

# ---------------- Fused ops ----------------
x, f, bias = r32(1, 6, 6, 3), r32(3, 3, 3, 4), r32(4)
conv = conv2d_naive(x, f, (1, 1), (1, 1), "SAME").astype(np.float64)
fa = conv_attrs((1, 1), "SAME")
fa.update({"fused_ops": STRS(["BiasAdd", "Relu6"]), "num_args": I(1), "epsilon": F(0.0001), "leakyrelu_alpha": F(0.2)})
add("fusedconv2d_bias_relu6", "_FusedConv2D", fa, [x, f, bias], [np.clip(conv + bias, 0, 6).astype(np.float32)])
fa = dict(fa)
fa.update({"fused_ops": STRS(["FusedBatchNorm", "Relu"]), "num_args": I(4), "epsilon": F(0.001)})
sc, of, mu, var = r32(4), r32(4), r32(4), np.abs(r32(4)) + 0.1
bn = (conv - mu) / np.sqrt(var.astype(np.float64) + np.float32(0.001)) * sc + of
add("fusedconv2d_bn_relu", "_FusedConv2D", fa, [x, f, sc, of, mu, var], [np.maximum(bn, 0).astype(np.float32)])
fa = dict(fa)
fa.update({"fused_ops": STRS(["BiasAdd", "LeakyRelu"]), "num_args": I(1), "leakyrelu_alpha": F(0.1)})
add("fusedconv2d_bias_leakyrelu", "_FusedConv2D", fa, [x, f, bias],
    [np.where(conv + bias > 0, conv + bias, (conv + bias) * np.float32(0.1)).astype(np.float32)])
a, b, bias = r32(5, 7), r32(7, 3), r32(3)
mm = a.astype(np.float64) @ b + bias
add("fusedmatmul_bias_relu", "_FusedMatMul", {"transpose_a": B(False), "transpose_b": B(False), "fused_ops": STRS(["BiasAdd", "Relu"]),
    "num_args": I(1), "epsilon": F(0.0001), "leakyrelu_alpha": F(0.2)}, [a, b, bias], [np.maximum(mm, 0).astype(np.float32)])

# ---------------- DepthToSpace / SpaceToDepth / LRN ----------------
def depth_to_space(x, b):
    n, h, w, c = x.shape
    return x.reshape(n, h, w, b, b, c // (b * b)).transpose(0, 1, 3, 2, 4, 5).reshape(n, h * b, w * b, c // (b * b))


def space_to_depth(x, b):
    n, h, w, c = x.shape
    return x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5).reshape(n, h // b, w // b, b * b * c)


x = r32(2, 2, 3, 8)
add("depthtospace_nhwc", "DepthToSpace", {"block_size": I(2), "data_format": S("NHWC")}, [x], [depth_to_space(x, 2)])
add("depthtospace_nchw", "DepthToSpace", {"block_size": I(2), "data_format": S("NCHW")}, [x.transpose(0, 3, 1, 2).copy()],
    [depth_to_space(x, 2).transpose(0, 3, 1, 2).copy()])
x = r32(1, 6, 4, 3)
add("spacetodepth_nhwc", "SpaceToDepth", {"block_size": I(2), "data_format": S("NHWC")}, [x], [space_to_depth(x, 2)])
add("spacetodepth_nchw", "SpaceToDepth", {"block_size": I(2), "data_format": S("NCHW")}, [x.transpose(0, 3, 1, 2).copy()],
    [space_to_depth(x, 2).transpose(0, 3, 1, 2).copy()])
x = r32(1, 2, 3, 7) * 3
r, bias, alpha, beta = 2, 1.0, 0.5, 0.75
x64 = x.astype(np.float64)
sq = np.zeros_like(x64)
for d in range(7):
    sq[..., d] = (x64[..., max(0, d - r):d + r + 1] ** 2).sum(-1)
add("lrn", "LRN", {"depth_radius": I(r), "bias": F(bias), "alpha": F(alpha), "beta": F(beta)}, [x],
    [(x64 / (bias + alpha * sq) ** beta).astype(np.float32)])

# ---------------- ResizeBicubic (direct Keys kernel, float64) ----------------
def keys(t, a):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return 0.0


def bicubic_taps(o, n, sc, half):
    loc = (o + 0.5) * sc - 0.5 if half else o * sc
    f = math.floor(loc)
    d = loc - f
    a = -0.5 if half else -0.75
    idx = [f - 1, f, f + 1, f + 2]
    w = [keys(d + 1, a), keys(d, a), keys(1 - d, a), keys(2 - d, a)]
    if half:  # taps outside the image are dropped, the rest renormalised
        w = [wi if 0 <= i < n else 0.0 for wi, i in zip(w, idx)]
        s = sum(w)
        w = [wi / s for wi in w]
    idx = [min(max(i, 0), n - 1) for i in idx]
    return idx, w


def bicubic(x, oh, ow, align, half):
    n, ih, iw, c = x.shape
    sc = lambda i, o: (i - 1) / (o - 1) if align and i > 1 and o > 1 else i / o
    out = np.zeros((n, oh, ow, c))
    x64 = x.astype(np.float64)
    for y in range(oh):
        yi, yw = bicubic_taps(y, ih, sc(ih, oh), half)
        for xx in range(ow):
            xi, xw = bicubic_taps(xx, iw, sc(iw, ow), half)
            for a in range(4):
                for b in range(4):
                    out[:, y, xx, :] += yw[a] * xw[b] * x64[:, yi[a], xi[b], :]
    return out.astype(np.float32)


for name, xs, size, align, half in [
    ("half_pixel_up2", (1, 4, 5, 2), (8, 10), False, True),
    ("half_pixel_down2", (1, 8, 6, 1), (4, 3), False, True),
    ("legacy_up2", (1, 4, 4, 2), (8, 8), False, False),
    ("align_corners", (1, 4, 4, 1), (7, 7), True, False),
]:
    x = r32(*xs)
    add("resizebicubic_" + name, "ResizeBicubic", {"align_corners": B(align), "half_pixel_centers": B(half)},
        [x, np.array(size, np.int32)], [bicubic(x, size[0], size[1], align, half)])

json.dump({"generator": "gen_numpy.py", "numpy": np.__version__, "cases": cases}, sys.stdout, separators=(",", ":"))
