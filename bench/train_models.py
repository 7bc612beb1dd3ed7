"""What the JAX peers of the training step share (bench/jax_peers.py on the CPU,
bench/gpu/jax_peers.py on the GPU): bench/train_step.cpp's deterministic fill and the jitted
step (value_and_grad, then the SGD update with learning rate 0.01). Imports jax lazily, so
the caller chooses the platform first."""
import numpy as np


def fill(shape, scale, phase):
    import jax.numpy as jnp
    i = np.arange(int(np.prod(shape)), dtype=np.float32)
    return jnp.asarray((scale * np.sin(phase + np.float32(0.37) * i)).reshape(shape).astype(np.float32))


def sgd(loss):
    import jax

    @jax.jit
    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return value, jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)
    return step
