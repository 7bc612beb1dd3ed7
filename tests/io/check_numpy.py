"""Called by npy_test.cpp: does numpy read a file nax wrote? argv: path, dtype, shape (comma
separated, empty for rank 0). The values nax wrote are, in row-major order, element i =
(37 i) % 101 - 50 (bool: i % 3 == 0). Exit status 0 when np.load agrees in dtype, shape and
every value."""
import sys
import numpy as np

path, dtype, shape_text = sys.argv[1], np.dtype(sys.argv[2]), sys.argv[3]
shape = tuple(int(s) for s in shape_text.split(",") if s)
a = np.load(path)
i = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
want = (i % 3 == 0) if dtype == np.bool_ else ((37 * i) % 101 - 50).astype(dtype)
problems = []
if a.dtype != dtype:
    problems.append("dtype %s, expected %s" % (a.dtype, dtype))
if a.shape != shape:
    problems.append("shape %s, expected %s" % (a.shape, shape))
elif not np.array_equal(a.reshape(-1), want.reshape(-1)):
    problems.append("values %s, expected %s" % (a.reshape(-1)[:8], want[:8]))
if problems:
    print("numpy read %s: %s" % (path, "; ".join(problems)))
    sys.exit(1)
