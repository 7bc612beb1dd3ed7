#!/usr/bin/env python3
"""Regenerates the JAX known answers of tests/random/*.cpp (JAX 0.10.2 on the CPU was used).

    python3 tests/random/jax_reference.py [known] [api] [hashes] [exhaustive]   (default: known api)

known       exact values of threefry_test.cpp and distributions_test.cpp (keys, split, fold_in,
            bits, uniform, normal, bernoulli, randint), as C++ initialisers
api         the values of api_test.cpp: 2-D named shapes (row-major linear index over the axes in
            the order given to the sampler), keys along a batch axis (= jax.vmap over keys), and
            the JAX program's Monte Carlo pi (count of points inside the circle)
hashes      FNV-1a checksums of long outputs (2^20 values) used by the same tests
exhaustive  checksums of JAX's transform of every float32 mantissa (uniform, normal): the sampler
            run on given bits, by replacing jax._src.random.core._random_bits (slow: minutes)

Conventions: jax_enable_x64 is on, as nax.random.key(seed) takes 64-bit seeds like
jax.random.key does in x64 mode (float32 results are the same in both modes for seeds below
2^32); jax_threefry_partitionable is JAX's default (True since 0.5).
"""
import sys

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)
assert jax.config.jax_threefry_partitionable
R = jax.random


def kd(k):
    return np.asarray(R.key_data(k))


def h32(a):
    return ", ".join("0x%08x" % v for v in np.asarray(a).view(np.uint32).ravel())


def h64(a):
    return ", ".join("0x%016x" % v for v in np.asarray(a).view(np.uint64).ravel())


def fnv(a):
    """FNV-1a over the 32- or 64-bit words of a, as the C++ tests' Fnv computes it."""
    a = np.asarray(a)
    w = a.view(np.uint64 if a.dtype.itemsize == 8 else np.uint32).ravel().astype(np.uint64)
    h = 0xCBF29CE484222325
    for v in w.tolist():
        h = ((h ^ v) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "0x%016x" % h


def known():
    print("jax", jax.__version__)
    for s in [0, 1, -1, 42, 2**32 + 5, -(2**63)]:
        print("key", s, [hex(v) for v in kd(R.key(s)).ravel()])
    print("split(key0,2)", kd(R.split(R.key(0))).ravel().tolist())
    print("split(key42,(2,3))", [hex(v) for v in kd(R.split(R.key(42), (2, 3))).ravel()])
    print("fold_in(key0,7)", [hex(v) for v in kd(R.fold_in(R.key(0), 7)).ravel()])
    print("fold_in(key1,0xffffffff)", [hex(v) for v in kd(R.fold_in(R.key(1), np.uint32(0xFFFFFFFF))).ravel()])
    print("bits32 key0 (5,)", h32(R.bits(R.key(0), (5,), jnp.uint32)))
    print("bits32 key0 (2,3)", h32(R.bits(R.key(0), (2, 3), jnp.uint32)))
    print("bits64 key0 (3,)", h64(R.bits(R.key(0), (3,), jnp.uint64)))
    print("uniform f32 key0 (3,)", R.uniform(R.key(0), (3,), jnp.float32), h32(R.uniform(R.key(0), (3,), jnp.float32)))
    u = R.uniform(R.split(R.key(0))[1], (), jnp.float32)
    print("uniform split(key0)[1] ()", u, h32(u))
    print("uniform f32 key7 (8,) -3,5.5", h32(R.uniform(R.key(7), (8,), jnp.float32, -3.0, 5.5)))
    print("uniform f64 key0 (4,)", h64(R.uniform(R.key(0), (4,), jnp.float64)))
    print("uniform f64 key7 (4,) -3,5.5", h64(R.uniform(R.key(7), (4,), jnp.float64, -3.0, 5.5)))
    print("normal f32 key0 (8,)", h32(R.normal(R.key(0), (8,), jnp.float32)))
    print("normal f32 key1 (4,4)", h32(R.normal(R.key(1), (4, 4), jnp.float32)))
    print("normal f64 key0 (6,)", h64(R.normal(R.key(0), (6,), jnp.float64)))
    print("bernoulli key3 p=0.3 (16,)", np.asarray(R.bernoulli(R.key(3), jnp.float32(0.3), (16,))).astype(int).tolist())
    print("randint key0 (10,) 0..10 i32", np.asarray(R.randint(R.key(0), (10,), 0, 10, jnp.int32)).tolist())
    print("randint key5 (6,) -5..1000003 i32", np.asarray(R.randint(R.key(5), (6,), -5, 1000003, jnp.int32)).tolist())
    print("randint key5 (6,) min..max i32",
          np.asarray(R.randint(R.key(5), (6,), -(2**31), 2**31 - 1, jnp.int32)).tolist())
    print("randint key9 (5,) -10^12..10^15 i64",
          np.asarray(R.randint(R.key(9), (5,), -(10**12), 10**15, jnp.int64)).tolist())
    print("randint key9 (3,) 7..7 i32", np.asarray(R.randint(R.key(9), (3,), 7, 7, jnp.int32)).tolist())


def api():
    print("normal f32 key1 (3,4)", h32(R.normal(R.key(1), (3, 4), jnp.float32)))
    print("normal f64 key2 (2,3)", h64(R.normal(R.key(2), (2, 3), jnp.float64)))
    print("bernoulli key3 p=0.3 (4,5)",
          np.asarray(R.bernoulli(R.key(3), jnp.float32(0.3), (4, 5))).astype(int).ravel().tolist())
    print("bernoulli f64 key3 p=0.3 (4,5)",
          np.asarray(R.bernoulli(R.key(3), jnp.float64(0.3), (4, 5))).astype(int).ravel().tolist())
    print("randint key8 (3,4) -50..50 i32",
          np.asarray(R.randint(R.key(8), (3, 4), -50, 50, jnp.int32)).ravel().tolist())
    print("randint key8 (2,3) 0..10^12 i64",
          np.asarray(R.randint(R.key(8), (2, 3), 0, 10**12, jnp.int64)).ravel().tolist())
    print("uniform f32 key7 (2,3) -3,5.5", h32(R.uniform(R.key(7), (2, 3), jnp.float32, -3.0, 5.5)))
    print("uniform f64 key0 (2,2)", h64(R.uniform(R.key(0), (2, 2), jnp.float64)))
    ks = R.split(R.key(0), 2)
    print("vmap uniform f32 split(key0,2) (3,)", h32(jax.vmap(lambda k: R.uniform(k, (3,), jnp.float32))(ks)))
    print("vmap split split(key0,2)", [hex(v) for v in kd(jax.vmap(lambda k: R.split(k))(ks)).ravel()])
    print("vmap fold_in split(key0,2) data [5,6]",
          [hex(v) for v in kd(jax.vmap(R.fold_in)(ks, jnp.array([5, 6], jnp.uint32))).ravel()])
    print("vmap normal f32 split(key0,2) (2,2)", h32(jax.vmap(lambda k: R.normal(k, (2, 2), jnp.float32))(ks)))
    print("vmap randint split(key0,2) (4,) 0..100",
          np.asarray(jax.vmap(lambda k: R.randint(k, (4,), 0, 100, jnp.int32))(ks)).ravel().tolist())
    # The JAX program's Monte Carlo pi with nax's key(1768780800062), uniform in float32 (JAX's default).
    seed = 1768780800062
    key = R.wrap_key_data(jnp.array([seed >> 32, seed & 0xFFFFFFFF], jnp.uint32))

    def single(k, n=10000):
        k1, k2 = R.split(k)
        x = R.uniform(k1, (n,), jnp.float32)
        y = R.uniform(k2, (n,), jnp.float32)
        return jnp.sum(x**2 + y**2 <= 1.0)

    inside = np.asarray(jax.jit(jax.vmap(single))(R.split(key, 1000)))
    print("monte carlo pi: inside per key [:4]", inside[:4].tolist(), "total", int(inside.sum()),
          "pi", 4 * int(inside.sum()) / 1e7)


def hashes():
    n = 1 << 20
    print("normal f32 key1", fnv(R.normal(R.key(1), (n,), jnp.float32)))
    print("normal f64 key0", fnv(R.normal(R.key(0), (n,), jnp.float64)))
    print("uniform f64 key2 [-3,5.5)", fnv(R.uniform(R.key(2), (n,), jnp.float64, -3.0, 5.5)))
    print("uniform f32 key2 (1024,1024) [0.25,4)", fnv(R.uniform(R.key(2), (1024, 1024), jnp.float32, 0.25, 4.0)))
    print("randint i32 key3 [-7,1000)", fnv(R.randint(R.key(3), (n,), -7, 1000, jnp.int32)))
    print("randint i32 key3 [-2^31, 2^31-1)", fnv(R.randint(R.key(3), (n,), -(2**31), 2**31 - 1, jnp.int32)))
    print("randint i64 key3 [-5, 3*10^17)", fnv(R.randint(R.key(3), (n,), -5, 3 * 10**17, jnp.int64)))
    print("bernoulli key4 p=0.3", fnv(R.bernoulli(R.key(4), jnp.float32(0.3), (n,)).astype(np.uint32)))
    print("bernoulli f64 key4 p=0.3", fnv(R.bernoulli(R.key(4), jnp.float64(0.3), (n,)).astype(np.uint32)))
    print("bits32 key5", fnv(R.bits(R.key(5), (n,), jnp.uint32)))
    print("bits64 key5", fnv(R.bits(R.key(5), (n,), jnp.uint64)))
    print("split key6 1000", fnv(kd(R.split(R.key(6), 1000))))


def exhaustive():
    import jax._src.random.core as core

    current = {}  # the traced bits the patched bit source returns while a sampler is traced
    core._random_bits = lambda key, bit_width, shape: current[bit_width]
    n = 1 << 23
    low = np.random.default_rng(1).integers(0, 512, n, dtype=np.uint32)  # bits below the mantissa: ignored
    feed = (np.arange(n, dtype=np.uint32) << 9) | low
    k = R.key(0)
    for name, fn in [("normal f32", lambda: R.normal(k, (n,), jnp.float32)),
                     ("uniform f32 [-3,5.5)", lambda: R.uniform(k, (n,), jnp.float32, -3.0, 5.5))]:
        jax.clear_caches()

        def traced(b, fn=fn):
            current[32] = b
            return fn()

        print("all-mantissa", name, fnv(np.asarray(jax.jit(traced)(feed))))


if __name__ == "__main__":
    sections = sys.argv[1:] or ["known", "api"]
    for section in sections:
        {"known": known, "api": api, "hashes": hashes, "exhaustive": exhaustive}[section]()
