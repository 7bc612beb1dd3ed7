// Umbrella of nax::random: JAX-compatible threefry2x32 keys (key, split, fold_in) and the
// samplers (bits, uniform, normal, bernoulli, randint, gumbel, categorical, truncated_normal) as fused
// expression nodes; permutation and choice as lazy expressions over sorts.
// Keys: nax::random::Key on the host; as array elements, std::uint64_t key data (key_data).
#pragma once
#include "nax/random/bits.hpp"
#include "nax/random/categorical.hpp"
#include "nax/random/distributions.hpp"
#include "nax/random/erfinv.hpp"
#include "nax/random/key.hpp"
#include "nax/random/key_expr.hpp"
#include "nax/random/samplers.hpp"
#include "nax/random/shuffle.hpp"
#include "nax/random/threefry.hpp"
#include "nax/random/truncated_normal.hpp"
