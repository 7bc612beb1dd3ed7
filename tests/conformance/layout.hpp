// The programs of family `layout` (data/layout/): flip, roll, pad (constant, edge, reflect,
// symmetric, wrap), tile, repeat, dynamic_slice, dynamic_update_slice, cumsum, cummax, cummin and
// cumprod (lines with zeros) along b, tril and triu, nansum, nanmean and the norms along b: each
// value and the gradient of sum(w * f(x)); linspace, eye and tri; any, all and count_nonzero; the
// values of cumprod, cummax and cummin (NaN included) and of cumsum of bools. Over a backend B
// (backend.hpp): layout_test.cpp runs them on the host, tests/cuda/test_conformance_*.cu on the
// CUDA backend.
#pragma once
#include "nn.hpp"

namespace conf_layout {

NAX_AXIS(a);
NAX_AXIS(b);

using conf::Case;
using conf_nn::compare_outputs;
using nax::index_t;

template <class B, class T>
std::string differentiable(const Case& c) {
  const std::string& op = c.op;
  const auto x = B::template input<T, a, b>(c.in[0]);
  if (op == "cumprod") return conf::check<B>(c, nax::cumprod<b>(x));
  if (op == "cumprod_reverse") return conf::check<B>(c, nax::cumprod<b>(x, true));
  if (op == "cummax") return conf::check<B>(c, nax::cummax<b>(x));
  if (op == "cummin_reverse") return conf::check<B>(c, nax::cummin<b>(x, true));
  if (op == "dynamic_update_slice") {
    const auto u = B::template input<T, a, b>(c.in[1]);
    const auto w = B::template input<T, a, b>(c.in[2]);
    const index_t start = c.integer("start");
    auto f = [&](const auto& p, const auto& q) { return nax::dynamic_update_slice<b>(p, q, start); };
    auto [gx, gu] = nax::grad<0, 1>([&](const auto& p, const auto& q) { return nax::sum(w * f(p, q)); })(x, u);
    return compare_outputs<B>(c, -1, f(x, u), gx, gu);
  }
  auto weighted = [&](auto... w_axes) {
    return [&, w_axes...](auto f) {
      const auto w = B::template input<T, decltype(w_axes)...>(c.in[1]);
      auto g = nax::grad([&](const auto& v) { return nax::sum(w * f(v)); })(x);
      return compare_outputs<B>(c, -1, f(x), g);
    };
  };
  auto along_b = weighted(a{}, b{});
  if (op == "flip") return along_b([](const auto& v) { return nax::flip<b>(v); });
  if (op == "roll_7") return along_b([](const auto& v) { return nax::roll<b>(v, 7); });
  if (op == "roll_m2") return along_b([](const auto& v) { return nax::roll<b>(v, -2); });
  if (op == "pad_constant") return along_b([](const auto& v) { return nax::pad<b>(v, 2, 3, 0.5); });
  if (op == "pad_edge") return along_b([](const auto& v) { return nax::pad<b>(v, 4, 6, nax::pad_mode::edge); });
  if (op == "pad_reflect") return along_b([](const auto& v) { return nax::pad<b>(v, 4, 6, nax::pad_mode::reflect); });
  if (op == "pad_symmetric")
    return along_b([](const auto& v) { return nax::pad<b>(v, 4, 6, nax::pad_mode::symmetric); });
  if (op == "pad_wrap") return along_b([](const auto& v) { return nax::pad<b>(v, 4, 6, nax::pad_mode::wrap); });
  if (op == "tile") return along_b([](const auto& v) { return nax::tile<b>(v, 2); });
  if (op == "repeat") return along_b([](const auto& v) { return nax::repeat<b>(v, 3); });
  if (op == "dynamic_slice_3") return along_b([](const auto& v) { return nax::dynamic_slice<b>(v, 3, 3); });
  if (op == "dynamic_slice_m1") return along_b([](const auto& v) { return nax::dynamic_slice<b>(v, -1, 2); });
  if (op == "cumsum") return along_b([](const auto& v) { return nax::cumsum<b>(v); });
  if (op == "cumsum_reverse") return along_b([](const auto& v) { return nax::cumsum<b>(v, true); });
  if (op == "cumsum_rows") return along_b([](const auto& v) { return nax::cumsum<a>(v); });
  if (op == "cummax_grad") return along_b([](const auto& v) { return nax::cummax<b>(v); });
  if (op == "cummin_reverse_grad") return along_b([](const auto& v) { return nax::cummin<b>(v, true); });
  if (op == "cumprod_grad") return along_b([](const auto& v) { return nax::cumprod<b>(v); });
  if (op == "cumprod_reverse_grad") return along_b([](const auto& v) { return nax::cumprod<b>(v, true); });
  const index_t k = c.has("k") ? c.integer("k") : 0;
  if (op == "tril") return along_b([k](const auto& v) { return nax::tril<a, b>(v, k); });
  if (op == "triu") return along_b([k](const auto& v) { return nax::triu<a, b>(v, k); });
  auto per_row = weighted(a{});
  if (op == "nansum") return per_row([](const auto& v) { return nax::nansum<b>(v); });
  if (op == "nanmean") return per_row([](const auto& v) { return nax::nanmean<b>(v); });
  if (op == "norm") return per_row([](const auto& v) { return nax::norm<b>(v); });
  if (op == "norm_inf") return per_row([](const auto& v) { return nax::norm<b>(v, nax::ord::inf); });
  if (op == "norm_one") return per_row([](const auto& v) { return nax::norm<b>(v, nax::ord::one); });
  if (op == "norm_frobenius") return weighted()([](const auto& v) { return nax::norm(v); });
  return "unknown op " + op;
}

template <class B, class T>
std::string created(const Case& c) {
  const std::string& op = c.op;
  if (op == "linspace")
    return conf::check<B>(c, nax::linspace<a, T>(c.number("start"), c.number("stop"), c.integer("num"),
                                                 c.integer("endpoint") != 0));
  if (op == "eye") return conf::check<B>(c, nax::eye<a, b, T>(c.integer("n"), c.integer("m"), c.integer("k")));
  if (op == "tri") return conf::check<B>(c, nax::tri<a, b, T>(c.integer("n"), c.integer("m"), c.integer("k")));
  if constexpr (std::is_floating_point_v<T>) return differentiable<B, T>(c);
  else return "unknown op " + op + " for " + c.dtype();
}

template <class B>
std::string run(const Case& c) {
  const std::string& op = c.op;
  if (op == "any" || op == "all" || op == "count_nonzero") {
    if constexpr (B::template instantiates<bool>() && B::template instantiates<std::int64_t>()) {
      const auto z = B::template input<float, a, b>(c.in[0]);
      if (op == "any") return conf::check<B>(c, nax::any<b>(z));
      if (op == "all") return conf::check<B>(c, nax::all<b>(z));
      return conf::check<B>(c, nax::count_nonzero<b>(z));
    } else {
      return conf::skip_because(B::not_instantiated("bool and int64"));
    }
  }
  if (op == "cumsum_bool") {
    if constexpr (B::template instantiates<bool>()) return conf::check<B>(c, nax::cumsum<b>(B::template input<bool, a, b>(c.in[0])));
    else return conf::skip_because(B::not_instantiated("bool"));
  }
  if (c.dtype() == "int32") {
    if constexpr (B::template instantiates<std::int32_t>()) return created<B, std::int32_t>(c);
    else return conf::skip_because(B::not_instantiated("int32"));
  }
  return conf::by_dtype<B, float, double>(c.dtype(), [&](auto t) { return created<B, decltype(t)>(c); });
}

}  // namespace conf_layout
