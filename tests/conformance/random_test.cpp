// Conformance with JAX, family `random` (data/random/): jax.random's threefry2x32 keys (key,
// split to 1-D and 2-D shapes, fold_in of numbers and of an array of data), bits (uint32,
// uint64), uniform (default and [-3, 5.5)), normal, bernoulli (float32 and float64 p), randint
// (int32 narrow and full range, int64) on several keys and 1-D / 2-D shapes, and samplers over a
// batch of keys (jax.vmap over keys). Every comparison is exact: key words, bits and integers
// equal, floating samples equal bit for bit. Conventions as tests/random/jax_reference.py: x64
// mode, jax.random.key(seed) with 64-bit seeds, threefry_partitionable.
#include "conformance.hpp"

#include <nax/random/random.hpp>

namespace {

NAX_AXIS(sample);
NAX_AXIS(row);
NAX_AXIS(col);
NAX_AXIS(batch);

namespace nr = nax::random;
using conf::Case;

// nax keys (uint64 key data, k0 in the high word) against jax.random.key_data (uint32 (..., 2)).
std::string compare_keys(const npy::Array& want, const std::vector<std::uint64_t>& data,
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

template <class E>
std::string exact(const Case& c, const E& e) {
  return conf::compare(c.out[0], nax::eval(e), 0.0, /*exact_bits=*/true);
}

// The sampler of case c with element type T over the sample axes Ps... (1-D: sample; 2-D: row, col).
template <class T, class... Ps>
std::string draw(const Case& c, nr::Key key, const std::array<nax::index_t, sizeof...(Ps)>& ext) {
  const std::string& op = c.op;
  if constexpr (std::is_floating_point_v<T>) {
    if (op == "uniform") {
      if (c.has("lo")) return exact(c, nr::uniform<T, Ps...>(key, ext, c.number("lo"), c.number("hi")));
      return exact(c, nr::uniform<T, Ps...>(key, ext));
    }
    if (op == "normal") return exact(c, nr::normal<T, Ps...>(key, ext));
    if (op == "bernoulli") return exact(c, nr::bernoulli<T, Ps...>(key, c.number("p"), ext));
  } else if constexpr (std::is_unsigned_v<T>) {
    if (op == "bits") return exact(c, nr::bits<T, Ps...>(key, ext));
  } else {
    if (op == "randint") return exact(c, nr::randint<T, Ps...>(key, ext, c.integer("lo"), c.integer("hi")));
  }
  return "unknown op " + op + " for " + c.dtype();
}

template <class T>
std::string draw_shaped(const Case& c, nr::Key key) {
  const auto s = c.shape();
  if (s.size() == 1) return draw<T, sample>(c, key, {s[0]});
  if (s.size() == 2) return draw<T, row, col>(c, key, {s[0], s[1]});
  return "unsupported rank";
}

std::string run(const Case& c) {
  const std::string& op = c.op;
  const nr::Key key = nr::key(c.integer("seed"));
  if (op == "key") return compare_keys(c.out[0], {nr::key_data(key)}, {});
  if (op == "split") {
    const auto s = c.shape();
    if (s.size() == 1) return compare_keys(c.out[0], nax::eval(nr::split<sample>(key, s[0])));
    return compare_keys(c.out[0], nax::eval(nr::split<row, col>(key, {s[0], s[1]})));
  }
  if (op == "fold_in")
    return compare_keys(c.out[0], {nr::key_data(nr::fold_in(key, static_cast<std::uint32_t>(c.integer("data"))))}, {});
  if (op == "fold_in_vec")
    return compare_keys(c.out[0], nax::eval(nr::fold_in(key, conf::to_array<std::uint32_t, sample>(c.in[0]))));
  if (op == "vmap_uniform" || op == "vmap_normal") {  // jax.vmap(lambda k: sampler(k, (3,)))(split(key, 4))
    const auto keys = nax::eval(nr::split<batch>(key, 4));
    nax::Array<float, batch, sample> r = op == "vmap_uniform" ? nax::Array<float, batch, sample>(nr::uniform<sample>(keys, {3}))
                                                               : nax::Array<float, batch, sample>(nr::normal<sample>(keys, {3}));
    return conf::compare(c.out[0], r, 0.0, true);
  }
  const std::string dt = c.dtype();
  if (dt == "float32") return draw_shaped<float>(c, key);
  if (dt == "float64") return draw_shaped<double>(c, key);
  if (dt == "uint32") return draw_shaped<std::uint32_t>(c, key);
  if (dt == "uint64") return draw_shaped<std::uint64_t>(c, key);
  if (dt == "int32") return draw_shaped<std::int32_t>(c, key);
  if (dt == "int64") return draw_shaped<std::int64_t>(c, key);
  return "unknown dtype " + dt;
}

}  // namespace

TEST_CASE("conformance random: threefry keys and samplers against jax.random, bit for bit") {
  const auto cases = conf::load_family("random");
  const auto t = conf::run_family(cases, run, "random");
  CHECK(t.run == int(cases.size()));
}
