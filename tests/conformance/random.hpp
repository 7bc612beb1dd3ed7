// The programs of family `random`: jax.random's threefry2x32 keys (key, split to 1-D and 2-D
// shapes, fold_in of numbers and of an array of data), bits (uint32, uint64), uniform (default
// and [-3, 5.5)), normal, bernoulli (float32 and float64 p), randint (int32 narrow and full
// range, int64), gumbel (to 2e-6 in float32: libm's logs, not XLA's), categorical over either
// axis, truncated_normal (to 1e-6 absolutely in float32: libm's erf of the bounds), permutation (of n, in one
// and two rounds, and of an array) and choice (with and without replacement and weights, of
// indices and of an array), on several keys and 1-D / 2-D shapes, and samplers over a batch of keys
// (jax.vmap over keys). Every other comparison is exact: key words, bits and integers equal, floating
// samples equal bit for bit. Conventions as tests/random/jax_reference.py: x64 mode,
// jax.random.key(seed) with 64-bit seeds, threefry_partitionable. Over a backend B
// (backend.hpp): random_test.cpp runs them on the host, tests/cuda/test_conformance_*.cu on the
// CUDA backend.
#pragma once
#include "backend.hpp"

#include <nax/random/random.hpp>

namespace conf_random {

NAX_AXIS(sample);
NAX_AXIS(row);
NAX_AXIS(col);
NAX_AXIS(batch);

namespace nr = nax::random;
using conf::Case;

// nax keys (uint64 key data, k0 in the high word) against jax.random.key_data (uint32 (..., 2)).
inline std::string compare_keys(const npy::Array& want, const std::vector<std::uint64_t>& data,
                                std::vector<std::int64_t> shape) {
  std::vector<std::uint32_t> words;
  for (auto k : data) {
    const nr::Key key = nr::wrap_key_data(k);
    words.push_back(key.k0);
    words.push_back(key.k1);
  }
  shape.push_back(2);
  return conf::compare(want, words.data(), shape);
}

template <class T, class... As>
std::string compare_keys(const npy::Array& want, const nax::Array<T, As...>& keys) {
  std::vector<std::int64_t> shape;
  for (auto e : keys.extents()) shape.push_back(e);
  return compare_keys(want, std::vector<std::uint64_t>(keys.begin(), keys.end()), shape);
}

// The sampler of case c with element type T over the sample axes Ps... (1-D: sample; 2-D: row, col).
template <class B, class T, class... Ps>
std::string draw(const Case& c, nr::Key key, const std::array<nax::index_t, sizeof...(Ps)>& ext) {
  auto exact = [&](const auto& e) { return conf::check<B>(c, e, 0.0, /*exact_bits=*/true); };
  const std::string& op = c.op;
  if constexpr (std::is_floating_point_v<T>) {
    if (op == "uniform") {
      if (c.has("lo")) return exact(nr::uniform<T, Ps...>(key, ext, c.number("lo"), c.number("hi")));
      return exact(nr::uniform<T, Ps...>(key, ext));
    }
    if (op == "normal") return exact(nr::normal<T, Ps...>(key, ext));
    if (op == "bernoulli") return exact(nr::bernoulli<T, Ps...>(key, c.number("p"), ext));
    // -log(-log(u)): the bits of u are JAX's, the two logs are this machine's libm's, not XLA's
    if (op == "gumbel") return conf::check<B>(c, nr::gumbel<T, Ps...>(key, ext), std::is_same_v<T, float> ? 2e-6 : 1e-14);
    // the uniform draw and erfinv are JAX's bits; the erf of the bounds is libm's, not XLA's, which
    // moves the draw's interval by an ulp of its bounds: compared to that, absolutely
    if (op == "truncated_normal") {
      const auto got = B::result(nr::truncated_normal<T, Ps...>(key, c.number("lo"), c.number("hi"), ext));
      const double tolerance = std::is_same_v<T, float> ? 1e-6 : 1e-14;
      for (nax::index_t k = 0; k < got.size(); ++k) {
        const double want = c.out[0].as_double(k), have = static_cast<double>(got.data()[k]);
        if (!(std::fabs(have - want) <= tolerance * (1 + std::fabs(want))))
          return "element " + std::to_string(k) + ": nax " + std::to_string(have) + ", jax " + std::to_string(want);
      }
      return conf::compare(c.out[0], got, 1.0);  // the shape and the dtype
    }
  } else if constexpr (std::is_unsigned_v<T>) {
    if (op == "bits") return exact(nr::bits<T, Ps...>(key, ext));
  } else {
    if (op == "randint") return exact(nr::randint<T, Ps...>(key, ext, c.integer("lo"), c.integer("hi")));
  }
  return "unknown op " + op + " for " + c.dtype();
}

template <class B, class T>
std::string draw_shaped(const Case& c, nr::Key key) {
  const auto s = c.shape();
  if (s.size() == 1) return draw<B, T, sample>(c, key, {s[0]});
  if (s.size() == 2) return draw<B, T, row, col>(c, key, {s[0], s[1]});
  return "unsupported rank";
}

template <class B>
std::string run(const Case& c) {
  const std::string& op = c.op;
  const nr::Key key = nr::key(c.integer("seed"));
  if (op == "key" || op == "fold_in") {  // functions of a C++ Key: no expression to evaluate
    if constexpr (B::device) return conf::skip_because("key / fold_in of a C++ Key run on the host only");
    if (op == "key") return compare_keys(c.out[0], {nr::key_data(key)}, {});
    return compare_keys(c.out[0], {nr::key_data(nr::fold_in(key, static_cast<std::uint32_t>(c.integer("data"))))}, {});
  }
  if (op == "split") {
    const auto s = c.shape();
    if (s.size() == 1) return compare_keys(c.out[0], B::result(nr::split<sample>(key, s[0])));
    return compare_keys(c.out[0], B::result(nr::split<row, col>(key, {s[0], s[1]})));
  }
  if (op == "fold_in_vec")
    return compare_keys(c.out[0], B::result(nr::fold_in(key, B::template input<std::uint32_t, sample>(c.in[0]))));
  if (op == "categorical_last" || op == "categorical_first") {  // logits (5, 7): the draws, exact
    return conf::by_dtype<B, float, double>(c.dtype(), [&](auto t) {
      using T = decltype(t);
      const auto logits = B::template input<T, row, col>(c.in[0]);
      if (op == "categorical_last") return conf::check<B>(c, nr::categorical<col>(key, logits));
      return conf::check<B>(c, nr::categorical<row>(key, logits));
    });
  }
  if (op == "vmap_uniform" || op == "vmap_normal") {  // jax.vmap(lambda k: sampler(k, (3,)))(split(key, 4))
    const auto keys = B::eval(nr::split<batch>(key, 4));
    const auto r = op == "vmap_uniform" ? B::template result_as<float, batch, sample>(nr::uniform<sample>(keys, {3}))
                                        : B::template result_as<float, batch, sample>(nr::normal<sample>(keys, {3}));
    return conf::compare(c.out[0], r, 0.0, true);
  }
  // permutation and choice: JAX's 32-bit mode (tests/conformance/generate.py), exact
  if (op == "permutation") return conf::check<B>(c, nr::permutation<sample>(key, c.integer("n")));
  const bool replace = c.has("replace") && c.integer("replace") != 0;
  if (op == "choice") return conf::check<B>(c, nr::choice<sample>(key, c.integer("n"), c.integer("draws"), replace));
  if (op == "choice_p")
    return conf::check<B>(c, nr::choice<sample>(key, B::template input<float, col>(c.in[0]), c.integer("draws"), replace));
  if (op == "permutation_x" || op == "choice_x") {
    const auto x = B::template input<float, row, col>(c.in[0]);
    if (op == "permutation_x") return conf::check<B>(c, nr::permutation<col>(key, x), 0.0, true);
    return conf::check<B>(c, nax::rename<sample, col>(nr::choice<sample, col>(key, x, c.integer("draws"), replace)), 0.0,
                          true);
  }
  return conf::by_dtype<B, float, double, std::uint32_t, std::uint64_t, std::int32_t, std::int64_t>(
      c.dtype(), [&](auto t) { return draw_shaped<B, decltype(t)>(c, key); });
}

}  // namespace conf_random
