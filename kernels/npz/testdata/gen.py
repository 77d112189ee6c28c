#!/usr/bin/python3
# Regenerates the NumPy-written fixtures (Debian's python3-numpy):
#   cd kernels/npz/testdata && /usr/bin/python3 gen.py
import io, zipfile
import numpy as np

arrays = {
    "f2": np.array([[1.0, -2.5, 65504.0], [0.0, 6e-8, np.inf]], dtype="<f2"),
    "f4": np.array([[1.5, -0.0], [3.25, 1e-30]], dtype="<f4"),
    "f8": np.array([np.pi, -1e300], dtype="<f8"),
    "i1": np.array([-128, 0, 127], dtype="i1"),
    "i2": np.array([-32768, 7], dtype="<i2"),
    "i4": np.arange(6, dtype="<i4").reshape(1, 2, 3),
    "i8": np.array([-(2**63), 2**62], dtype="<i8"),
    "u1": np.array([0, 255], dtype="u1"),
    "u2": np.array([65535], dtype="<u2"),
    "u4": np.array([2**32 - 1], dtype="<u4"),
    "u8": np.array([2**64 - 1], dtype="<u8"),
    "b1": np.array([True, False, True]),
    "scalar": np.array(2.5, dtype="<f4"),
    "empty": np.zeros((0, 3), dtype="<f4"),
}
for k, a in arrays.items():
    np.save(k + ".npy", a)
np.savez("all.npz", **arrays)
np.savez_compressed("all_compressed.npz", **arrays)
# Versions 2.0 and 3.0 headers.
for v in [(2, 0), (3, 0)]:
    with open("f4_v%d.npy" % v[0], "wb") as f:
        np.lib.format.write_array(f, arrays["f4"], version=v)
# Unsupported ones.
np.save("bad_fortran.npy", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
np.save("bad_bigendian.npy", np.array([1, 2], dtype=">i4"))
np.save("bad_unicode.npy", np.array(["ab"]))
# Complex (DT_COMPLEX64, DT_COMPLEX128): real, imaginary pairs.
np.save("c8.npy", np.array([1 + 2j, -0.0 - 1.5j, complex(np.inf, -np.inf)], dtype="<c8"))
np.save("c16.npy", np.array([[np.pi - 1e300j], [0j]], dtype="<c16"))
# Bytes strings (DT_STRING).
np.save("S.npy", np.array([b"foo", b"", b"wombat"]))
