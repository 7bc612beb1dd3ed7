// A reduction op written outside nax's four (expr/reduce_ops.hpp's protocol: result,
// identity, combine), shared by the snippets that check what nax does with an unknown one.
#pragma once

struct logical_or_op {
  template <class T>
  using result = T;
  template <class T>
  static constexpr T identity() { return T(0); }
  template <class T>
  static constexpr T combine(T a, T b) { return a || b; }
};
