#!/usr/bin/env python3
"""numpy's numbers for the cases of bench_elementwise and bench_reduce (one thread).

Run by those programs at the end (through python3, when it imports numpy), or by hand:
    python3 bench/numpy_peers.py elementwise|reduce [REGEX]
Prints one line per case, "case/numpy_1thread GB/s", the median over repetitions, with the
bytes counted as the C++ benchmarks count them. REGEX filters these "case/implementation"
names (re.search), as --benchmark_filter does for the C++ ones.
"""
import re
import statistics
import sys
import time

import numpy as np

R, C = 4096, 16384
REPETITIONS = 5
MIN_SECONDS = 0.3  # per repetition


def measure(fn, nbytes):
    """Median GB/s over REPETITIONS, each timing as many calls as fit in MIN_SECONDS."""
    fn()  # warm: first touch of the outputs numpy allocates
    rates = []
    for _ in range(REPETITIONS):
        calls, start = 0, time.perf_counter()
        while True:
            fn()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= MIN_SECONDS:
                break
        rates.append(nbytes * calls / elapsed / 1e9)
    return statistics.median(rates)


def operands(seed):
    rng = np.random.default_rng(seed)
    return rng.random((R, C), dtype=np.float32) - np.float32(0.5)


def elementwise_cases():
    a, b, c, d, e = (operands(s) for s in range(5))
    e_t = np.ascontiguousarray(e.T)  # stored (col, row); e_t.T reads it transposed
    e_wide = np.repeat(e, 2, axis=1)  # (R, 2C); e_wide[:, ::2] is e
    b_col = operands(6)[0]
    b_row = operands(7)[:, 0].copy()
    n = R * C
    # numpy_1thread: preallocated outputs and temporaries (out=), as a user who cares writes
    # it; numpy_expr_1thread: the plain expression, which allocates its temporaries and
    # result on every call (fresh pages from the OS for arrays this large).
    t, u, out = np.empty_like(a), np.empty_like(a), np.empty_like(a)

    def fused(e_operand):
        np.multiply(a, b, out=t)
        np.multiply(c, d, out=u)
        np.add(t, u, out=t)
        np.subtract(t, e_operand, out=out)

    cases = []
    for name, e_operand in (("fused", e), ("fused_transposed", e_t.T), ("fused_sliced", e_wide[:, ::2])):
        cases.append((f"{name}/numpy_1thread", lambda e_operand=e_operand: fused(e_operand), 24 * n))
        cases.append((f"{name}/numpy_expr_1thread", lambda e_operand=e_operand: a * b + c * d - e_operand, 24 * n))
    cases.append(("broadcast_col/numpy_1thread", lambda: np.multiply(a, b_col, out=out), 8 * n))
    cases.append(("broadcast_row/numpy_1thread", lambda: np.multiply(a, b_row[:, None], out=out), 8 * n))
    return cases


def reduce_cases():
    x = operands(0)
    n = R * C
    cases = []
    for op, fn in (("sum", np.sum), ("max", np.max), ("mean", np.mean)):
        # "contiguous": the reduced axis is the contiguous one (one result per row);
        # "outer": the reduced axis is the outer one (one result per column).
        cases.append((f"{op}_contiguous/numpy_1thread", lambda fn=fn: fn(x, axis=1), 4 * n))
        cases.append((f"{op}_outer/numpy_1thread", lambda fn=fn: fn(x, axis=0), 4 * n))
    return cases


def main():
    group = sys.argv[1] if len(sys.argv) > 1 else "elementwise"
    pattern = re.compile(sys.argv[2] if len(sys.argv) > 2 else ".")
    cases = elementwise_cases() if group == "elementwise" else reduce_cases()
    for name, fn, nbytes in cases:
        if pattern.search(name):
            print(f"{name} {measure(fn, nbytes):.2f}", flush=True)


if __name__ == "__main__":
    main()
