// Central finite differences in double precision, for checking reverse-mode gradients.
#pragma once
#include <algorithm>
#include <cmath>
#include <doctest/doctest.h>
#include <nax/nax.hpp>

#include "../support/reference.hpp"

namespace nax_ad_test {

// The largest |g - fd| over the largest |fd| (or 1 when the gradient is tiny).
template <class F, class T, class... As, class G>
double fd_error(F&& loss, nax::Array<T, As...>& x, const G& g, double h = 1e-5) {
  double worst = 0, scale = 0;
  auto gi = g.begin();
  for (auto it = x.begin(); it != x.end(); ++it, ++gi) {
    T saved = *it;
    *it = saved + h;
    double up = loss();
    *it = saved - h;
    double down = loss();
    *it = saved;
    double fd = (up - down) / (2 * h);
    worst = std::max(worst, std::abs(fd - double(*gi)));
    scale = std::max(scale, std::abs(fd));
  }
  return worst / std::max(scale, 1.0);
}

}  // namespace nax_ad_test

namespace nax_ad_test {
// grad(f)(x) against central differences of f(x).item().
template <class F, class T, class... As>
double check_fd(F f, nax::Array<T, As...>& x) {
  auto g = nax::grad(f)(x);
  static_assert(std::is_same_v<decltype(g), nax::Array<T, As...>>);
  return fd_error([&] { return double(f(x).item()); }, x, g);
}
}  // namespace nax_ad_test
