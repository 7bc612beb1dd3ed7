"""Called by npz_test.cpp: does numpy read a .npz that nax::io::save_tree wrote? argv: path,
then one "name:dtype:shape" per array (shape comma separated, empty for rank 0). The archive
must hold exactly those arrays (and nax's axes entry), each with element i (row-major) =
(37 i) % 101 - 50 (bool: i % 3 == 0). Exit status 0 when np.load agrees."""
import sys
import numpy as np

path, specs = sys.argv[1], sys.argv[2:]
z = np.load(path)
problems = []
want_names = sorted([s.split(":")[0] for s in specs] + ["nax_axes.txt"])
if sorted(z.files) != want_names:
    problems.append("entries %s, expected %s" % (sorted(z.files), want_names))
for spec in specs:
    name, dtype, shape_text = spec.split(":")
    dtype = np.dtype(dtype)
    shape = tuple(int(s) for s in shape_text.split(",") if s)
    if name not in z.files:
        continue
    a = z[name]
    i = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
    want = (i % 3 == 0) if dtype == np.bool_ else ((37 * i) % 101 - 50).astype(dtype)
    if a.dtype != dtype or a.shape != shape or not np.array_equal(a.reshape(-1), want):
        problems.append("%s: dtype %s shape %s, expected %s %s" % (name, a.dtype, a.shape, dtype, shape))
if problems:
    print("numpy read %s: %s" % (path, "; ".join(problems)))
    sys.exit(1)
