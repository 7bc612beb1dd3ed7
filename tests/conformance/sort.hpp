// The programs of family `sort` (data/sort/): sort and argsort along b (both directions), top_k
// (values and indices), searchsorted of each row's values in that row (both sides), quantile with
// every method at several q, median; the value and the gradient of sum(w * f(x)) for sort (both
// directions, with ties), top_k's values, quantile and median. Over a backend B (backend.hpp):
// sort_test.cpp runs them on the host, tests/cuda/test_conformance_*.cu on the CUDA backend.
#pragma once
#include <string>

#include "nn.hpp"

namespace conf_sort {

NAX_AXIS(a);
NAX_AXIS(b);
NAX_AXIS(k);
NAX_AXIS(q);

using conf::Case;
using conf_nn::compare_outputs;
using nax::index_t;

nax::quantile_method method_named(const std::string& m) {
  if (m == "lower") return nax::quantile_method::lower;
  if (m == "higher") return nax::quantile_method::higher;
  if (m == "midpoint") return nax::quantile_method::midpoint;
  if (m == "nearest") return nax::quantile_method::nearest;
  return nax::quantile_method::linear;
}

template <class B, class T>
std::string ordered(const Case& c) {
  const std::string& op = c.op;
  const auto x = B::template input<T, a, b>(c.in[0]);
  const bool descending = c.has("descending") && c.integer("descending") != 0;
  if (op == "sort") return conf::check<B>(c, nax::sort<b>(x, descending));
  if (op == "argsort") return conf::check<B>(c, nax::argsort<b>(x, descending));
  if (op == "top_k") {
    auto [values, indices] = nax::top_k<b, k>(x, c.integer("k"));
    return compare_outputs<B>(c, -1, values, indices);
  }
  if (op == "searchsorted") {
    const auto v = B::template input<T, a, k>(c.in[1]);
    return conf::check<B>(c, nax::searchsorted<b>(x, v, c.param("side") == "right" ? nax::side::right : nax::side::left));
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (op == "quantiles") {
      const auto qs = B::template input<T, q>(c.in[1]);
      return conf::check<B>(c, nax::transpose<q, a>(nax::quantile<b>(x, qs, method_named(c.param("method")))));
    }
    if (op == "median") return conf::check<B>(c, nax::median<b>(x));
    auto weighted = [&](auto... w_axes) {
      return [&, w_axes...](auto f) {
        const auto w = B::template input<T, decltype(w_axes)...>(c.in[1]);
        auto g = nax::grad([&](const auto& v) { return nax::sum(w * f(v)); })(x);
        return compare_outputs<B>(c, -1, f(x), g);
      };
    };
    if (op == "sort_grad") return weighted(a{}, b{})([](const auto& v) { return nax::sort<b>(v); });
    if (op == "sort_desc_grad") return weighted(a{}, b{})([](const auto& v) { return nax::sort<b>(v, true); });
    if (op == "top_k_grad") return weighted(a{}, k{})([](const auto& v) { return nax::top_k<b, k>(v, 4).values; });
    if (op == "quantile_grad") return weighted(a{})([](const auto& v) { return nax::quantile<b>(v, 0.3); });
    if (op == "median_grad") return weighted(a{})([](const auto& v) { return nax::median<b>(v); });
  }
  return "unknown op " + op;
}

template <class B>
std::string run(const Case& c) {
  if constexpr (!B::template instantiates<index_t>()) {
    return conf::skip_because(B::not_instantiated("int64"));
  } else if (c.dtype() == "int32") {
    if constexpr (B::template instantiates<std::int32_t>()) return ordered<B, std::int32_t>(c);
    else return conf::skip_because(B::not_instantiated("int32"));
  } else {
    return conf::by_dtype<B, float, double>(c.dtype(), [&](auto t) { return ordered<B, decltype(t)>(c); });
  }
}

}  // namespace conf_sort
