// xmap on host devices: axis_index over a 4 x 2 mesh, xmap against vmap over the same axes
// for random data and several layer functions (collectives over mesh-bound and vectorised
// axes) on 1x4, 4x1, 2x2 and 4x2 meshes, with and without a vectorised third axis; the
// output layout (varying axes first, in binding order; replicated outputs); pytrees; and the
// run-time errors (extents that do not divide the mesh axis, arguments that disagree).
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../support/reference.hpp"

namespace {

NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(g);
NAX_AXIS(data);
NAX_AXIS(model);
NAX_AXIS(batch);
NAX_AXIS(seq);
NAX_AXIS(in);
NAX_AXIS(hidden);

using nax_test::at;
using nax_test::index_map;
using nax_test::index_t;

using nax_test::check_same;

struct LayerParams {
  BOOST_HANA_DEFINE_STRUCT(LayerParams, (nax::Array<float, in, hidden>, w), (nax::Array<float, hidden>, b));
};

}  // namespace

// ---- xmap ----------------------------------------------------------------------------------

TEST_CASE("xmap: axis_index<i, j> on a 4 x 2 mesh") {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  nax::Array<std::int32_t, i, j> x({4, 2});
  auto step = nax::xmap<nax::bind<i, data>, nax::bind<j, model>>(
      [](const auto& v) { return nax::axis_index<i, j>() + v; }, mesh);
  auto y = step(x);
  static_assert(std::is_same_v<decltype(y), nax::Array<std::int32_t, i, j>>);
  for (index_t a = 0; a < 4; ++a)
    for (index_t b = 0; b < 2; ++b) CHECK(y(a, b) == a * 2 + b);

  // Several members per device (i = 8 over 4 devices, j = 6 over 2), and the reverse order.
  nax::Array<std::int32_t, i, j> big({8, 6});
  auto [ij, ji] = nax::xmap<nax::bind<i, data>, nax::bind<j, model>>(
      [](const auto& v) { return nax::tuple(nax::axis_index<i, j>() + v, nax::axis_index<j, i>() + v); }, mesh)(big);
  for (index_t a = 0; a < 8; ++a)
    for (index_t b = 0; b < 6; ++b) {
      CHECK(ij(a, b) == a * 6 + b);
      CHECK(ji(a, b) == b * 8 + a);
    }
}

namespace {

// Layer functions with collectives over the mapped axes (batch, hidden; seq when mapped).
// Each returns several outputs: some vary over every mapped axis, some over a few, some
// over none (replicated).
struct dense_layer {
  template <class X, class W, class B>
  auto operator()(const X& x, const W& w, const B& b) const {
    auto h = nax::tanh(nax::dot<in>(x, w) + b);
    return nax::tuple(h, nax::psum<batch, hidden>(nax::sum(h)), nax::pmax<hidden>(h));
  }
};
struct normalised_layer {
  template <class X, class W, class B>
  auto operator()(const X& x, const W& w, const B& b) const {
    auto h = nax::dot<in>(x, w) + b;
    auto centred = h - nax::pmean<batch>(h);
    auto scale = nax::psum<hidden>(centred * centred);
    return nax::tuple(centred / nax::sqrt(scale + 1.f), nax::pmin<batch>(h), nax::pmean<batch>(w));
  }
};
struct softmax_layer {  // softmax over the hidden units, each held by one member
  template <class X, class W, class B>
  auto operator()(const X& x, const W& w, const B& b) const {
    auto h = nax::dot<in>(x, w) + b;
    auto e = nax::exp(h - nax::pmax<hidden>(h));
    auto p = e / nax::psum<hidden>(e);
    return nax::tuple(p, nax::all_gather<hidden, g>(p), nax::cast<float>(nax::axis_index<batch, hidden>()) + 0.f * p);
  }
};
struct shifting_layer {  // ppermute (a roll) and all_gather over the batch
  std::vector<std::pair<int, int>> roll;
  template <class X, class W, class B>
  auto operator()(const X& x, const W& w, const B& b) const {
    auto h = nax::dot<in>(x, w) + b;
    auto gathered = nax::all_gather<batch, g>(h);  // (g, ...): the whole batch on every member
    return nax::tuple(nax::sum(gathered) - h, nax::psum<batch>(h) - nax::sum<g>(gathered), nax::ppermute<batch>(h, roll),
                      nax::ppermute<batch>(h, {{0, 0}}));
  }
};

// Layers whose collectives name seq too (bound to no mesh axis: vectorised on each device).
struct seq_layer {
  template <class X, class W, class B>
  auto operator()(const X& x, const W& w, const B& b) const {
    auto h = nax::tanh(nax::dot<in>(x, w) + b);
    return nax::tuple(h - nax::pmean<batch, seq>(h), nax::psum<seq>(h), nax::pmax<seq, hidden>(h),
                      nax::all_gather<seq, g>(h), nax::psum<batch, seq, hidden>(h));
  }
};

// Random x, w, b with extents that divide the mesh; xmap against nested vmaps.
template <class Layer, bool WithSeq, class Mesh>
void check_layer_against_vmap(nax_test::random_source& rng, const Mesh& mesh) {
  const index_t nb = mesh.template size<data>() * rng.nonzero_extent(3);
  const index_t nh = mesh.template size<model>() * rng.nonzero_extent(2);
  const index_t ni = rng.nonzero_extent(4);
  CAPTURE(mesh.shape()[0]);
  CAPTURE(mesh.shape()[1]);
  CAPTURE(nb);
  CAPTURE(nh);
  CAPTURE(ni);
  auto w = nax_test::random_array<float, in, hidden>(rng, {ni, nh}, -1.f, 1.f);
  auto b = nax_test::random_array<float, hidden>(rng, {nh}, -1.f, 1.f);
  Layer layer{};
  if constexpr (requires { layer.roll; })
    for (int m = 0; m < int(nb); ++m) layer.roll.push_back({m, (m + 1) % int(nb)});
  auto compare = [](const auto& xmapped, const auto& vmapped) {
    std::apply([&](const auto&... outputs) {
      std::apply([&](const auto&... references) { (check_same(outputs, nax::eval(references), 2e-5), ...); }, vmapped);
    }, xmapped);
  };
  if constexpr (!WithSeq) {
    auto x = nax_test::random_array<float, batch, in>(rng, {nb, ni}, -1.f, 1.f);
    auto xm = nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>>(layer, mesh)(x, w, b);
    auto vm = nax::vmap<batch>(nax::vmap<hidden>(layer))(x, w, b);
    compare(xm, vm);
  } else {
    const index_t ns = rng.nonzero_extent(3);
    CAPTURE(ns);
    auto x = nax_test::random_array<float, batch, seq, in>(rng, {nb, ns, ni}, -1.f, 1.f);
    auto xm = nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>, nax::bind<seq>>(layer, mesh)(x, w, b);
    auto vm = nax::vmap<batch>(nax::vmap<hidden>(nax::vmap<seq>(layer)))(x, w, b);
    compare(xm, vm);
  }
}

}  // namespace

TEST_CASE("xmap: results equal vmap over the same axes (1x4, 4x1, 2x2, 4x2 meshes)") {
  nax_test::random_source rng(12);
  const std::vector<std::pair<int, int>> shapes = {{1, 4}, {4, 1}, {2, 2}, {4, 2}};
  for (auto [d, m] : shapes) {
    nax::Mesh<data, model> mesh(nax::host::devices(d * m), {d, m});
    for (int trial = 0; trial < 2; ++trial) {
      check_layer_against_vmap<dense_layer, false>(rng, mesh);
      check_layer_against_vmap<normalised_layer, false>(rng, mesh);
      check_layer_against_vmap<softmax_layer, false>(rng, mesh);
      check_layer_against_vmap<shifting_layer, false>(rng, mesh);
      check_layer_against_vmap<seq_layer, true>(rng, mesh);
      check_layer_against_vmap<dense_layer, true>(rng, mesh);
    }
  }
}

TEST_CASE("xmap: output layout: varying axes first in binding order, replicated outputs lose them") {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  nax_test::random_source rng(13);
  auto x = nax_test::random_array<float, batch, in>(rng, {8, 3});
  auto w = nax_test::random_array<float, in, hidden>(rng, {3, 4});
  nax::Array<float, hidden> b({4});
  auto [h, total, per_hidden, per_batch] = nax::xmap<nax::bind<hidden, model>, nax::bind<batch, data>>(
      [](const auto& xv, const auto& wv, const auto& bv) {
        auto hv = nax::dot<in>(xv, wv) + bv;
        return nax::tuple(hv, nax::psum<batch, hidden>(hv), nax::psum<batch>(hv), nax::psum<hidden>(hv));
      },
      mesh)(x, w, b);
  static_assert(std::is_same_v<decltype(h), nax::Array<float, hidden, batch>>);  // binding order
  static_assert(std::is_same_v<decltype(total), nax::Array<float>>);
  static_assert(std::is_same_v<decltype(per_hidden), nax::Array<float, hidden>>);
  static_assert(std::is_same_v<decltype(per_batch), nax::Array<float, batch>>);
  nax::Array<float, batch, hidden> ref = nax::dot<in>(x, w);
  nax_test::check_all(h, [&](const index_map& idx) { return at(ref, idx); });
  CHECK(total.item() == doctest::Approx(nax::sum(ref).item()).epsilon(1e-5));
  nax::Array<float, hidden> rh = nax::sum<batch>(ref);
  nax::Array<float, batch> rb = nax::sum<hidden>(ref);
  nax_test::check_all(per_hidden, [&](const index_map& idx) { return at(rh, idx); }, 1e-5, 1e-5);
  nax_test::check_all(per_batch, [&](const index_map& idx) { return at(rb, idx); }, 1e-5, 1e-5);
}

TEST_CASE("xmap: pytree arguments (a Hana struct of parameters) and a vectorised-only binding") {
  nax::Mesh<data> mesh(nax::host::devices(2), {2});
  nax_test::random_source rng(14);
  auto x = nax_test::random_array<float, batch, seq, in>(rng, {4, 3, 2});
  LayerParams layer{nax_test::random_array<float, in, hidden>(rng, {2, 5}), nax_test::random_array<float, hidden>(rng, {5})};
  auto f = [](const auto& xv, const auto& params) { return nax::tanh(nax::dot<in>(xv, params.w) + params.b); };
  auto y = nax::xmap<nax::bind<batch, data>, nax::bind<seq>>(f, mesh)(x, layer);
  static_assert(std::is_same_v<decltype(y), nax::Array<float, batch, seq, hidden>>);
  nax::Array<float, batch, seq, hidden> ref = nax::tanh(nax::dot<in>(x, layer.w) + layer.b);
  nax_test::check_all(y, [&](const index_map& idx) { return at(ref, idx); }, 1e-5, 1e-6);

  // Only vectorised bindings: every device computes the same thing.
  auto z = nax::xmap<nax::bind<seq>>([](const auto& v) { return v - nax::pmean<seq>(v); }, mesh)(x);
  static_assert(std::is_same_v<decltype(z), nax::Array<float, seq, batch, in>>);
  nax_test::check_all(z, [&](const index_map& idx) {
    double mean = 0;
    for (index_t q = 0; q < 3; ++q) mean += x(idx.at("batch"), q, idx.at("in"));
    return double(at(x, idx)) - mean / 3;
  }, 1e-5, 1e-5);
}

TEST_CASE("xmap: extents that do not divide the mesh axis, and arguments that disagree") {
  nax::Mesh<data, model> mesh(nax::host::devices(8), {4, 2});
  auto f = [](const auto& a, const auto& bb) { return a + bb; };
  nax::Array<float, batch, hidden> x({6, 2});
  nax::Array<float, hidden> b({2});
  nax_test::check_shape_error([&] { (void)nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>>(f, mesh)(x, b); },
                              {"'batch'", "extent 6", "'data'", "size 4"});
  nax::Array<float, batch, hidden> x2({4, 3});
  nax::Array<float, hidden> b2({3});
  nax_test::check_shape_error([&] { (void)nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>>(f, mesh)(x2, b2); },
                              {"'hidden'", "extent 3", "'model'", "size 2"});
  nax::Array<float, hidden> b4({4});
  nax_test::check_shape_error([&] { (void)nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>>(f, mesh)(x2, b4); },
                              {"'hidden'", "argument 1 has 3", "argument 2 has 4"});
  // The mesh is still usable.
  nax::Array<float, batch, hidden> ok({4, 2});
  auto r = nax::xmap<nax::bind<batch, data>, nax::bind<hidden, model>>(f, mesh)(ok, b);
  CHECK(r.extent<batch>() == 4);
}

TEST_CASE("xmap: two logical axes on one mesh axis (heads and MLP units over model), and what it refuses") {
  // i and j both split over model (2 devices); batch over data. Each array has one of them.
  nax::Mesh<data, model> mesh(nax::host::devices(4), {2, 2});
  nax_test::random_source rng(23);
  for (index_t ni : {index_t{2}, index_t{6}}) {
    INFO("i " << ni);
    auto x = nax_test::random_array<double, batch, i>(rng, {4, ni});
    auto y = nax_test::random_array<double, j, batch>(rng, {4, 4});
    auto step = nax::xmap<nax::bind<batch, data>, nax::bind<i, model>, nax::bind<j, model>>(
        [](const auto& a, const auto& b) { return nax::tuple(nax::psum<i>(a) + nax::psum<j>(b), a * 2.0, b - 1.0); }, mesh);
    auto [total, twice, less] = step(x, y);
    static_assert(std::is_same_v<decltype(total), nax::Array<double, batch>>);
    nax_test::check_all(total, [&](const index_map& idx) {
      double s = 0;
      for (index_t k = 0; k < ni; ++k) s += x(idx.at("batch"), k);
      for (index_t k = 0; k < 4; ++k) s += y(k, idx.at("batch"));
      return s;
    }, 1e-12, 1e-12);
    // Results that vary over one of the two axes: every shard written once.
    nax_test::check_all(twice, [&](const index_map& idx) { return 2.0 * at(x, idx); }, 0, 0);
    nax_test::check_all(less, [&](const index_map& idx) { return at(y, idx) - 1.0; }, 0, 0);
  }
  // A value that varies over both holds only the diagonal blocks: its psum would mix members.
  auto x = nax_test::random_array<double, i>(rng, {2});
  auto y = nax_test::random_array<double, j>(rng, {2});
  auto both = nax::xmap<nax::bind<i, model>, nax::bind<j, model>>(
      [](const auto& a, const auto& b) { return nax::psum<i>(a * b); }, mesh);
  std::string message;
  try {
    (void)both(x, y);
  } catch (const nax::argument_error& e) {
    message = e.what();
  }
  CHECK(message.find("collective over 'i'") != std::string::npos);
  CHECK(message.find("also varies over 'j'") != std::string::npos);
}
