#!/usr/bin/env python3
"""The GPU benchmark cases of gpu_bench.cu in JAX (jit, float32, on the default GPU).

Prints one line per case: `JAX <case> <value> <unit>` (same cases and units as gpu_bench.cu's
RESULT lines), which bench/gpu/run.sh puts next to nax's numbers. f32 matmul uses
Precision.HIGHEST (true FP32, as cuBLAS's sgemm in the nax run; JAX's default may use TF32).
Usage: jax_peers.py [--small] [--reps=N]
"""
import os
import sys
import time


def median_ms(fn, *args, reps):
    fn(*args).block_until_ready()  # compile and warm up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(*args).block_until_ready()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    small = "--small" in sys.argv
    reps = 10
    for a in sys.argv[1:]:
        if a.startswith("--reps="):
            reps = max(1, int(a[7:]))
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        print("JAX not importable: JAX column skipped")
        return 0
    if not any(d.platform == "gpu" for d in jax.devices()):
        print("JAX has no GPU device: JAX column skipped")
        return 0

    count = (1 << 20) if small else (1 << 28)
    a, b, c, d, e = (jnp.full((count,), v, jnp.float32) for v in (1.0, 2.0, 3.0, 4.0, 5.0))
    fused = jax.jit(lambda a, b, c, d, e: a * b + c * d - e)
    ms = median_ms(fused, a, b, c, d, e, reps=reps)
    print(f"JAX fused {24.0 * count / (ms * 1e6):.4f} GB/s", flush=True)
    del a, b, c, d, e

    side = 1024 if small else 16384
    x = jnp.ones((side, side), jnp.float32)
    ms = median_ms(jax.jit(lambda x: jnp.sum(x, axis=1)), x, reps=reps)
    print(f"JAX sum_j {4.0 * side * side / (ms * 1e6):.4f} GB/s", flush=True)
    ms = median_ms(jax.jit(lambda x: jnp.sum(x, axis=0)), x, reps=reps)
    print(f"JAX sum_i {4.0 * side * side / (ms * 1e6):.4f} GB/s", flush=True)
    del x

    size = 512 if small else 8192
    p = jnp.full((size, size), 0.5, jnp.float32)
    q = jnp.full((size, size), 0.25, jnp.float32)
    mm = jax.jit(lambda p, q: jnp.matmul(p, q, precision=jax.lax.Precision.HIGHEST))
    ms = median_ms(mm, p, q, reps=reps)
    print(f"JAX dot {2.0 * size ** 3 / (ms * 1e9):.4f} TFLOP/s", flush=True)
    del p, q

    samples = 1_000_000 if small else 1_000_000_000

    @jax.jit
    def pi(key):
        kx, ky = jax.random.split(key)
        u = jax.random.uniform(kx, (samples,))
        v = jax.random.uniform(ky, (samples,))
        return 4.0 * jnp.mean((u * u + v * v <= 1.0).astype(jnp.float32))

    key = jax.random.key(1768780800062 % (1 << 31))
    ms = median_ms(pi, key, reps=max(1, reps // 2))
    print(f"JAX pi {samples / (ms * 1e6):.4f} Gsample/s", flush=True)

    # The training steps of gpu_bench.cu (bench/train_step.cpp's models), jit(value_and_grad).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from train_models import fill, sgd

    batch = 256 if small else 4096
    linear = sgd(lambda p, x, y: jnp.mean(jnp.square(x @ p[0] + p[1] - y)))
    args = ((fill((3, 1), 0.5, 2.0), jnp.zeros((1,), jnp.float32)), fill((batch, 3), 1.0, 0.0),
            fill((batch, 1), 1.0, 1.0))
    ms = median_ms(lambda *a: linear(*a)[0], *args, reps=reps * 10)
    print(f"JAX train_linear {1e3 / ms:.4f} steps/s", flush=True)

    def mlp_loss(q, x, y):
        w1, b1, w2, b2 = q
        h = jnp.tanh(jnp.matmul(x, w1, precision=jax.lax.Precision.HIGHEST) + b1)
        return jnp.mean(jnp.square(jnp.matmul(h, w2, precision=jax.lax.Precision.HIGHEST) + b2 - y))

    n_in, n_hidden, n_out = 1024, 1024, 16
    q = (fill((n_in, n_hidden), 0.03, 2.0), jnp.zeros((n_hidden,), jnp.float32), fill((n_hidden, n_out), 0.03, 3.0),
         jnp.zeros((n_out,), jnp.float32))
    mlp = sgd(mlp_loss)
    ms = median_ms(lambda *a: mlp(*a)[0], q, fill((batch, n_in), 1.0, 0.0), fill((batch, n_out), 1.0, 1.0),
                   reps=reps)
    print(f"JAX train_mlp {1e3 / ms:.4f} steps/s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
