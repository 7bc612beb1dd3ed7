#!/usr/bin/env python3
"""JAX on the CPU (jax.jit, XLA's own threads) for the cases of bench_elementwise, bench_reduce
and bench_train_step: the peers the project issues name "JAX on the CPU, when installed".

Run by bench/run_all.py when its Python imports jax, or by hand:
    python3 bench/jax_peers.py elementwise|reduce|train_step|deep_mlp|rnn|take|gpt|scan|sort|gemm [REGEX]
elementwise and reduce print "case/jax_cpu GB/s" (median over repetitions, bytes counted as
the C++ benchmarks count them); train_step prints "BM_linear_jax SECONDS" and "BM_mlp_jax
SECONDS" (median time of one jitted value_and_grad step plus the SGD update, the models and
sizes of bench/train_step.cpp). REGEX filters the names (re.search).
"""
import os
import re
import statistics
import sys
import time

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_models import fill, sgd  # noqa: E402

R, C = 4096, 16384
REPETITIONS = 5
MIN_SECONDS = 0.3  # per repetition


def median_seconds(fn, min_seconds=MIN_SECONDS, repetitions=REPETITIONS):
    """Median seconds per call of fn (which blocks until its result is ready)."""
    fn()  # compile and warm
    times = []
    for _ in range(repetitions):
        calls, start = 0, time.perf_counter()
        while True:
            fn()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds:
                break
        times.append(elapsed / calls)
    return statistics.median(times)


def operand(seed, shape=(R, C)):
    rng = np.random.default_rng(seed)
    return jnp.asarray(rng.random(shape, dtype=np.float32) - np.float32(0.5))


def elementwise_cases():
    a, b, c, d, e = (operand(s) for s in range(5))
    e_t = jnp.asarray(np.ascontiguousarray(np.asarray(e).T))
    e_wide = jnp.repeat(e, 2, axis=1)
    b_col, b_row = operand(6, (C,)), operand(7, (R,))
    n = R * C
    cases = {
        "fused": (jax.jit(lambda a, b, c, d, e: a * b + c * d - e), (a, b, c, d, e), 24),
        "fused_transposed": (jax.jit(lambda a, b, c, d, et: a * b + c * d - et.T), (a, b, c, d, e_t), 24),
        "fused_sliced": (jax.jit(lambda a, b, c, d, ew: a * b + c * d - ew[:, ::2]), (a, b, c, d, e_wide), 24),
        "broadcast_col": (jax.jit(lambda a, v: a * v[None, :]), (a, b_col), 8),
        "broadcast_row": (jax.jit(lambda a, v: a * v[:, None]), (a, b_row), 8),
    }
    for name, (fn, args, per_element) in cases.items():
        yield name + "/jax_cpu", lambda fn=fn, args=args: fn(*args).block_until_ready(), per_element * n


def reduce_cases():
    x = operand(0)
    n = R * C
    for op, fn in (("sum", jnp.sum), ("max", jnp.max), ("mean", jnp.mean)):
        for where, axis in (("contiguous", 1), ("outer", 0)):
            jitted = jax.jit(lambda x, fn=fn, axis=axis: fn(x, axis=axis))
            yield "%s_%s/jax_cpu" % (op, where), lambda j=jitted: j(x).block_until_ready(), 4 * n


def train_step_cases():
    batch = 4096
    def linear_loss(p, x, y):
        w, b = p
        return jnp.mean(jnp.square(x @ w + b - y))

    x, y = fill((batch, 3), 1.0, 0.0), fill((batch, 1), 1.0, 1.0)
    p = (fill((3, 1), 0.5, 2.0), jnp.zeros((1,), jnp.float32))
    step = sgd(linear_loss)
    yield "BM_linear_jax", lambda: jax.block_until_ready(step(p, x, y)), 1.0

    def mlp_loss(q, x, y):
        w1, b1, w2, b2 = q
        h = jnp.tanh(x @ w1 + b1)
        return jnp.mean(jnp.square(h @ w2 + b2 - y))

    n_in, n_hidden, n_out = 1024, 1024, 16
    x2, y2 = fill((batch, n_in), 1.0, 0.0), fill((batch, n_out), 1.0, 1.0)
    q = (fill((n_in, n_hidden), 0.03, 2.0), jnp.zeros((n_hidden,), jnp.float32), fill((n_hidden, n_out), 0.03, 3.0),
         jnp.zeros((n_out,), jnp.float32))
    step2 = sgd(mlp_loss)
    yield "BM_mlp_jax", lambda: jax.block_until_ready(step2(q, x2, y2)), 1.0


def deep_mlp_cases():
    """bench/deep_mlp.cpp's model: 8 tanh layers, batch 1024, width 512, mean squared output,
    jit(value_and_grad) plus SGD (the same fill, the same phases)."""
    n_batch, width, depth = 1024, 512, 8

    def loss(layers, x, _y):
        h = x
        for w, b in layers:
            h = jnp.tanh(h @ w + b)
        return jnp.mean(jnp.square(h))

    x = fill((n_batch, width), 1.0, 0.0)
    phase, layers = 1.0, []
    for _ in range(depth):
        phase += 1.0
        w = fill((width, width), 1.0 / np.sqrt(width), phase)
        phase += 1.0
        layers.append((w, fill((width,), 0.1, phase)))
    step = sgd(loss)
    yield "BM_deep_mlp_jax", lambda: jax.block_until_ready(step(layers, x, x)), 1.0


def rnn_cases():
    """bench/rnn.cpp's model: a tanh RNN over 64 steps (lax.scan), batch 256, width 256, input
    width 128, mean squared last state, jit(value_and_grad) plus SGD (the same fill and phases)."""
    steps, n_batch, width, n_feat = 64, 256, 256, 128

    def loss(cell, xs, _y):
        w, u, b = cell

        def step(h, x_t):
            return jnp.tanh(h @ w + x_t @ u + b), None

        h, _ = jax.lax.scan(step, jnp.zeros((n_batch, width), jnp.float32), xs)
        return jnp.mean(jnp.square(h))

    xs = fill((steps, n_batch, n_feat), 1.0, 0.0)
    cell = (fill((width, width), 1.0 / np.sqrt(width), 2.0), fill((n_feat, width), 1.0 / np.sqrt(n_feat), 3.0),
            fill((width,), 0.1, 4.0))
    step = sgd(loss)
    yield "BM_rnn_jax", lambda: jax.block_until_ready(step(cell, xs, xs)), 1.0


def take_cases():
    """bench/take.cpp's cases: an embedding lookup (50,000 x 768 float table, 16,384 tokens), its
    gradient (a scatter-add of the cotangent into zeros; and jax.grad of sum(take * ct)), and the
    cross-entropy with integer labels over 8192 x 50,000 float logits (value; value_and_grad).
    Bytes as bench_take counts them."""
    import optax
    V, W, T, R, K = 50000, 768, 16384, 8192, 50000
    table = operand(0, (V, W))
    tokens = jnp.asarray((np.arange(T, dtype=np.uint64) * 7919 + 13) % V, dtype=jnp.int32)
    ct = operand(1, (T, W))
    take = jax.jit(lambda t, i: t[i])
    yield "take/jax_cpu", lambda: take(table, tokens).block_until_ready(), 2.0 * T * W * 4
    scatter_bytes = float(V) * W * 4 + 3.0 * T * W * 4
    scatter = jax.jit(lambda i, c: jnp.zeros((V, W), jnp.float32).at[i].add(c))
    yield "scatter_add/jax_cpu", lambda: scatter(tokens, ct).block_until_ready(), scatter_bytes
    grad = jax.jit(jax.grad(lambda t, i, c: jnp.sum(t[i] * c)))
    yield "embedding_grad/jax_cpu", lambda: grad(table, tokens, ct).block_until_ready(), scatter_bytes
    logits = operand(2, (R, K))
    labels = jnp.asarray((np.arange(R, dtype=np.uint64) * 104729) % K, dtype=jnp.int32)
    ce = jax.jit(optax.softmax_cross_entropy_with_integer_labels)
    yield "cross_entropy/jax_cpu", lambda: ce(logits, labels).block_until_ready(), float(R) * K * 4
    vg = jax.jit(jax.value_and_grad(lambda z, l: jnp.mean(optax.softmax_cross_entropy_with_integer_labels(z, l))))
    yield "cross_entropy value_and_grad/jax_cpu", lambda: jax.block_until_ready(vg(logits, labels)), float(R) * K * 4


def scan_cases():
    """bench/scan.cpp's cases: cumsum of 2^24 floats, and of a 4096 x 4096 float array along each
    axis, with numpy and with jax.jit. GB/s as bench_scan counts them (8 bytes per element)."""
    n, r, c = 1 << 24, 4096, 4096
    x = np.asarray(((np.arange(n, dtype=np.uint64) * 2654435761) % 1000).astype(np.float32) * 1e-3 - 0.5)
    m = np.asarray(((np.arange(r * c, dtype=np.uint64) * 40503) % 1000).astype(np.float32) * 1e-3 - 0.5).reshape(r, c)
    yield "cumsum 2^24/numpy", lambda: np.cumsum(x), 8.0 * n
    yield "cumsum<col> 4096x4096/numpy", lambda: np.cumsum(m, axis=1), 8.0 * r * c
    yield "cumsum<row> 4096x4096/numpy", lambda: np.cumsum(m, axis=0), 8.0 * r * c
    xj, mj = jnp.asarray(x), jnp.asarray(m)
    line = jax.jit(lambda v: jnp.cumsum(v))
    inner = jax.jit(lambda v: jnp.cumsum(v, axis=1))
    outer = jax.jit(lambda v: jnp.cumsum(v, axis=0))
    yield "cumsum 2^24/jax_cpu", lambda: line(xj).block_until_ready(), 8.0 * n
    yield "cumsum<col> 4096x4096/jax_cpu", lambda: inner(mj).block_until_ready(), 8.0 * r * c
    yield "cumsum<row> 4096x4096/jax_cpu", lambda: outer(mj).block_until_ready(), 8.0 * r * c


def sort_cases():
    """bench/sort.cpp's cases: sort and argsort of 2^24 floats, sort of the rows of a 4096 x 4096
    float array, lax.top_k of 64 x 50,000 with k = 40; numpy (np.sort: its default quicksort) and
    jax.jit. Millions of elements per second, as bench_sort prints them (amount: elements * 1e3)."""
    n, r, c, tr, v, k = 1 << 24, 4096, 4096, 64, 50000, 40

    def value(i):
        return ((i.astype(np.uint64) * 2654435761) % 100003).astype(np.float32) * 1e-3 - 50

    x = value(np.arange(n, dtype=np.uint64))
    m = value(np.arange(r * c, dtype=np.uint64) * 7 + 1).reshape(r, c)
    logits = value(np.arange(tr * v, dtype=np.uint64) * 13 + 5).reshape(tr, v)
    yield "sort 2^24/numpy", lambda: np.sort(x), n * 1e3
    yield "argsort 2^24/numpy (stable)", lambda: np.argsort(x, kind="stable"), n * 1e3
    yield "sort<col> 4096x4096/numpy", lambda: np.sort(m, axis=1), r * c * 1e3
    xj, mj, lj = jnp.asarray(x), jnp.asarray(m), jnp.asarray(logits)
    srt, arg, rows = jax.jit(jnp.sort), jax.jit(jnp.argsort), jax.jit(lambda a: jnp.sort(a, axis=1))
    top = jax.jit(lambda a: jax.lax.top_k(a, k))
    yield "sort 2^24/jax_cpu", lambda: srt(xj).block_until_ready(), n * 1e3
    yield "argsort 2^24/jax_cpu", lambda: arg(xj).block_until_ready(), n * 1e3
    yield "sort<col> 4096x4096/jax_cpu", lambda: rows(mj).block_until_ready(), r * c * 1e3
    yield "top_k 64x50000 k=40/jax_cpu", lambda: jax.block_until_ready(top(lj)), tr * v * 1e3


def gpt_cases():
    """bench/gpt.cpp's cases: one training step (value_and_grad, then optax's clip + adamw update,
    all in one jit) of examples/gpt/gpt.hpp's model at the default size (2 layers, width 64, 4
    heads, sequence 64, batch 16) and a larger one (6 layers, width 384, 6 heads, sequence 256,
    batch 32). The model is tests/conformance/gpt_model.py, the conformance reference."""
    import optax
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "conformance"))
    from gpt_model import gpt_init, gpt_loss, gpt_optimizer
    sizes = {"default": dict(vocab=76, seq=64, embed=64, heads=4, layers=2, batch=16, seed=0),
             "large": dict(vocab=76, seq=256, embed=384, heads=6, layers=6, batch=32, seed=0)}
    for name, c in sizes.items():
        opt = gpt_optimizer(optax, 1000, warmup=50)
        params = gpt_init(c, jnp.float32)
        state = opt.init(params)
        rng = np.random.default_rng(0)
        tokens = jnp.asarray(rng.integers(0, c["vocab"], (c["batch"], c["seq"] + 1)), jnp.int32)
        x, y = tokens[:, :-1], tokens[:, 1:]

        @jax.jit
        def step(p, s, x, y):
            loss, g = jax.value_and_grad(gpt_loss)(p, x, y)
            updates, s = opt.update(g, s, p)
            return optax.apply_updates(p, updates), s, loss

        holder = {"p": params, "s": state}

        def run():
            holder["p"], holder["s"], loss = step(holder["p"], holder["s"], x, y)
            loss.block_until_ready()

        yield "gpt_step_%s/jax_cpu" % name, run, float(c["batch"] * c["seq"])


def gemm_cases():
    """bench/gemm.cpp's square products: C = A @ B of n x n row-major matrices, float32 at 512,
    1024 and 2048 and float64 at 1024, with numpy (its own BLAS: OpenBLAS in the PyPI wheel, all
    cores) and with jax.jit (XLA's CPU dot, all cores; float64 needs jax_enable_x64, which this
    group turns on). GFLOP/s counted as bench_gemm counts them (2 n^3 per product)."""
    jax.config.update("jax_enable_x64", True)
    for dtype, n in ((np.float32, 512), (np.float32, 1024), (np.float32, 2048), (np.float64, 1024)):
        rng = np.random.default_rng(n)
        a = (rng.random((n, n)) - 0.5).astype(dtype)
        b = (rng.random((n, n)) - 0.5).astype(dtype)
        name = "%s/%d" % ("float" if dtype == np.float32 else "double", n)
        yield "square<%s>/numpy" % name, lambda a=a, b=b: a @ b, 2.0 * n ** 3
        aj, bj = jnp.asarray(a), jnp.asarray(b)
        assert aj.dtype == dtype
        product = jax.jit(lambda x, y: x @ y)
        yield "square<%s>/jax_cpu" % name, lambda aj=aj, bj=bj, f=product: f(aj, bj).block_until_ready(), 2.0 * n ** 3


def main():
    group = sys.argv[1] if len(sys.argv) > 1 else ""
    pattern = re.compile(sys.argv[2] if len(sys.argv) > 2 else "")
    cases = {"elementwise": elementwise_cases, "reduce": reduce_cases, "train_step": train_step_cases,
             "deep_mlp": deep_mlp_cases, "rnn": rnn_cases, "take": take_cases,
             "gpt": gpt_cases, "scan": scan_cases, "sort": sort_cases, "gemm": gemm_cases}
    if group not in cases:
        sys.exit("usage: jax_peers.py elementwise|reduce|train_step|deep_mlp|rnn|take|gpt|scan|sort|gemm [REGEX]")
    for name, fn, amount in cases[group]():
        if not pattern.search(name):
            continue
        seconds = median_seconds(fn)
        if group in ("train_step", "deep_mlp", "rnn", "gpt"):
            print("%s %.9f" % (name, seconds), flush=True)
        else:
            print("%s %.3f" % (name, amount / seconds / 1e9), flush=True)


if __name__ == "__main__":
    main()
