// xmap over MPI ranks (nax::mpi::world()) computes what the same xmap computes over host
// devices in one process: the mesh's communicators change, the program and its values do not.
// Every test case is collective: all 4 ranks run it, and every rank gets the whole result.
#include <nax/mpi.hpp>
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <utility>
#include <vector>

namespace xmap_mpi {

NAX_AXIS(rows);
NAX_AXIS(cols);
NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(hidden);
NAX_AXIS(gathered);

using nax::index_t;

// Every collective over a batch split over `rows` and hidden units split over `cols`.
struct layer {
  std::vector<std::pair<int, int>> roll;
  template <class X, class W, class B>
  auto operator()(const X& x, const W& w, const B& b) const {
    auto h = nax::dot<in>(x, w) + b;
    auto e = nax::exp(h - nax::pmax<hidden>(h));
    auto p = e / nax::psum<hidden>(e);  // softmax over units held by several ranks
    return nax::tuple(p, nax::pmean<batch>(p), nax::all_gather<hidden, gathered>(p), nax::ppermute<batch>(h, roll),
                      nax::psum_scatter<batch, gathered>(nax::all_gather<batch, gathered>(h)),
                      nax::cast<float>(nax::axis_index<batch, hidden>()) + nax::psum<batch, hidden>(nax::sum(h)));
  }
};

template <class T, class... As>
nax::Array<T, As...> filled(std::array<index_t, sizeof...(As)> extents, float scale) {
  nax::Array<T, As...> a(extents);
  for (index_t i = 0; i < a.size(); ++i) a.data()[i] = T(std::sin(scale * float(i + 1)));
  return a;
}

template <class A, class B>
void check_close(const A& actual, const B& expected) {
  REQUIRE(actual.extents() == expected.extents());
  index_t wrong = 0;
  for (index_t i = 0; i < actual.size(); ++i)
    if (std::abs(actual.data()[i] - expected.data()[i]) > 1e-5f * (1.f + std::abs(expected.data()[i]))) ++wrong;
  CHECK(wrong == 0);
}

template <class... Bindings, class MpiMesh, class HostMesh>
void check_mesh(const MpiMesh& over_ranks, const HostMesh& in_process, index_t n_batch, index_t n_hidden) {
  auto x = filled<float, batch, in>({n_batch, 5}, 0.37f);
  auto w = filled<float, in, hidden>({5, n_hidden}, 0.11f);
  auto b = filled<float, hidden>({n_hidden}, 0.53f);
  std::vector<std::pair<int, int>> roll;
  for (int i = 0; i < int(n_batch); ++i) roll.push_back({i, (i + 1) % int(n_batch)});
  auto on_ranks = nax::xmap<Bindings...>(layer{roll}, over_ranks)(x, w, b);
  auto on_host = nax::xmap<Bindings...>(layer{roll}, in_process)(x, w, b);
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (check_close(std::get<I>(on_ranks), std::get<I>(on_host)), ...);
  }(std::make_index_sequence<6>{});
}

TEST_CASE("xmap over MPI ranks equals xmap over host devices: 2 x 2 mesh, batch and hidden both split") {
  REQUIRE(nax::mpi::world_size() == 4);
  nax::Mesh<rows, cols> ranks(nax::mpi::world(), {2, 2});
  nax::Mesh<rows, cols> host(nax::host::devices(4), {2, 2});
  check_mesh<nax::bind<batch, rows>, nax::bind<hidden, cols>>(ranks, host, 4, 6);
  check_mesh<nax::bind<batch, cols>, nax::bind<hidden, rows>>(ranks, host, 2, 2);  // one member per device
}

TEST_CASE("xmap over MPI ranks equals xmap over host devices: 4 ranks on one axis, hidden vectorised") {
  nax::Mesh<rows> ranks(nax::mpi::world(), {4});
  nax::Mesh<rows> host(nax::host::devices(4), {4});
  check_mesh<nax::bind<batch, rows>, nax::bind<hidden>>(ranks, host, 8, 3);
}

TEST_CASE("pmap over MPI ranks: a mesh-size mismatch raises the same error on every rank") {
  nax::Mesh<rows> ranks(nax::mpi::world(), {4});
  auto x = filled<float, batch, in>({6, 2}, 0.5f);
  auto twice = nax::xmap<nax::bind<batch, rows>>([](const auto& v) { return v * 2.f; }, ranks);
  CHECK_THROWS_AS((void)twice(x), nax::shape_error);
}

}  // namespace xmap_mpi
