// nax::tuple: the pytree a function returns when it has several outputs. Tree layer.
// A std::tuple of copies (moves for rvalues), so C++17 structured bindings read it:
// `auto [new_params, loss] = step(params, x, y);` where step returns nax::tuple(params, loss).
#pragma once
#include <tuple>
#include <type_traits>
#include <utility>

namespace nax {

template <class... Xs>
std::tuple<std::decay_t<Xs>...> tuple(Xs&&... xs) {
  return std::tuple<std::decay_t<Xs>...>(std::forward<Xs>(xs)...);
}

}  // namespace nax
