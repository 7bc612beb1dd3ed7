// The programs of family `collectives`, shared by collectives_vmap_test.cpp and
// collectives_pmap_test.cpp (one map kind per file keeps each compile short). Conformance with JAX, family `collectives` (data/collectives/): psum, pmean, pmax, pmin,
// x - pmean(x), all_gather (untiled, tiled), psum_scatter (untiled, tiled), ppermute (a roll; a
// shift, pmap only), all_to_all and axis_index over an axis i of 4 members, under vmap and under
// pmap on 4 host devices, float32, float64 and int32; and collectives over two names of nested
// vmaps. JAX's pmap returns a replicated result once per device (out_axes=0); nax's pmap returns
// it once (no i axis), which is compared with each of JAX's copies.
#pragma once
#include "conformance.hpp"

#include <utility>
#include <vector>

namespace conf_collectives {

NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(c);
NAX_AXIS(s);
NAX_AXIS(g);
NAX_AXIS(nn);
NAX_AXIS(dev);

using conf::Case;
constexpr int N = 4;

inline const nax::Mesh<dev>& mesh4() {
  static const nax::Mesh<dev> mesh(nax::host::devices(N), {N});
  return mesh;
}

// nax's result of f mapped over i (pmap on 4 host devices, or vmap) against JAX's output.
template <bool Pmap, class X, class F>
std::string mapped(const Case& cs, const X& x, F f) {
  auto check = [&](const auto& result) {
    const auto& want = cs.out[0];
    const std::int64_t replicas = std::int64_t(want.shape.size()) == std::int64_t(result.extents().size()) + 1 ? N : 1;
    return conf::compare(want, result, -1, false, replicas);
  };
  if constexpr (Pmap) return check(nax::pmap<i>(f, mesh4())(x));
  else return check(nax::eval(nax::vmap<i>(f)(x)));
}

template <bool Pmap, class T>
std::string run_typed(const Case& cs) {
  const std::string& op = cs.op;
  if (op == "psum_scatter" || op == "psum_scatter_tiled" || op == "all_to_all") {
    const auto x = conf::to_array<T, i, s, c>(cs.in[0]);  // (i, s, c)
    if (op == "psum_scatter") return mapped<Pmap>(cs, x, [](const auto& v) { return nax::psum_scatter<i, s>(v); });
    if (op == "psum_scatter_tiled")
      return mapped<Pmap>(cs, x, [](const auto& v) { return nax::psum_scatter<i, s>(v, nax::tiled); });
    return mapped<Pmap>(cs, x, [](const auto& v) { return nax::all_to_all<i, s, nn>(v); });
  }
  const auto x = conf::to_array<T, i, c>(cs.in[0]);  // (i, c)
  if (op == "psum") return mapped<Pmap>(cs, x, [](const auto& v) { return nax::psum<i>(v); });
  if (op == "pmax") return mapped<Pmap>(cs, x, [](const auto& v) { return nax::pmax<i>(v); });
  if (op == "pmin") return mapped<Pmap>(cs, x, [](const auto& v) { return nax::pmin<i>(v); });
  if (op == "all_gather") return mapped<Pmap>(cs, x, [](const auto& v) { return nax::all_gather<i, g>(v); });
  if (op == "all_gather_tiled") return mapped<Pmap>(cs, x, [](const auto& v) { return nax::all_gather<i, c>(v, nax::tiled); });
  if (op == "ppermute_roll") {
    std::vector<std::pair<int, int>> roll;
    for (int d = 0; d < N; ++d) roll.push_back({d, (d + 1) % N});
    return mapped<Pmap>(cs, x, [roll](const auto& v) { return nax::ppermute<i>(v, roll); });
  }
  if (op == "ppermute_shift") {
    std::vector<std::pair<int, int>> shift;
    for (int d = 0; d + 1 < N; ++d) shift.push_back({d, d + 1});
    return mapped<Pmap>(cs, x, [shift](const auto& v) { return nax::ppermute<i>(v, shift); });
  }
  if (op == "axis_index")
    return mapped<Pmap>(cs, x, [](const auto& v) { return v * 0 + nax::cast<T>(nax::axis_index<i>()); });
  if constexpr (std::is_floating_point_v<T>) {
    if (op == "pmean") return mapped<Pmap>(cs, x, [](const auto& v) { return nax::pmean<i>(v); });
    if (op == "centre") return mapped<Pmap>(cs, x, [](const auto& v) { return v - nax::pmean<i>(v); });
  }
  if constexpr (std::is_same_v<T, double> && !Pmap) {
    if (op == "two_names") {  // x (i=3, j=4), vmap(vmap(f, axis_name='j'), axis_name='i')
      auto f = [](const auto& v) {
        return nax::tuple(nax::psum<i, j>(v), v - nax::psum<i>(v), nax::pmax<j>(v),
                          nax::axis_index<i>() * 4 + nax::axis_index<j>());
      };
      const auto xij = conf::to_array<double, i, j>(cs.in[0]);
      auto [a, b, m, k] = nax::vmap<i>(nax::vmap<j>(f))(xij);
      nax::Array<double, i, j> a0 = a, a1 = b, a2 = m;
      nax::Array<std::int32_t, i, j> a3 = k;
      for (const auto& e : {conf::compare(cs.out[0], a0), conf::compare(cs.out[1], a1), conf::compare(cs.out[2], a2),
                            conf::compare(cs.out[3], a3)})
        if (!e.empty()) return e;
      return "";
    }
  }
  return "unknown op " + op + " for " + cs.dtype();
}

template <bool Pmap>
std::string run(const Case& c) {
  const std::string dt = c.dtype();
  if (dt == "float32") return run_typed<Pmap, float>(c);
  if (dt == "float64") return run_typed<Pmap, double>(c);
  if (dt == "int32") return run_typed<Pmap, std::int32_t>(c);
  return "unknown dtype " + dt;
}

}  // namespace conf_collectives
