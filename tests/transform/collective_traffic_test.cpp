// ppermute, all_to_all and psum_scatter over a mesh axis move only what their results need:
// each is one communicator call of its own kind (permute rounds, all_to_all, reduce_scatter),
// and their gradients use the same calls. Checked two ways:
// - bit for bit against the compositions nax used before (every member's whole value
//   all-gathered, or a full all-reduce, then this device's part kept), on 1-, 2-, 3- and
//   4-device mesh axes with 1 to 3 members per device, random extents (0 and 1 included),
//   random and partial permutations, and a 2 x 2 mesh whose other axis is bound too;
// - by nax::traffic_meter: the calls each device's communicator received and the bytes they
//   deliver, against the algorithmic minimum;
// and grad through psum_scatter of a replicated value against its closed form.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../support/gather_everything.hpp"
#include "../support/reference.hpp"

namespace {

NAX_AXIS(batch);
NAX_AXIS(hidden);
NAX_AXIS(s);
NAX_AXIS(t);
NAX_AXIS(f);
NAX_AXIS(c);
NAX_AXIS(data);
NAX_AXIS(model);

using nax::index_t;

// Same axes, extents and bits (so -0.0 and NaN payloads count).
template <class A, class B>
void check_bits(const A& actual, const B& expected, const char* what) {
  INFO(what);
  REQUIRE(nax_test::sizes_of(actual) == nax_test::sizes_of(expected));
  int mismatches = 0;
  nax_test::for_each_index(actual, [&](const nax_test::index_map& idx) {
    auto a = nax_test::at(actual, idx);
    auto e = nax_test::at(expected, idx);
    if (std::memcmp(&a, &e, sizeof a) != 0 && ++mismatches <= 3)
      FAIL_CHECK("at " << nax_test::describe(idx) << ": " << nax_test::show(a) << ", before " << nax_test::show(e));
  });
  CHECK(mismatches == 0);
}

std::vector<std::pair<int, int>> random_pairs(nax_test::random_source& rng, int members, bool partial) {
  std::vector<int> order(static_cast<std::size_t>(members));
  for (int m = 0; m < members; ++m) order[std::size_t(m)] = m;
  std::shuffle(order.begin(), order.end(), rng.engine());
  std::vector<std::pair<int, int>> pairs;
  for (int m = 0; m < members; ++m)
    if (!partial || rng.integer(0, 1) == 1) pairs.push_back({m, order[std::size_t(m)]});
  return pairs;
}

// Every collective and its earlier composition on one mesh axis (batch over data).
struct collectives_and_compositions {
  const std::vector<std::pair<int, int>>* pairs;
  template <class V, class W>
  auto operator()(const V& v, const W& w) const {
    namespace old = gather_everything;
    return nax::tuple(nax::ppermute<batch>(v, *pairs), old::ppermute<batch>(v, *pairs),
                      nax::all_to_all<batch, s, c>(v), old::all_to_all<batch, s, c>(v),
                      nax::psum_scatter<batch, s>(v), old::psum_scatter<batch, s>(v),
                      nax::psum_scatter<batch, t>(w, nax::tiled), old::psum_scatter_tiled<batch, t>(w),
                      nax::psum_scatter<batch, s>(nax::psum<batch>(v)),  // replicated: no second communication
                      old::psum_scatter<batch, s>(nax::psum<batch>(v)));
  }
};

template <class Outputs>
void check_pairs(const Outputs& out) {
  const auto& [p, p0, a, a0, r, r0, rt, rt0, rr, rr0] = out;
  check_bits(p, p0, "ppermute");
  check_bits(a, a0, "all_to_all");
  check_bits(r, r0, "psum_scatter");
  check_bits(rt, rt0, "psum_scatter, tiled");
  check_bits(rr, rr0, "psum_scatter of a replicated value");
}

}  // namespace

TEST_CASE("collectives over a mesh axis equal the earlier gather-everything compositions bit for bit") {
  nax_test::random_source rng(2112);
  for (int devices = 1; devices <= 4; ++devices) {
    nax::Mesh<data> mesh(nax::host::devices(devices), {devices});
    for (index_t here = 1; here <= 3; ++here) {
      const index_t members = devices * here, nf = rng.extent(3), k = rng.nonzero_extent(2);
      CAPTURE(devices);
      CAPTURE(here);
      CAPTURE(nf);
      CAPTURE(k);
      auto x = nax_test::random_array<float, f, batch, s>(rng, {nf, members, members}, -1.f, 1.f);
      auto y = nax_test::random_array<float, batch, t, f>(rng, {members, members * k, nf}, -1.f, 1.f);
      if (x.size() > 0) x.data()[0] = -0.0f;
      for (bool partial : {false, true}) {
        auto pairs = random_pairs(rng, int(members), partial);
        check_pairs(nax::xmap<nax::bind<batch, data>>(collectives_and_compositions{&pairs}, mesh)(x, y));
      }
      std::vector<std::pair<int, int>> shift;  // a ring: one member crosses to the next device
      for (int m = 0; m < int(members); ++m) shift.push_back({m, (m + 1) % int(members)});
      check_pairs(nax::xmap<nax::bind<batch, data>>(collectives_and_compositions{&shift}, mesh)(x, y));
    }
  }
}

TEST_CASE("collectives over one axis of a 2 x 2 mesh whose other axis is bound too") {
  nax_test::random_source rng(2113);
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  for (index_t here : {1, 2}) {
    const index_t members = 2 * here, nh = 2 * rng.nonzero_extent(2);
    CAPTURE(here);
    auto x = nax_test::random_array<float, batch, s, hidden>(rng, {members, members, nh}, -1.f, 1.f);
    auto y = nax_test::random_array<float, hidden, t, batch>(rng, {nh, 2 * members, members}, -1.f, 1.f);
    auto pairs = random_pairs(rng, int(members), true);
    check_pairs(
        nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>>(collectives_and_compositions{&pairs}, mesh)(x, y));
  }
}

TEST_CASE("traffic_meter: each collective makes one call of its own kind and moves the minimum") {
  constexpr int devices = 4;
  nax::traffic_meter meter(nax::host::devices(devices));
  nax::Mesh<data> mesh(meter.devices(), {devices});
  nax_test::random_source rng(2114);
  for (index_t here : {1, 2}) {
    const index_t members = devices * here, nf = 3;
    CAPTURE(here);
    const std::uint64_t member_bytes = std::uint64_t(nf) * sizeof(float);  // one member's value of (f)
    auto x = nax_test::random_array<float, batch, f>(rng, {members, nf}, -1.f, 1.f);
    auto xs = nax_test::random_array<float, batch, s, f>(rng, {members, members, nf}, -1.f, 1.f);
    std::vector<std::pair<int, int>> shift;
    for (int m = 0; m < int(members); ++m) shift.push_back({m, (m + 1) % int(members)});
    auto map = [&](auto fn, const auto& arg) { return nax::xmap<nax::bind<batch, data>>(fn, mesh)(arg); };

    // ppermute of a ring: each device receives one member from its neighbour; the other
    // `here - 1` shifts stay on the device (rounds with no pair crossing devices move nothing).
    meter.reset();
    (void)map([&](const auto& v) { return nax::ppermute<batch>(v, shift); }, x);
    for (int d = 0; d < devices; ++d) {
      const nax::traffic_record r = meter.of(d);
      CHECK(r.permute.calls == std::uint64_t(here == 1 ? 1 : 2));
      CHECK(r.permute.bytes == member_bytes);
      CHECK(r.calls() == r.permute.calls);
    }
    // all_to_all: each device sends each other device here * here blocks of (f).
    meter.reset();
    (void)map([](const auto& v) { return nax::all_to_all<batch, s, c>(v); }, xs);
    for (int d = 0; d < devices; ++d) {
      const nax::traffic_record r = meter.of(d);
      CHECK(r.all_to_all.calls == 1);
      CHECK(r.all_to_all.bytes == std::uint64_t(devices - 1) * here * here * member_bytes);
      CHECK(r.calls() == 1);
    }
    // psum_scatter: a reduce-scatter; each device keeps `here` rows of s.
    meter.reset();
    (void)map([](const auto& v) { return nax::psum_scatter<batch, s>(v); }, xs);
    for (int d = 0; d < devices; ++d) {
      const nax::traffic_record r = meter.of(d);
      CHECK(r.reduce_scatter.calls == 1);
      CHECK(r.reduce_scatter.bytes == std::uint64_t(devices - 1) * here * member_bytes);
      CHECK(r.calls() == 1);
    }

    // Gradients take the same paths back: no all-gather, no all-reduce of a whole value.
    auto w = nax_test::random_array<float, batch, f>(rng, {members, nf}, -1.f, 1.f);
    meter.reset();
    auto grads = nax::xmap<nax::bind<batch, data>>(
        [&](const auto& v, const auto& wv) {
          auto loss = [&](auto permute) {
            return [&, permute](const auto& q) { return nax::psum<batch>(nax::sum(permute(q) * wv)); };
          };
          return nax::tuple(
              nax::grad(loss([&](const auto& q) { return nax::ppermute<batch>(q, shift); }))(v),
              nax::grad(loss([&](const auto& q) { return gather_everything::ppermute<batch>(q, shift); }))(v));
        },
        mesh)(x, w);
    const auto& g_permute = std::get<0>(grads);
    const auto& g_permute_before = std::get<1>(grads);  // (clang 16 cannot capture a structured binding under -fopenmp)
    nax_test::check_all(g_permute, [&](const nax_test::index_map& idx) { return nax_test::at(g_permute_before, idx); },
                        0.0, 0.0);
    const std::uint64_t scalar_psum = 2 * (devices - 1) * sizeof(float) / devices;
    for (int d = 0; d < devices; ++d) {
      const nax::traffic_record r = meter.of(d);
      // the new path: forward and backward rounds; the earlier one: all-gathers and all-reduces
      CHECK(r.permute.calls == std::uint64_t(here == 1 ? 2 : 4));
      CHECK(r.permute.bytes == 2 * member_bytes);
      CHECK(r.all_gather.calls == 1);  // the earlier composition's forward gather, alone
    }

    auto ws = nax_test::random_array<float, c, f>(rng, {members, nf}, -1.f, 1.f);
    auto wr = nax_test::random_array<float, f>(rng, {nf}, -1.f, 1.f);
    meter.reset();
    auto [g_all_to_all, g_scatter] = nax::xmap<nax::bind<batch, data>>(
        [&](const auto& v, const auto& w_c, const auto& w_f) {
          return nax::tuple(
              nax::grad([&](const auto& q) { return nax::psum<batch>(nax::sum(nax::all_to_all<batch, s, c>(q) * w_c)); })(v),
              nax::grad([&](const auto& q) { return nax::psum<batch>(nax::sum(nax::psum_scatter<batch, s>(q) * w_f)); })(v));
        },
        mesh)(xs, ws, wr);
    (void)g_all_to_all;
    (void)g_scatter;
    for (int d = 0; d < devices; ++d) {
      const nax::traffic_record r = meter.of(d);
      CHECK(r.all_to_all.calls == 2);
      CHECK(r.reduce_scatter.calls == 1);
      CHECK(r.all_gather.calls == 1);  // psum_scatter's transpose
      CHECK(r.all_gather.bytes == std::uint64_t(devices - 1) * here * member_bytes);
      CHECK(r.all_reduce.bytes == 2 * scalar_psum);  // the two losses' psums
      CHECK(r.permute.calls == 0);
    }
  }
  CHECK_THROWS_AS((void)meter.of(devices), nax::argument_error);
}

TEST_CASE("grad(grad(f)) through ppermute: its rule is a Permute node, differentiated again") {
  // Member m's f(x_m) = psum(ppermute(x^3)): d2f/dx_m^2 = 6 x_m whatever the permutation (every
  // member's cube reaches the psum once). Before ppermute had a node of its own, its first
  // derivative was scattered into memory and grad(grad) raised.
  nax_test::random_source rng(2115);
  for (int members : {1, 3, 4}) {
    auto x = nax_test::random_array<double, batch>(rng, {members}, -2.0, 2.0);
    auto pairs = random_pairs(rng, members, false);
    auto second = [&](const auto& v) {
      auto f = [&](const auto& q) { return nax::psum<batch>(nax::ppermute<batch>(q * q * q, pairs)); };
      return nax::grad(nax::grad(f))(v);
    };
    nax::Array<double, batch> vm = nax::vmap<batch>(second)(x);
    nax::Mesh<data> mesh(nax::host::devices(members), {members});
    nax::Array<double, batch> xm = nax::xmap<nax::bind<batch, data>>(second, mesh)(x);
    auto expected = [&](const nax_test::index_map& idx) { return 6 * nax_test::at(x, idx); };
    nax_test::check_all(vm, expected, 1e-12, 1e-12);
    nax_test::check_all(xm, expected, 1e-12, 1e-12);
  }
}

TEST_CASE("grad through psum_scatter of a replicated value: the cotangent summed over the devices") {
  // Member m keeps N p[m, :] of psum(p) (p replicated, N members), so the summed loss
  // psum(sum(psum_scatter(p) * x_m)) has gradient N x[m, :] in p. Each device's cotangent
  // covers only its own members' blocks; the scatter rule sums it over the devices through
  // the memory space (tests/cuda/test_maps.cu runs the same with device arrays).
  nax_test::random_source rng(2114);
  for (int devices : {1, 2, 4}) {
    for (index_t here : {1, 2}) {
      const index_t members = devices * here, nf = rng.extent(4);
      CAPTURE(devices);
      CAPTURE(here);
      CAPTURE(nf);
      auto x = nax_test::random_array<float, batch, f>(rng, {members, nf}, -1.f, 1.f);
      auto p = nax_test::random_array<float, s, f>(rng, {members, nf}, -1.f, 1.f);
      nax::Mesh<data> mesh(nax::host::devices(devices), {devices});
      auto grad_of_p = [](const auto& v, const auto& p0) {
        return nax::grad([&](const auto& q) { return nax::psum<batch>(nax::sum(nax::psum_scatter<batch, s>(q) * v)); })(p0);
      };
      nax::Array<float, s, f> g = nax::xmap<nax::bind<batch, data>>(grad_of_p, mesh)(x, p);
      for (index_t m = 0; m < members; ++m)
        for (index_t c = 0; c < nf; ++c) CHECK(g(m, c) == doctest::Approx(float(members) * x(m, c)));
    }
  }
}
