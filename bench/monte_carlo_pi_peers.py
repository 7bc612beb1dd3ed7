#!/usr/bin/env python3
"""numpy's and JAX's numbers for bench_monte_carlo_pi: 1000 keys x 10000 samples.

Run by bench_monte_carlo_pi at the end (through $NAX_BENCH_PYTHON or python3), or by hand:
    python3 bench/monte_carlo_pi_peers.py [--repetitions=N]
Prints "peer NAME SECONDS CPU_SECONDS PI" per implementation: medians over the repetitions of
the wall time and of the process's CPU time (all threads):
  numpy    numpy's default generator (PCG64), vectorised: float32 x and y of shape (1000, 10000)
  jax_cpu  the JAX program's program: jax.jit(jax.vmap(monte_carlo_pi_single))(keys), on the CPU, with
           nax's key (jax.random.key(1768780800062) with jax_enable_x64: words 411, 3549241406);
           its estimate of pi equals nax's (the same random numbers).
JAX is left out (with a line saying so) when it does not import.
"""
import os
import statistics
import sys
import time

import numpy as np

N_BATCHES, N_SAMPLES = 1000, 10000
SEED = 1768780800062


def measure(fn, repetitions):
    fn()  # warm: compilation (JAX), first touch of the outputs (numpy)
    times, cpu_times, value = [], [], None
    for _ in range(repetitions):
        start, cpu_start = time.perf_counter(), time.process_time()
        value = fn()
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    return statistics.median(times), statistics.median(cpu_times), value


def numpy_pi():
    rng = np.random.default_rng(SEED)
    x = rng.random((N_BATCHES, N_SAMPLES), dtype=np.float32)
    y = rng.random((N_BATCHES, N_SAMPLES), dtype=np.float32)
    estimates = 4.0 * np.mean(x * x + y * y <= 1.0, axis=1, dtype=np.float32)
    return float(np.mean(estimates))


def jax_pi_function():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    from jax import random

    def monte_carlo_pi_single(key, n_samples=N_SAMPLES):
        subkey1, subkey2 = random.split(key)
        x = random.uniform(subkey1, (n_samples,))
        y = random.uniform(subkey2, (n_samples,))
        return 4.0 * jnp.mean(x**2 + y**2 <= 1.0)

    pi_estimation_vmap = jax.jit(jax.vmap(monte_carlo_pi_single))
    # nax.random.key(seed) is jax.random.key(seed) with 64-bit seeds (jax_enable_x64):
    # the high and low words of the seed. JAX's default 32-bit mode would drop the high word.
    key = random.wrap_key_data(jnp.array([SEED >> 32, SEED & 0xFFFFFFFF], dtype=jnp.uint32))
    keys = random.split(key, N_BATCHES)

    def run():
        return float(jnp.mean(pi_estimation_vmap(keys).block_until_ready()))

    return run


def main():
    repetitions = 5
    for arg in sys.argv[1:]:
        if arg.startswith("--repetitions="):
            repetitions = max(1, int(arg.split("=", 1)[1]))
        else:
            sys.exit("usage: monte_carlo_pi_peers.py [--repetitions=N]")
    seconds, cpu_seconds, pi = measure(numpy_pi, repetitions)
    print(f"peer numpy {seconds:.6f} {cpu_seconds:.6f} {pi:.7f}", flush=True)
    try:
        run = jax_pi_function()
    except ImportError as error:
        print(f"jax_cpu left out: {error}")
        return
    seconds, cpu_seconds, pi = measure(run, repetitions)
    print(f"peer jax_cpu {seconds:.6f} {cpu_seconds:.6f} {pi:.7f}", flush=True)


if __name__ == "__main__":
    main()
