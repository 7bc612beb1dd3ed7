// Conformance with JAX, family `vmap` (data/vmap/): jax.vmap with in_axes / out_axes variants,
// several outputs, a reduction inside, and nested vmaps (2 and 3 levels). The inputs are stored
// in JAX's layout; each program below names their axes (n, m, p, q, r: mapped axes) and assigns
// the result to an array whose axis order is JAX's output layout.
#include "conformance.hpp"

namespace {

NAX_AXIS(n);
NAX_AXIS(m);
NAX_AXIS(p);
NAX_AXIS(q);
NAX_AXIS(r);
NAX_AXIS(c);
NAX_AXIS(d);
NAX_AXIS(j);
NAX_AXIS(two);

using conf::Case;

template <class T>
std::string run_typed(const Case& c0) {
  const std::string& op = c0.op;
  const auto& in = c0.in;
  const auto& out = c0.out;
  if (op == "affine") {  // vmap(lambda v: v * 2 + 1)(x), x (n, c)
    nax::Array<T, n, c> y = nax::vmap<n>([](const auto& v) { return v * 2 + 1; })(conf::to_array<T, n, c>(in[0]));
    return conf::compare(out[0], y);
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (op == "layer") {  // vmap(tanh(v @ w + b), in_axes=(0, None, None)), w (c, j), b (j)
      auto x = conf::to_array<T, n, c>(in[0]);
      auto w = conf::to_array<T, c, j>(in[1]);
      auto b = conf::to_array<T, j>(in[2]);
      auto f = [](const auto& v, const auto& w_, const auto& b_) { return nax::tanh(nax::dot<c>(v, w_) + b_); };
      nax::Array<T, n, j> y = nax::vmap<n>(f, nax::in_axes(nax::mapped, nax::none, nax::none))(x, w, b);
      return conf::compare(out[0], y);
    }
    if (op == "in_axes1") {  // vmap(lambda v: v - sum(v), in_axes=1)(x), x (c, n): from<m> maps axis m as n
      auto x = conf::to_array<T, c, m>(in[0]);
      nax::Array<T, n, c> y = nax::vmap<n>([](const auto& v) { return v - nax::sum(v); }, nax::in_axes(nax::from<m>))(x);
      return conf::compare(out[0], y);
    }
    if (op == "in_axes10") {  // vmap(lambda u, v: u * v + max(v), in_axes=(1, 0))(x (c, n), y (n, c))
      auto x = conf::to_array<T, c, m>(in[0]);
      auto z = conf::to_array<T, n, c>(in[1]);
      auto f = [](const auto& u, const auto& v) { return u * v + nax::max(v); };
      nax::Array<T, n, c> y = nax::vmap<n>(f, nax::in_axes(nax::from<m>, nax::mapped))(x, z);
      return conf::compare(out[0], y);
    }
    if (op == "out_axes1") {  // vmap(lambda v: exp(v) - 1, out_axes=1)(x (n, c)) -> (c, n)
      auto x = conf::to_array<T, n, c>(in[0]);
      auto y = nax::eval(nax::vmap<n>([](const auto& v) { return nax::exp(v) - 1; }, nax::out_axes(nax::at<1>))(x));
      static_assert(std::is_same_v<decltype(y), nax::Array<T, c, n>>);
      return conf::compare(out[0], y);
    }
    if (op == "out_none") {  // vmap(lambda v, k: (v * 3, k + 1), in_axes=(0, None), out_axes=(0, None))
      auto x = conf::to_array<T, n, c>(in[0]);
      auto k = conf::to_array<T, two>(in[1]);
      auto f = [](const auto& v, const auto& k_) { return nax::tuple(v * 3, k_ + 1); };
      auto [y0, y1] = nax::vmap<n>(f, nax::in_axes(nax::mapped, nax::none), nax::out_axes(nax::at<0>, nax::replicated))(x, k);
      nax::Array<T, n, c> a0 = y0;
      nax::Array<T, two> a1 = y1;
      std::string e = conf::compare(out[0], a0);
      return e.empty() ? conf::compare(out[1], a1) : e;
    }
    if (op == "softmax") {  // vmap(jax.nn.softmax)(x (n, c))
      auto x = conf::to_array<T, n, c>(in[0]);
      auto f = [](const auto& v) {
        auto e = nax::exp(v - nax::max(v));
        return e / nax::sum(e);
      };
      nax::Array<T, n, c> y = nax::vmap<n>(f)(x);
      return conf::compare(out[0], y);
    }
    if (op == "nested_dist") {  // vmap(vmap(dist, in_axes=(None, 0)), in_axes=(0, None))(p (n, d), q (m, d))
      auto a = conf::to_array<T, n, d>(in[0]);
      auto b = conf::to_array<T, m, d>(in[1]);
      auto dist = [](const auto& u, const auto& v) { return nax::sum(nax::square(u - v)); };
      auto inner = nax::vmap<m>(dist, nax::in_axes(nax::none, nax::mapped));
      nax::Array<T, n, m> y = nax::vmap<n>(inner, nax::in_axes(nax::mapped, nax::none))(a, b);
      return conf::compare(out[0], y);
    }
    if (op == "nested_axes") {  // vmap(vmap(lambda v: v * sum(v), in_axes=1), in_axes=0, out_axes=1)(x (n, c, m))
      auto x = conf::to_array<T, n, c, m>(in[0]);
      auto inner = nax::vmap<m>([](const auto& v) { return v * nax::sum(v); });
      auto y = nax::eval(nax::vmap<n>(inner, nax::out_axes(nax::at<1>))(x));
      static_assert(std::is_same_v<decltype(y), nax::Array<T, m, n, c>>);
      return conf::compare(out[0], y);
    }
    if (op == "nested3") {  // vmap(vmap(vmap(lambda s: sin(s) * s)))(x (p, q, r))
      auto x = conf::to_array<T, p, q, r>(in[0]);
      auto f = [](const auto& s) { return nax::sin(s) * s; };
      nax::Array<T, p, q, r> y = nax::vmap<p>(nax::vmap<q>(nax::vmap<r>(f)))(x);
      return conf::compare(out[0], y);
    }
  }
  return "unknown op " + op + " for " + c0.dtype();
}

std::string run(const Case& c) {
  const std::string dt = c.dtype();
  if (dt == "float32") return run_typed<float>(c);
  if (dt == "float64") return run_typed<double>(c);
  if (dt == "int32") return run_typed<std::int32_t>(c);
  return "unknown dtype " + dt;
}

}  // namespace

TEST_CASE("conformance vmap: in_axes, out_axes and nested vmaps against jax.vmap") {
  const auto cases = conf::load_family("vmap");
  const auto t = conf::run_family(cases, run, "vmap");
  CHECK(t.run == int(cases.size()));
}
