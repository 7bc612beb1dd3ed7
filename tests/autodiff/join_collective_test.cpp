// Reverse-mode rules of merge, concatenate and stack, and of the collectives (all_gather and
// psum_scatter, untiled and tiled, ppermute, all_to_all) against central finite differences,
// with random extents including 1 (and 0 for the joins).
// The collectives: member m of the mapped axis i has the loss l_m = (m + 1) * sum_op(sum(op(x_m)
// * w_op)), all of them in one program to keep this file quick to compile (the transposes are
// linear, so a linear loss checks them fully); the total is L = sum_m l_m. Inside the map each
// member takes grad of psum(l_m) (a replicated output), which must equal dL/dx_m. With an
// output that varies per member (JAX's vmap(grad) semantics: the transposed collectives sum
// the members' cotangents), grad of l_m itself must give the same; only all_gather's rule
// sees such a cotangent (the other collectives' results vary per member, so the cotangent
// reaching them is theirs), so that check runs on the all_gather terms alone.
// Under vmap, pmap on 4 host devices, and xmap with two members per device. pmax/pmin have no
// rule (neither has JAX): grad throws.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "finite_difference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(a);
NAX_AXIS(b);
NAX_AXIS(m);
NAX_AXIS(g);
NAX_AXIS(s);
NAX_AXIS(c);
NAX_AXIS(dev);
using nax::index_t;

constexpr double tolerance = 1e-6;

// Member m's loss for x_m with axes (s, a), s = the number of members n, a = n * k.
struct collective_loss {
  nax::Array<double, g, s, a> w_gather;       // all_gather<i, g>: (g, s, a)
  nax::Array<double, s, a> w_gather_tiled;    // all_gather<i, a>, tiled: (s, a: n * n * k)
  nax::Array<double, a> w_scatter;            // psum_scatter<i, s>: (a)
  nax::Array<double, s, a> w_scatter_tiled;   // psum_scatter<i, a>, tiled: (s, a: k)
  nax::Array<double, c, a> w_all_to_all;      // all_to_all<i, s, c>: (c, a)
  nax::Array<double, s, a> w_permute;         // ppermute<i>: (s, a)
  std::vector<std::pair<int, int>> perm;

  collective_loss(nax_test::random_source& rng, index_t n, index_t k)
      : w_gather(nax_test::random_array<double, g, s, a>(rng, {n, n, n * k})),
        w_gather_tiled(nax_test::random_array<double, s, a>(rng, {n, n * n * k})),
        w_scatter(nax_test::random_array<double, a>(rng, {n * k})),
        w_scatter_tiled(nax_test::random_array<double, s, a>(rng, {n, k})),
        w_all_to_all(nax_test::random_array<double, c, a>(rng, {n, n * k})),
        w_permute(nax_test::random_array<double, s, a>(rng, {n, n * k})) {}

  static auto term(const auto& y, const auto& w) { return nax::sum(y * w); }
  template <class V>
  auto gathers(const V& v) const {
    return (term(nax::all_gather<i, g>(v), w_gather) + term(nax::all_gather<i, a>(v, nax::tiled), w_gather_tiled)) *
           (nax::axis_index<i>() + 1.0);
  }
  template <class V>
  auto operator()(const V& v) const {
    auto sum = term(nax::all_gather<i, g>(v), w_gather) + term(nax::all_gather<i, a>(v, nax::tiled), w_gather_tiled) +
               term(nax::psum_scatter<i, s>(v), w_scatter) +
               term(nax::psum_scatter<i, a>(v, nax::tiled), w_scatter_tiled) +
               term(nax::all_to_all<i, s, c>(v), w_all_to_all) + term(nax::ppermute<i>(v, perm), w_permute);
    return sum * (nax::axis_index<i>() + 1.0);
  }
};

// Member m's gradients of psum(l_m), and of its all_gather terms (not psum'd).
struct member_gradients {
  const collective_loss* loss;
  template <class V>
  auto operator()(const V& v) const {
    const collective_loss& l = *loss;
    return nax::tuple(nax::grad([&](const auto& q) { return nax::psum<i>(l(q)); })(v),
                      nax::grad([&](const auto& q) { return l.gathers(q); })(v));
  }
};

// run(f, x): f mapped over i, applied to x.
template <class Run>
void check_collectives(Run run, nax_test::random_source& rng, index_t n, index_t k) {
  INFO(n << " members, k = " << k);
  collective_loss loss(rng, n, k);
  auto x = nax_test::random_array<double, s, i, a>(rng, {n, n, n * k});
  auto total = [&] { return nax::sum(nax::vmap<i>([&](const auto& v) { return loss(v); })(x)).item(); };
  auto total_gathers = [&] { return nax::sum(nax::vmap<i>([&](const auto& v) { return loss.gathers(v); })(x)).item(); };
  // ppermute: a random permutation of the members, then one where some members receive nothing.
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int d = 0; d < int(n); ++d) order[std::size_t(d)] = d;
  std::shuffle(order.begin(), order.end(), rng.engine());
  for (int full = 1; full >= 0; --full) {
    INFO(std::string(full ? "a permutation" : "a partial permutation"));
    loss.perm.clear();
    for (int d = 0; d < int(n); d += full ? 1 : 2) loss.perm.push_back({d, order[std::size_t(d)]});
    auto [g_replicated, g_per_member] = run(member_gradients{&loss}, x);
    nax::Array<double, s, i, a> g1 = g_replicated;
    CHECK(nax_ad_test::fd_error(total, x, g1) < tolerance);
    if (full) {
      nax::Array<double, s, i, a> g2 = g_per_member;
      CHECK(nax_ad_test::fd_error(total_gathers, x, g2) < tolerance);
    }
  }
}

}  // namespace

TEST_CASE("grad: merge, concatenate, stack against finite differences") {
  nax_test::random_source rng(401);
  for (int trial = 0; trial < 5; ++trial) {
    index_t n = trial == 0 ? 1 : 1 + rng.integer(0, 3), k = trial == 1 ? 1 : trial == 4 ? 0 : 1 + rng.integer(0, 3);
    index_t p = trial == 2 ? 1 : 1 + rng.integer(0, 3);
    INFO("extents " << n << ", " << k << ", " << p);
    auto x = nax_test::random_array<double, a, b>(rng, {n, k});
    auto y = nax_test::random_array<double, b, a>(rng, {k, p});
    auto z = nax_test::random_array<double, b, a>(rng, {k, n});
    auto wm = nax_test::random_array<double, m>(rng, {n * k});
    auto wc = nax_test::random_array<double, b, a>(rng, {k, n + p + n});
    auto ws = nax_test::random_array<double, s, a, b>(rng, {3, n, k});
    // Both layouts of the merged axes, the merged axis named as one of them, a transposed
    // operand, a product (its two factors). Empty merges send nothing.
    CHECK(nax_ad_test::check_fd([&](const auto& u) {
      return nax::sum(nax::merge<a, b, m>(u) * wm) + nax::sum(nax::merge<b, a, m>(u * u) * wm) +
             nax::sum(nax::merge<b, a, a>(nax::transpose<b, a>(u)) * nax::rename<m, a>(wm));
    }, x) < tolerance);
    // The variable more than once, constant operands in another axis order.
    CHECK(nax_ad_test::check_fd([&](const auto& u) {
      return nax::sum(nax::concatenate<a>(u, y, u * u) * wc) + nax::sum(nax::stack<s>(z, u, u * z) * ws);
    }, x) < tolerance);
  }
}

TEST_CASE("grad: collectives under vmap, pmap and xmap against finite differences") {
  nax_test::random_source rng(402);
  auto on_vmap = [](const auto& f, const auto& x) { return nax::vmap<i>(f)(x); };
  for (index_t n : {1, 3, 4}) check_collectives(on_vmap, rng, n, n == 3 ? 1 : 1 + rng.integer(0, 2));
  nax::Mesh<dev> mesh(nax::host::devices(4), {4});
  check_collectives([&](const auto& f, const auto& x) { return nax::pmap<i>(f, mesh)(x); }, rng, 4, 2);
  // Two members per device: each device's part of the gathered axis is two members wide.
  check_collectives([&](const auto& f, const auto& x) { return nax::xmap<nax::bind<i, dev>>(f, mesh)(x); }, rng, 8, 1);
}

TEST_CASE("grad: pmax and pmin have no rule (as in JAX)") {
  nax_test::random_source rng(403);
  auto x = nax_test::random_array<double, i, a>(rng, {3, 2});
  auto f = [](const auto& v) {
    return nax::grad([](const auto& q) { return nax::psum<i>(nax::sum(nax::pmax<i>(q) - nax::pmin<i>(q))); })(v);
  };
  CHECK_THROWS_WITH_AS(nax::eval(nax::vmap<i>(f)(x)), doctest::Contains("pmax or pmin"), nax::argument_error);
}
