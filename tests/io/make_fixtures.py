"""Writes tests/io/data/*.npy with numpy, the files npy_test.cpp reads (run by hand with any numpy;
the files are committed). Each file's values follow a formula that the test recomputes in a loop."""
import os
import numpy as np

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
os.makedirs(here, exist_ok=True)


def grid(shape, f, dtype):
    return np.fromfunction(f, shape, dtype=np.int64).astype(dtype)


def save(name, a, version=None):
    with open(os.path.join(here, name), "wb") as out:
        np.lib.format.write_array(out, a, version=version)


# big-endian double, C order: v(i, j, k) = 100 i + 10 j + k + 0.25
save("c_big_f8.npy", grid((2, 3, 4), lambda i, j, k: 100 * i + 10 * j + k + 0.25, ">f8"))
# little-endian int32, Fortran order: v(i, j) = 7 i - 3 j
save("fortran_i4.npy", np.asfortranarray(grid((3, 5), lambda i, j: 7 * i - 3 * j, "<i4")))
# big-endian int64, Fortran order, rank 3: v(i, j, k) = -1000 i + 100 j + k
save("fortran_big_i8.npy", np.asfortranarray(grid((2, 3, 2), lambda i, j, k: -1000 * i + 100 * j + k, ">i8")))
# format 2.0, uint16: v(i) = 257 i (i = 0..4), then 65535
save("v2_u2.npy", np.array([0, 257, 514, 771, 1028, 65535], dtype="<u2"), version=(2, 0))
# format 3.0, float32 (a float that is exact in binary): v(i, j) = i - 0.5 j
save("v3_f4.npy", grid((2, 2), lambda i, j: i - 0.5 * j, "<f4"), version=(3, 0))
# bool: v(i, j) = (i + j) odd
save("bool.npy", grid((3, 2), lambda i, j: (i + j) % 2 == 1, "|b1"))
# rank 0 and an empty array
save("scalar_f4.npy", np.array(1.5, dtype="<f4"))
save("empty_f8.npy", np.zeros((0, 3), dtype="<f8"))
# a structured dtype, which nax refuses
save("structured.npy", np.zeros(2, dtype=[("x", "<f4"), ("y", "<i4")]))
print("wrote", sorted(os.listdir(here)))

# .npz archives as np.savez writes them (every entry marked ZIP64): w(i, j) = 2 i + j (float64,
# (3, 2)), b = [5, -7] (int32); and the same compressed, which nax refuses.
w = grid((3, 2), lambda i, j: 2 * i + j, "<f8")
b = np.array([5, -7], dtype="<i4")
np.savez(os.path.join(here, "savez.npz"), w=w, b=b)
np.savez_compressed(os.path.join(here, "savez_compressed.npz"), w=w, b=b)
print("wrote the .npz files")
