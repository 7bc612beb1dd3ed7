// nax::view_of: views of memory laid out by another library (an mdspan-like strided view with a
// static rank, a Kokkos-like one with a run-time rank, row- and column-major), read and written
// through nax expressions, against plain loops over the foreign indexing; random extents with
// 0 and 1.
#include <doctest/doctest.h>

#include <array>
#include <vector>

#include <nax/nax.hpp>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
using nax::index_t;

// std::mdspan's interface with layout_stride (GCC 12 has no <mdspan>): data_handle(), a static
// rank(), extent(k) and stride(k), unsigned as std::size_t.
template <class T>
struct strided_2d {
  T* ptr;
  std::array<std::size_t, 2> ext, str;
  static constexpr std::size_t rank() { return 2; }
  T* data_handle() const { return ptr; }
  std::size_t extent(std::size_t k) const { return ext[k]; }
  std::size_t stride(std::size_t k) const { return str[k]; }
  T& operator()(std::size_t a, std::size_t b) const { return ptr[a * str[0] + b * str[1]]; }
};

// Kokkos::View's spelling: data(), a run-time rank(), extent and stride taking int.
struct kokkos_like {
  double* ptr;
  int r;
  std::array<long, 3> ext, str;
  double* data() const { return ptr; }
  int rank() const { return r; }
  long extent(int k) const { return ext[std::size_t(k)]; }
  long stride(int k) const { return str[std::size_t(k)]; }
};
}  // namespace

TEST_CASE("view_of reads and writes row- and column-major foreign memory by name") {
  nax_test::random_source rng(6101);
  for (int rep = 0; rep < 12; ++rep) {
    const std::size_t n0 = std::size_t(rng.extent(5)), n1 = std::size_t(rng.extent(5));
    const bool column_major = rep % 2 == 1;
    std::vector<float> memory(n0 * n1 + 1);
    for (auto& x : memory) x = rng.value<float>();
    strided_2d<float> m{memory.data(), {n0, n1}, column_major ? std::array<std::size_t, 2>{1, n0 ? n0 : 1} : std::array<std::size_t, 2>{n1 ? n1 : 1, 1}};
    auto v = nax::view_of<i, j>(m);
    static_assert(std::is_same_v<decltype(v), nax::ArrayView<float, i, j>>);
    REQUIRE(v.extents() == std::array<index_t, 2>{index_t(n0), index_t(n1)});
    // Reads: a reduction over j against a loop over the foreign indexing.
    nax::Array<float, i> row_sums = nax::sum<j>(v);
    for (std::size_t a = 0; a < n0; ++a) {
      float want = 0;
      for (std::size_t b = 0; b < n1; ++b) want += m(a, b);
      CHECK(row_sums(index_t(a)) == doctest::Approx(want).epsilon(1e-5));
    }
    // Writes go to the foreign memory.
    std::vector<float> before(memory);
    v.assign(nax::transpose<i, j>(v) * 2.f + 1.f);
    for (std::size_t a = 0; a < n0; ++a)
      for (std::size_t b = 0; b < n1; ++b) CHECK(m(a, b) == 2.f * before[a * m.str[0] + b * m.str[1]] + 1.f);
    CHECK(memory.back() == before.back());  // (nothing past the view)
  }
}

TEST_CASE("view_of with a run-time rank: Kokkos' spelling; a wrong count of names is a shape_error") {
  std::vector<double> memory(24);
  for (std::size_t k = 0; k < memory.size(); ++k) memory[k] = double(k);
  kokkos_like k2{memory.data(), 2, {4, 3, 0}, {1, 8, 0}};  // column-major, columns padded to 8
  auto v = nax::view_of<i, j>(k2);
  static_assert(std::is_same_v<decltype(v), nax::ArrayView<double, i, j>>);
  double want = 0;
  for (index_t a = 0; a < 4; ++a)
    for (index_t b = 0; b < 3; ++b) {
      CHECK(v(a, b) == double(a + 8 * b));
      want += double(a + 8 * b);
    }
  CHECK(nax::sum(v).item() == want);
  kokkos_like k3{memory.data(), 3, {2, 2, 2}, {4, 2, 1}};
  try {
    (void)nax::view_of<i, j>(k3);
    FAIL("no shape_error");
  } catch (const nax::shape_error& e) {
    CHECK(std::string(e.what()).find("has 3 indices, but 2 axis names") != std::string::npos);
  }
  const std::vector<double>& constant = memory;
  struct const_view {
    const double* ptr;
    int rank() const { return 1; }
    const double* data() const { return ptr; }
    int extent(int) const { return 5; }
    int stride(int) const { return 2; }
  } c{constant.data()};
  auto cv = nax::view_of<i>(c);
  static_assert(std::is_same_v<decltype(cv), nax::ArrayView<const double, i>>);
  CHECK(nax::sum(cv).item() == 0.0 + 2 + 4 + 6 + 8);
}
