"""numpy's DLPack code against nax's (tests/io/dlpack_test.cpp runs this).

Usage: check_dlpack.py BRIDGE.so. The bridge (dlpack_bridge/bridge.cpp) exports nax arrays with
nax::to_dlpack and imports tensors with nax::from_dlpack; numpy takes the first with
np.from_dlpack and makes the second with ndarray.__dlpack__. Prints 'ok' and exits 0, or names
what failed and exits 1.
"""
import ctypes
import gc
import sys

import numpy as np

lib = ctypes.CDLL(sys.argv[1])
lib.nax_bridge_export.restype = ctypes.c_void_p
lib.nax_bridge_export.argtypes = [ctypes.c_int64, ctypes.c_int64]
lib.nax_bridge_last_data.restype = ctypes.c_void_p
lib.nax_bridge_freed.restype = ctypes.c_int64
lib.nax_bridge_import.restype = ctypes.c_int
lib.nax_bridge_import.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64]

capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype = ctypes.py_object
capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype = ctypes.c_void_p
capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
capsule_rename = ctypes.pythonapi.PyCapsule_SetName
capsule_rename.restype = ctypes.c_int
capsule_rename.argtypes = [ctypes.py_object, ctypes.c_char_p]

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


class Exported:
    """What np.from_dlpack needs of a producer: __dlpack__ and __dlpack_device__."""

    def __init__(self, pointer):
        self.pointer = pointer

    def __dlpack__(self, stream=None, **kwargs):
        return capsule_new(self.pointer, b"dltensor", None)

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


# nax -> numpy: values, shape, the same memory, and the deleter run once when numpy lets go.
for count, (rows, cols) in enumerate([(3, 4), (1, 5), (0, 3), (2, 0), (7, 1)], start=1):
    a = np.from_dlpack(Exported(lib.nax_bridge_export(rows, cols)))
    expect = 100.0 * np.arange(rows)[:, None] + np.arange(cols)[None, :]
    check(a.shape == (rows, cols) and a.dtype == np.float64, f"export {rows}x{cols}: shape {a.shape}, dtype {a.dtype}")
    check(np.array_equal(a, expect), f"export {rows}x{cols}: values {a}")
    if a.size:
        check(a.ctypes.data == lib.nax_bridge_last_data(), f"export {rows}x{cols}: numpy's data is a copy")
    del a
    gc.collect()
    check(lib.nax_bridge_freed() == count, f"export {rows}x{cols}: {lib.nax_bridge_freed()} deleters ran, not {count}")


def to_nax(view):
    """0 and the copy nax made of view, or the error code and nax's message."""
    capsule = view.__dlpack__()
    pointer = capsule_pointer(capsule, b"dltensor")
    out = np.zeros(view.shape)
    message = ctypes.create_string_buffer(512)
    rc = lib.nax_bridge_import(pointer, out.ctypes.data, message, 512)
    if rc == 0:
        capsule_rename(capsule, b"used_dltensor")  # nax took it over (and has run its deleter)
    return rc, out, message.value.decode()


# numpy -> nax: strided views of any order, offsets, empty; the deleter (numpy's reference on
# the array) released exactly once.
base = np.arange(60, dtype=np.float64).reshape(6, 10) * 1.5
for name, view in [("whole", base), ("every other row, columns 1..6", base[::2, 1:7]), ("transposed", base.T),
                   ("one row", base[2:3, :]), ("no columns", base[:, 4:4]), ("a column", base[:, 3:4])]:
    references = sys.getrefcount(base)
    rc, out, message = to_nax(view)
    check(rc == 0, f"import {name}: {message}")
    check(rc != 0 or np.array_equal(out, view), f"import {name}: nax read {out}")
    gc.collect()
    check(sys.getrefcount(base) == references, f"import {name}: numpy's deleter did not run once")

# numpy -> nax, refused: another dtype, a reversed view; the capsule is not consumed, so
# numpy's own destructor frees it.
rc, _, message = to_nax(base.astype(np.float32))
check(rc == 1 and "holds float32, not float64" in message, f"float32: {message}")
rc, _, message = to_nax(base[::-1])
check(rc == 1 and "negative stride" in message and "'row'" in message, f"reversed: {message}")
rc, _, message = to_nax(np.zeros((2, 3, 4)))
check(rc == 1 and "has 3 dimensions, but 2 axis names" in message, f"rank 3: {message}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok")
