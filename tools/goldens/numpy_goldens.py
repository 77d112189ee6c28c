#!/usr/bin/python3
"""Generate NumPy goldens for tfscan's reference kernels (kernels/ part 1:
elementwise math, comparisons, casts, reductions, array ops).

NumPy is an independent implementation of the same math; each case records the
TensorFlow op name, its attrs, the inputs and NumPy's result. Where NumPy's
semantics differ from TensorFlow's, the case is computed the TensorFlow way
with NumPy primitives and says so (e.g. TruncateDiv, Round of ints), or is
left to the explicit Go edge-case tests (integer division by zero, NaN in
ArgMax, out-of-range casts).

Run from the repository root with Debian's NumPy:
    /usr/bin/python3 tools/goldens/numpy_goldens.py
It writes testdata/kernels/numpy_goldens.json (deterministic: fixed seeds).
"""
import json
import math
import os
import sys

import numpy as np

rng = np.random.default_rng(20240601)
CASES = []

DT = {
    np.dtype(np.float32): "float32", np.dtype(np.float64): "float64",
    np.dtype(np.float16): "float16", np.dtype(np.int8): "int8",
    np.dtype(np.uint8): "uint8", np.dtype(np.int16): "int16",
    np.dtype(np.uint16): "uint16", np.dtype(np.int32): "int32",
    np.dtype(np.int64): "int64", np.dtype(np.uint32): "uint32",
    np.dtype(np.uint64): "uint64", np.dtype(np.bool_): "bool",
}


def enc(a):
    a = np.asarray(a)
    flat = a.reshape(-1)
    if a.dtype.kind == "f":
        data = []
        for v in flat.tolist():
            if math.isnan(v):
                data.append("nan")
            elif math.isinf(v):
                data.append("inf" if v > 0 else "-inf")
            elif a.dtype.itemsize < 8:
                # Shortest decimal that round-trips in the tensor's own dtype,
                # to keep the file small.
                data.append(float(np.format_float_positional(a.dtype.type(v), unique=True, trim="-")))
            else:
                data.append(v)
    elif a.dtype.kind == "b":
        data = [bool(v) for v in flat.tolist()]
    else:
        data = [int(v) for v in flat.tolist()]
    return {"dtype": DT[a.dtype], "shape": list(a.shape), "data": data}


def case(name, op, inputs, outputs, attrs=None, rtol=1e-4, atol=1e-6):
    CASES.append({
        "name": name, "op": op, "attrs": attrs or {},
        "inputs": [enc(x) for x in inputs],
        "outputs": [enc(y) for y in outputs],
        "rtol": rtol, "atol": atol,
    })


def rnd(shape, dtype=np.float32, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


SPECIAL = np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -1.0, 1e-3,
                    100.0, -100.0, np.inf, -np.inf, np.nan], dtype=np.float64)

with np.errstate(all="ignore"):
    # ---- unary, float types -------------------------------------------------
    def erf(x):
        return np.vectorize(math.erf)(x.astype(np.float64)).astype(x.dtype)

    def erfc(x):
        return np.vectorize(math.erfc)(x.astype(np.float64)).astype(x.dtype)

    def softplus(x):
        return np.logaddexp(0, x.astype(np.float64)).astype(x.dtype)

    unary = {
        "Abs": np.abs, "Neg": np.negative, "Sign": np.sign, "Square": np.square,
        "Sqrt": np.sqrt, "Rsqrt": lambda x: (1 / np.sqrt(x.astype(np.float64))).astype(x.dtype),
        "Exp": np.exp, "Expm1": np.expm1, "Log": np.log, "Log1p": np.log1p,
        "Sin": np.sin, "Cos": np.cos, "Tan": np.tan, "Asin": np.arcsin,
        "Acos": np.arccos, "Atan": np.arctan, "Sinh": np.sinh, "Cosh": np.cosh,
        "Floor": np.floor, "Ceil": np.ceil, "Round": np.round, "Rint": np.rint,
        "Reciprocal": np.reciprocal, "Erf": erf, "Erfc": erfc, "Softplus": softplus,
        "Softsign": lambda x: x / (1 + np.abs(x)),
    }
    for op, fn in unary.items():
        for dt in (np.float32, np.float64, np.float16):
            if op == "Rint" and dt == np.float16:
                continue  # TF registers Rint for float and double only
            x = np.concatenate([SPECIAL, rnd(9, np.float64)]).astype(dt)
            if dt == np.float16:
                # NumPy's float16 ufuncs compute in float32 and round once,
                # like Eigen::half; reproduce that explicitly.
                y = fn(x.astype(np.float32)).astype(np.float16)
                tol = 1e-3
            else:
                y = fn(x).astype(dt)
                tol = 1e-5 if dt == np.float64 else 1e-4
            case(f"{op}/{DT[np.dtype(dt)]}", op, [x.reshape(3, 8)], [y.reshape(3, 8)], rtol=tol)
    for pred, fn in {"IsNan": np.isnan, "IsInf": np.isinf, "IsFinite": np.isfinite}.items():
        x = SPECIAL.astype(np.float32)
        case(f"{pred}/float32", pred, [x], [fn(x)])
    # unary, integers (wrapping: NumPy's integer negation/abs/square wrap like TF)
    for dt in (np.int8, np.int32, np.int64):
        info = np.iinfo(dt)
        x = np.array([0, 1, -1, 7, -7, info.max, info.min, 100 % (info.max + 1)], dtype=dt)
        case(f"Abs/{DT[np.dtype(dt)]}", "Abs", [x], [np.abs(x)])
        case(f"Neg/{DT[np.dtype(dt)]}", "Neg", [x], [np.negative(x)])
        case(f"Square/{DT[np.dtype(dt)]}", "Square", [x], [np.square(x)])
        case(f"Sign/{DT[np.dtype(dt)]}", "Sign", [x], [np.sign(x)])
    x = np.array([0, 3, 200, 255], dtype=np.uint8)
    case("Square/uint8", "Square", [x], [np.square(x)])
    x = np.array([-5, 0, 7], dtype=np.int32)
    case("Round/int32 (identity)", "Round", [x], [x])
    b = np.array([True, False, True])
    case("LogicalNot", "LogicalNot", [b], [~b])

    # ---- binary with broadcasting -------------------------------------------
    shapes = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1, 3), (2, 1)), ((), (2, 2)),
              ((1,), (3, 1)), ((0, 3), (1, 3)), ((2, 1, 4), (1, 3, 1))]
    # All broadcasting corners for the common ops, two for the rest.
    full_shapes = ("AddV2", "Mul", "Maximum", "SquaredDifference")
    fbin = {
        "AddV2": np.add, "Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
        "RealDiv": np.divide, "Div": np.divide, "Maximum": np.maximum, "Minimum": np.minimum,
        "SquaredDifference": lambda a, b: np.square(a - b), "Pow": np.power,
        "Atan2": np.arctan2, "FloorDiv": np.floor_divide, "FloorMod": np.mod,
        "TruncateDiv": lambda a, b: np.trunc(a / b), "TruncateMod": np.fmod, "Mod": np.fmod,
        "DivNoNan": lambda a, b: np.where(b == 0, 0, a / np.where(b == 0, 1, b)).astype(a.dtype),
        "MulNoNan": lambda a, b: np.where(b == 0, 0, a * b).astype(a.dtype),
    }
    for op, fn in fbin.items():
        for i, (sa, sb) in enumerate(shapes if op in full_shapes else shapes[1:3]):
            for dt in (np.float32, np.float64):
                if op in ("TruncateMod", "Mod") and dt not in (np.float32, np.float64):
                    continue
                a, b = rnd(sa, dt), rnd(sb, dt)
                if op == "Pow":
                    a = np.abs(a) + 0.1
                if op in ("DivNoNan", "MulNoNan") and b.size:
                    b.reshape(-1)[0] = 0
                case(f"{op}/{DT[np.dtype(dt)]}/{sa}x{sb}", op, [a, b], [fn(a, b).astype(dt)])
    # NaN propagation of Maximum/Minimum (TF: PropagateNaN; NumPy agrees).
    a = np.array([np.nan, 1.0, np.nan, -np.inf], dtype=np.float32)
    b = np.array([2.0, np.nan, np.nan, 3.0], dtype=np.float32)
    case("Maximum/NaN", "Maximum", [a, b], [np.maximum(a, b)])
    case("Minimum/NaN", "Minimum", [a, b], [np.minimum(a, b)])
    # float16 binary: NumPy computes in float32 and rounds once, as Eigen::half.
    for op in ("AddV2", "Sub", "Mul", "RealDiv", "Maximum"):
        a, b = rnd((3, 4), np.float16), rnd((4,), np.float16)
        y = fbin[op](a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
        case(f"{op}/float16", op, [a, b], [y], rtol=1e-3)
    # integers: wrapping add/sub/mul, floor div/mod with negative operands.
    for dt in (np.int8, np.uint8, np.int32, np.int64):
        info = np.iinfo(dt)
        a = np.array([info.max, info.min, 7, 100, 3, 0], dtype=dt)
        b = np.array([1, 1, 2, 3, 5, 9], dtype=dt)
        for op, fn in (("AddV2", np.add), ("Sub", np.subtract), ("Mul", np.multiply),
                       ("Maximum", np.maximum), ("Minimum", np.minimum)):
            case(f"{op}/{DT[np.dtype(dt)]}/wrap", op, [a, b], [fn(a, b)])
    for dt in (np.int8, np.int32, np.int64):
        a = np.array([7, -7, 7, -7, 0, 6, -6, 1], dtype=dt)
        b = np.array([2, 2, -2, -2, 3, 3, -3, 5], dtype=dt)
        case(f"FloorDiv/{DT[np.dtype(dt)]}", "FloorDiv", [a, b], [np.floor_divide(a, b)])
        case(f"FloorMod/{DT[np.dtype(dt)]}", "FloorMod", [a, b], [np.mod(a, b)])
        # TF's integer Div and TruncateDiv truncate toward zero (C++), unlike
        # NumPy's floor_divide: computed with Python ints here.
        trunc = np.array([int(x / y) if (x < 0) == (y < 0) else -(abs(int(x)) // abs(int(y)))
                          for x, y in zip(a.tolist(), b.tolist())], dtype=dt)
        case(f"Div/{DT[np.dtype(dt)]}", "Div", [a, b], [trunc])
        case(f"TruncateDiv/{DT[np.dtype(dt)]}", "TruncateDiv", [a, b], [trunc])
        case(f"Pow/{DT[np.dtype(dt)]}", "Pow", [a, np.abs(b)], [np.power(a, np.abs(b))])
    for dt in (np.int32, np.int64):
        a = np.array([7, -7, 7, -7], dtype=dt)
        b = np.array([2, 2, -2, -2], dtype=dt)
        case(f"TruncateMod/{DT[np.dtype(dt)]}", "TruncateMod", [a, b], [np.fmod(a, b)])
    xs = [rnd((3, 2)), rnd((3, 2)), rnd((3, 2))]
    case("AddN/float32", "AddN", xs, [xs[0] + xs[1] + xs[2]])

    # ---- comparisons and logical --------------------------------------------
    cmp = {"Equal": np.equal, "NotEqual": np.not_equal, "Less": np.less,
           "LessEqual": np.less_equal, "Greater": np.greater, "GreaterEqual": np.greater_equal}
    for op, fn in cmp.items():
        a = np.array([[1, 2, np.nan], [4, 5, 6]], dtype=np.float32)
        b = np.array([2, 2, np.nan], dtype=np.float32)
        case(f"{op}/float32", op, [a, b], [fn(a, b)], attrs={"incompatible_shape_error": {"b": True}} if op in ("Equal", "NotEqual") else {})
        ai = np.array([[1, -2, 3]], dtype=np.int64)
        bi = np.array([[1], [3]], dtype=np.int64)
        case(f"{op}/int64", op, [ai, bi], [fn(ai, bi)], attrs={"incompatible_shape_error": {"b": True}} if op in ("Equal", "NotEqual") else {})
    p = np.array([[True, False], [True, True]])
    q = np.array([False, True])
    case("LogicalAnd", "LogicalAnd", [p, q], [p & q])
    case("LogicalOr", "LogicalOr", [p, q], [p | q])

    # ---- cast ---------------------------------------------------------------
    x = np.array([0.0, 1.5, -1.5, 2.5, -2.7, 100.9, -128.0, 3e4], dtype=np.float32)
    case("Cast/float32->int32", "Cast", [x], [x.astype(np.int32)], attrs={"DstT": {"type": "DT_INT32"}, "Truncate": {"b": False}})
    y = (rnd(16) * 1000).astype(np.float32)
    case("Cast/float32->float16", "Cast", [y], [y.astype(np.float16)], attrs={"DstT": {"type": "DT_HALF"}, "Truncate": {"b": False}}, rtol=0)
    z = rng.integers(-100000, 100000, size=12).astype(np.int32)
    for dt, name in ((np.int8, "DT_INT8"), (np.uint8, "DT_UINT8"), (np.int16, "DT_INT16"), (np.int64, "DT_INT64"),
                     (np.float32, "DT_FLOAT"), (np.float16, "DT_HALF"), (np.bool_, "DT_BOOL")):
        case(f"Cast/int32->{DT[np.dtype(dt)]}", "Cast", [z], [z.astype(dt)], attrs={"DstT": {"type": name}, "Truncate": {"b": False}}, rtol=0)
    d = rnd(10, np.float64) * 1e3
    case("Cast/float64->float32", "Cast", [d], [d.astype(np.float32)], attrs={"DstT": {"type": "DT_FLOAT"}, "Truncate": {"b": False}}, rtol=0)
    bb = np.array([True, False, True])
    case("Cast/bool->float32", "Cast", [bb], [bb.astype(np.float32)], attrs={"DstT": {"type": "DT_FLOAT"}, "Truncate": {"b": False}}, rtol=0)

    # ---- reductions ----------------------------------------------------------
    red = {"Sum": np.sum, "Mean": np.mean, "Prod": np.prod, "Max": np.max, "Min": np.min,
           "EuclideanNorm": lambda x, axis, keepdims: np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=axis, keepdims=keepdims))}
    x4 = rnd((2, 3, 2, 3), np.float32, 0.5, 1.5)
    for op, fn in red.items():
        for axes in ([1], [0, 2], [-1], [1, 3], [0, 1, 2, 3], [], [3, 0]):
            for keep in ((False, True) if op == "Sum" else (axes == [1, 3],)):
                y = np.asarray(fn(x4, axis=tuple(axes), keepdims=keep)).astype(np.float32)
                case(f"{op}/axes={axes}/keep={keep}", op, [x4, np.array(axes, dtype=np.int32)], [y],
                     attrs={"keep_dims": {"b": keep}})
    xi = rng.integers(-50, 50, size=(3, 4)).astype(np.int32)
    for op, fn in (("Sum", np.sum), ("Prod", np.prod), ("Max", np.max), ("Min", np.min)):
        case(f"{op}/int32", op, [xi, np.array([1], dtype=np.int64)], [fn(xi, axis=1).astype(np.int32)], attrs={"keep_dims": {"b": False}})
    # Integer Mean truncates toward zero (TF: int64 sum / count), NumPy's mean is float.
    s = xi.astype(np.int64).sum(axis=0)
    m = np.array([int(v / 3) for v in s.tolist()], dtype=np.int32)
    case("Mean/int32/truncating", "Mean", [xi, np.array([0], dtype=np.int32)], [m], attrs={"keep_dims": {"b": False}})
    bx = rng.integers(0, 2, size=(3, 4)).astype(bool)
    case("All", "All", [bx, np.array([1], dtype=np.int32)], [bx.all(axis=1)], attrs={"keep_dims": {"b": False}})
    case("Any", "Any", [bx, np.array([0], dtype=np.int32)], [bx.any(axis=0, keepdims=True)], attrs={"keep_dims": {"b": True}})
    # Empty reductions give the identity.
    e = np.zeros((0, 3), dtype=np.float32)
    for op, y in (("Sum", np.zeros(3)), ("Prod", np.ones(3)), ("Max", np.full(3, -np.inf)),
                  ("Min", np.full(3, np.inf)), ("Mean", np.full(3, np.nan))):
        case(f"{op}/empty", op, [e, np.array([0], dtype=np.int32)], [y.astype(np.float32)], attrs={"keep_dims": {"b": False}})
    am = rnd((3, 5))
    am[1, 2] = am[1, 4] = 10  # ties: the first index wins
    for op, fn in (("ArgMax", np.argmax), ("ArgMin", np.argmin)):
        for ax in (0, 1, -1):
            case(f"{op}/axis={ax}", op, [am, np.array(ax, dtype=np.int32)], [fn(am, axis=ax).astype(np.int64)],
                 attrs={"output_type": {"type": "DT_INT64"}})
    cs = rnd((3, 4))
    for op, fn, ident in (("Cumsum", np.cumsum, 0), ("Cumprod", np.cumprod, 1)):
        for ax in (0, 1):
            for excl in (False, True):
                for rev in (False, True):
                    v = np.flip(cs, ax) if rev else cs
                    r = fn(v, axis=ax)
                    if excl:
                        pad = [(0, 0), (0, 0)]
                        pad[ax] = (1, 0)
                        r = np.pad(r, pad, constant_values=ident)
                        r = np.take(r, range(cs.shape[ax]), axis=ax)
                    if rev:
                        r = np.flip(r, ax)
                    case(f"{op}/axis={ax}/excl={excl}/rev={rev}", op, [cs, np.array(ax, dtype=np.int32)], [r.astype(np.float32)],
                         attrs={"exclusive": {"b": excl}, "reverse": {"b": rev}})

    # ---- array ops ------------------------------------------------------------
    t4 = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    for perm in ([0, 1, 2, 3], [0, 3, 1, 2], [0, 2, 3, 1], [3, 2, 1, 0], [1, 0, 2, 3], [0, 1, 3, 2], [2, 0, 3, 1]):
        case(f"Transpose/{perm}", "Transpose", [t4, np.array(perm, dtype=np.int32)], [np.transpose(t4, perm)])
    big = np.arange(37 * 35, dtype=np.float32).reshape(37, 35)  # spans several 32x32 tiles
    case("Transpose/2d-tiled", "Transpose", [big, np.array([1, 0], dtype=np.int64)], [big.T])
    a, b = rnd((2, 3)), rnd((2, 5))
    case("ConcatV2/axis1", "ConcatV2", [a, b, np.array(1, dtype=np.int32)], [np.concatenate([a, b], 1)])
    case("ConcatV2/axis-1", "ConcatV2", [a, b, np.array(-1, dtype=np.int64)], [np.concatenate([a, b], 1)])
    c = rnd((4, 3))
    case("Concat/axis0", "Concat", [np.array(0, dtype=np.int32), a, c], [np.concatenate([a, c], 0)])
    s = np.arange(24, dtype=np.int32).reshape(4, 6)
    case("Split/axis1", "Split", [np.array(1, dtype=np.int32), s], np.split(s, 3, axis=1), attrs={"num_split": {"i": 3}})
    case("SplitV/-1", "SplitV", [s, np.array([1, -1, 2], dtype=np.int32), np.array(1, dtype=np.int32)],
         [s[:, :1], s[:, 1:4], s[:, 4:]], attrs={"num_split": {"i": 3}})
    p1, p2 = rnd((2, 3)), rnd((2, 3))
    for ax in (0, 1, 2, -1):
        case(f"Pack/axis={ax}", "Pack", [p1, p2], [np.stack([p1, p2], ax)], attrs={"axis": {"i": ax}, "N": {"i": 2}})
    case("Unpack/axis=1", "Unpack", [t4[0]], [t4[0][:, i] for i in range(4)], attrs={"axis": {"i": 1}, "num": {"i": 4}})
    case("Slice", "Slice", [t4, np.array([1, 0, 1, 2], dtype=np.int32), np.array([1, -1, 2, 3], dtype=np.int32)],
         [t4[1:2, 0:, 1:3, 2:5]])

    def strided(x, begin, end, strides, bm=0, em=0, elm=0, nam=0, sam=0):
        idx = []
        for i in range(len(begin)):
            if elm & (1 << i):
                idx.append(Ellipsis)
            elif nam & (1 << i):
                idx.append(np.newaxis)
            elif sam & (1 << i):
                idx.append(begin[i])
            else:
                idx.append(slice(None if bm & (1 << i) else begin[i],
                                 None if em & (1 << i) else end[i], strides[i]))
        return x[tuple(idx)]

    ss_cases = [
        ([0, 1, 0, 0], [2, 3, 4, 5], [1, 1, 2, 2], {}),
        ([1, -1, 3, 4], [0, 0, 0, 0], [-1, -1, -1, -2], {}),
        ([0, 0], [0, 0], [1, -1], {"ellipsis_mask": 1}),
        ([1, 0, 2], [2, 0, 3], [1, 1, 1], {"shrink_axis_mask": 5, "ellipsis_mask": 2}),
        ([0, 0, 0], [1, 2, 3], [1, 1, 1], {"new_axis_mask": 2}),
        ([-1, 0], [0, 0], [1, 1], {"shrink_axis_mask": 1, "end_mask": 2}),
        ([0, 2], [0, -1], [1, 1], {"begin_mask": 1, "end_mask": 1}),
        ([10, -10], [-10, 10], [-1, 1], {}),
        ([0, 1], [0, 3], [1, 1], {"ellipsis_mask": 1, "new_axis_mask": 0}),
    ]
    names = {"begin_mask": "bm", "end_mask": "em", "ellipsis_mask": "elm", "new_axis_mask": "nam", "shrink_axis_mask": "sam"}
    for i, (bgn, end, st, masks) in enumerate(ss_cases):
        kw = {names[k]: v for k, v in masks.items()}
        y = np.ascontiguousarray(strided(t4, bgn, end, st, **kw))
        attrs = {k: {"i": masks.get(k, 0)} for k in names}
        case(f"StridedSlice/{i}", "StridedSlice",
             [t4, np.array(bgn, dtype=np.int32), np.array(end, dtype=np.int32), np.array(st, dtype=np.int32)], [y], attrs=attrs)
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    pads = np.array([[1, 2], [2, 0]], dtype=np.int32)
    case("Pad", "Pad", [m, pads], [np.pad(m, pads)])
    case("PadV2", "PadV2", [m, pads, np.array(-7, dtype=np.float32)], [np.pad(m, pads, constant_values=-7)])
    case("MirrorPad/REFLECT", "MirrorPad", [m, pads], [np.pad(m, pads, mode="reflect")], attrs={"mode": {"s": "REFLECT"}})
    pads2 = np.array([[3, 2], [4, 1]], dtype=np.int64)
    case("MirrorPad/SYMMETRIC", "MirrorPad", [m, pads2], [np.pad(m, pads2, mode="symmetric")], attrs={"mode": {"s": "SYMMETRIC"}})
    case("Tile", "Tile", [m, np.array([2, 3], dtype=np.int32)], [np.tile(m, (2, 3))])
    case("ReverseV2", "ReverseV2", [t4, np.array([1, -1], dtype=np.int32)], [np.flip(t4, (1, 3))])
    bt = rnd((3, 1))
    case("BroadcastTo", "BroadcastTo", [bt, np.array([2, 3, 4], dtype=np.int32)], [np.broadcast_to(bt, (2, 3, 4))])
    params = rnd((5, 4, 3))
    gi = np.array([[4, 0], [2, 2], [1, 3]], dtype=np.int32)
    for ax in (0, 1, 2):
        gidx = gi % params.shape[ax]
        case(f"GatherV2/axis={ax}", "GatherV2", [params, gidx, np.array(ax, dtype=np.int32)],
             [np.take(params, gidx, axis=ax)], attrs={"batch_dims": {"i": 0}})
    case("Gather", "Gather", [params, gi[:, 0]], [np.take(params, gi[:, 0], axis=0)], attrs={"validate_indices": {"b": True}})
    # batch_dims=1: out[b, ...] = take(params[b], indices[b], axis-1)
    bp = rnd((2, 4, 3))
    bi = np.array([[3, 0, 1], [2, 2, 0]], dtype=np.int64)
    case("GatherV2/batch_dims=1", "GatherV2", [bp, bi, np.array(1, dtype=np.int32)],
         [np.stack([np.take(bp[i], bi[i], axis=0) for i in range(2)])], attrs={"batch_dims": {"i": 1}})
    ndi = np.array([[1, 2], [4, 0], [0, 3]], dtype=np.int32)
    case("GatherNd", "GatherNd", [params, ndi], [params[ndi[:, 0], ndi[:, 1]]])
    ndi1 = np.array([[[3]], [[1]]], dtype=np.int64)
    case("GatherNd/k=1", "GatherNd", [params, ndi1], [params[ndi1[..., 0]]])
    sci = np.array([[1], [3], [1]], dtype=np.int32)
    upd = rnd((3, 4))
    out = np.zeros((5, 4), dtype=np.float32)
    np.add.at(out, sci[:, 0], upd)
    case("ScatterNd/duplicates-add", "ScatterNd", [sci, upd, np.array([5, 4], dtype=np.int32)], [out])
    base = rnd((5, 4))
    upd2 = rnd((2, 4))
    tsu = base.copy()
    tsu[[0, 2]] = upd2
    case("TensorScatterUpdate", "TensorScatterUpdate", [base, np.array([[0], [2]], dtype=np.int32), upd2], [tsu])
    oh = np.array([[0, 2], [-1, 3]], dtype=np.int32)
    eye = np.eye(3, dtype=np.float32)
    ohy = np.where((oh[..., None] >= 0) & (oh[..., None] < 3), eye[np.clip(oh, 0, 2)], 0).astype(np.float32) * 4 + \
        np.where((oh[..., None] >= 0) & (oh[..., None] < 3), 1 - eye[np.clip(oh, 0, 2)], 1).astype(np.float32) * -1
    case("OneHot/axis=-1", "OneHot", [oh, np.array(3, dtype=np.int32), np.array(4, dtype=np.float32), np.array(-1, dtype=np.float32)],
         [ohy], attrs={"axis": {"i": -1}})
    case("OneHot/axis=0", "OneHot", [oh, np.array(3, dtype=np.int32), np.array(4, dtype=np.float32), np.array(-1, dtype=np.float32)],
         [np.moveaxis(ohy, -1, 0)], attrs={"axis": {"i": 0}})
    w = np.array([[0, 1.5, 0], [-2, 0, np.nan]], dtype=np.float32)
    case("Where/float32", "Where", [w], [np.argwhere(w != 0).astype(np.int64)])
    cnd = np.array([[True, False, True]])
    tt, ee = rnd((2, 3)), rnd((2, 1))
    case("SelectV2", "SelectV2", [cnd, tt, ee], [np.where(cnd, tt, ee)])
    cv = np.array([True, False])
    case("Select/vector-cond", "Select", [cv, tt, tt * 2], [np.where(cv[:, None], tt, tt * 2)])
    case("Range/int32", "Range", [np.array(3, dtype=np.int32), np.array(18, dtype=np.int32), np.array(4, dtype=np.int32)], [np.arange(3, 18, 4, dtype=np.int32)])
    case("Range/float32", "Range", [np.array(1, dtype=np.float32), np.array(-2, dtype=np.float32), np.array(-0.3, dtype=np.float32)],
         [(np.float32(1) + np.arange(10).astype(np.float32) * np.float32(-0.3)).astype(np.float32)])
    case("LinSpace", "LinSpace", [np.array(-1, dtype=np.float32), np.array(2, dtype=np.float32), np.array(7, dtype=np.int32)],
         [np.linspace(-1, 2, 7, dtype=np.float32)])
    cl = rnd((3, 4))
    case("ClipByValue", "ClipByValue", [cl, np.array(-1, dtype=np.float32), np.array(0.5, dtype=np.float32)], [np.clip(cl, -1, 0.5)])
    u = np.array([4, 1, 4, 2, 1, 9, 2], dtype=np.int32)
    _, first, inv = np.unique(u, return_index=True, return_inverse=True)
    order = np.argsort(first)  # TF keeps first-occurrence order; NumPy sorts
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    case("Unique", "Unique", [u], [u[np.sort(first)], rank[inv].astype(np.int32)], attrs={"out_idx": {"type": "DT_INT32"}})
    case("Fill", "Fill", [np.array([2, 3], dtype=np.int32), np.array(1.25, dtype=np.float32)], [np.full((2, 3), 1.25, dtype=np.float32)])
    case("Reshape/-1", "Reshape", [t4, np.array([4, -1], dtype=np.int32)], [t4.reshape(4, -1)])
    case("ExpandDims/-1", "ExpandDims", [m, np.array(-1, dtype=np.int32)], [m[..., None]])
    case("Squeeze", "Squeeze", [t4[:, :1, :, :1]], [t4[:, 0, :, 0]], attrs={"squeeze_dims": {"list_i": []}})
    case("OnesLike/int8", "OnesLike", [np.zeros((2, 2), dtype=np.int8)], [np.ones((2, 2), dtype=np.int8)])

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
out = os.path.join(root, "testdata", "kernels", "numpy_goldens.json")
with open(out, "w") as f:
    json.dump({"generator": "tools/goldens/numpy_goldens.py", "numpy": np.__version__, "cases": CASES},
              f, indent=None, separators=(",", ":"), allow_nan=False)
    f.write("\n")
print(f"wrote {len(CASES)} cases to {os.path.relpath(out, root)}", file=sys.stderr)
