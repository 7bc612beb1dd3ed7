"""examples/gpt/gpt.hpp's character-level GPT in jax.numpy and optax (no Flax): the reference
of the conformance family `gpt` (generate.py) and JAX's side of bench/gpt.cpp (bench/jax_peers.py
gpt). A configuration c is a dict with vocab, seq, embed, heads, layers (and seed)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HIGHEST = lax.Precision.HIGHEST


def gpt_init(c, dtype):
    keys = jax.random.split(jax.random.key(c["seed"]), 9)
    e, h, n, f = c["embed"], c["heads"], c["layers"], 4 * c["embed"]
    d = e // h

    def normal(k, shape):
        return jnp.asarray(0.02, dtype) * jax.random.normal(k, shape, jnp.float32).astype(dtype)

    return {
        "token_embedding": normal(keys[0], (c["vocab"], e)), "position_embedding": normal(keys[1], (c["seq"], e)),
        "w_out": normal(keys[2], (e, c["vocab"])),
        "lnf_scale": jnp.ones((e,), dtype), "lnf_bias": jnp.zeros((e,), dtype),
        "ln1_scale": jnp.ones((n, e), dtype), "ln1_bias": jnp.zeros((n, e), dtype),
        "wq": normal(keys[3], (n, h, e, d)), "wk": normal(keys[4], (n, h, e, d)), "wv": normal(keys[5], (n, h, e, d)),
        "wo": normal(keys[6], (n, h, d, e)),
        "ln2_scale": jnp.ones((n, e), dtype), "ln2_bias": jnp.zeros((n, e), dtype),
        "w_up": normal(keys[7], (n, e, f)), "b_up": jnp.zeros((n, f), dtype),
        "w_down": normal(keys[8], (n, f, e)), "b_down": jnp.zeros((n, e), dtype),
    }


GPT_LEAVES = ["token_embedding", "position_embedding", "ln1_scale", "ln1_bias", "wq", "wk", "wv", "wo", "ln2_scale",
              "ln2_bias", "w_up", "b_up", "w_down", "b_down", "lnf_scale", "lnf_bias", "w_out"]


def gpt_loss(p, tokens, targets):
    import optax

    def layer_norm(x, scale, bias):
        return jax.nn.standardize(x, axis=-1, epsilon=1e-5) * scale + bias

    x = p["token_embedding"][tokens] + p["position_embedding"]  # [b, t, e]
    t = tokens.shape[1]
    causal = jnp.tril(jnp.ones((t, t), bool))
    for l in range(p["wq"].shape[0]):
        h = layer_norm(x, p["ln1_scale"][l], p["ln1_bias"][l])
        q = jnp.einsum("bte,hed->bhtd", h, p["wq"][l], precision=HIGHEST)
        k = jnp.einsum("bte,hed->bhtd", h, p["wk"][l], precision=HIGHEST)
        v = jnp.einsum("bte,hed->bhtd", h, p["wv"][l], precision=HIGHEST)
        s = jnp.einsum("bhtd,bhsd->bhts", q, k, precision=HIGHEST) * (1 / np.sqrt(q.shape[-1])).astype(q.dtype)
        a = jax.nn.softmax(jnp.where(causal, s, jnp.asarray(-1e30, s.dtype)), axis=-1)
        o = jnp.einsum("bhts,bhsd->bhtd", a, v, precision=HIGHEST)
        x = x + jnp.einsum("bhtd,hde->bte", o, p["wo"][l], precision=HIGHEST)
        h2 = layer_norm(x, p["ln2_scale"][l], p["ln2_bias"][l])
        u = jax.nn.gelu(jnp.einsum("bte,ef->btf", h2, p["w_up"][l], precision=HIGHEST) + p["b_up"][l])
        x = x + jnp.einsum("btf,fe->bte", u, p["w_down"][l], precision=HIGHEST) + p["b_down"][l]
    logits = jnp.einsum("bte,ev->btv", layer_norm(x, p["lnf_scale"], p["lnf_bias"]), p["w_out"], precision=HIGHEST)
    return jnp.mean(optax.softmax_cross_entropy_with_integer_labels(logits, targets))


def gpt_optimizer(optax, steps, warmup=5, peak=1e-2, end=1e-3):
    """gpt::make_optimizer with gpt::Schedule{steps, warmup, peak, end, 1.0, 1e-4}."""
    schedule = optax.warmup_cosine_decay_schedule(0.0, peak, warmup, steps, end)
    return optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=1e-4))
