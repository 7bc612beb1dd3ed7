// Aliasing on assignment (backend/host/assign.hpp): x = x + 1 in place; every other overlap
// of an input with the destination (transposed reads through renames, shifted slices,
// reversed views, broadcast rows, reductions of the destination) must give what a
// temporary would. Expected values come from a copy of the old values and plain loops.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <vector>

#include "../support/reference.hpp"

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
NAX_AXIS(k);

using nax::index_t;
using nax_test::at;
using nax_test::index_map;
}  // namespace

TEST_CASE("x = x + 1 and longer same-element expressions work in place") {
  nax_test::random_source rng(41);
  auto run = [&](auto type_tag) {
    using T = decltype(type_tag);
    for (int trial = 0; trial < 10; ++trial) {
      auto sizes = rng.sizes({"i", "j"}, 6);
      auto x = nax_test::random_array_of<T, nax::axes<i, j>>(rng, sizes);
      const nax::Array<T, i, j> old = x;
      const T* storage = x.data();
      x = x + T(1);
      CHECK(x.data() == storage);
      nax_test::check_all(x, [&](const index_map& idx) { return static_cast<T>(at(old, idx) + T(1)); }, 0, 0);
      x = x * x - x / T(2);
      nax_test::check_all(x, [&](const index_map& idx) {
        T y = static_cast<T>(at(old, idx) + T(1));
        return static_cast<T>(y * y - y / T(2));
      });
      // Through the view: the same element is read and written.
      x.view().assign(x * T(3));
      CHECK(x.data() == storage);
    }
  };
  run(float{});
  run(double{});
  run(std::int32_t{});
}

TEST_CASE("in-place transpose of a square array through renames") {
  nax_test::random_source rng(42);
  for (int trial = 0; trial < 10; ++trial) {
    index_t n = rng.extent(7);
    auto x = nax_test::random_array<float, i, j>(rng, {n, n});
    const std::vector<float> old(x.begin(), x.end());
    const float* storage = x.data();
    x = nax::rename<k, i>(nax::rename<i, j>(nax::rename<j, k>(x)));
    CHECK(x.data() == storage);
    for (index_t a = 0; a < n; ++a)
      for (index_t b = 0; b < n; ++b) CHECK(x.data()[a * n + b] == old[static_cast<std::size_t>(b * n + a)]);
    // transpose<j, i> is by name: assigning it back changes nothing.
    const std::vector<float> now(x.begin(), x.end());
    x = nax::transpose<j, i>(x);
    CHECK(std::vector<float>(x.begin(), x.end()) == now);
    // Through a view of x, with arithmetic mixed in.
    x.view().assign(nax::rename<k, i>(nax::rename<i, j>(nax::rename<j, k>(x))) * 2.f + x);
    for (index_t a = 0; a < n; ++a)
      for (index_t b = 0; b < n; ++b)
        CHECK(x.data()[a * n + b] == now[static_cast<std::size_t>(b * n + a)] * 2.f + now[static_cast<std::size_t>(a * n + b)]);
  }
  // Non-square: the extents change, so x gets new storage.
  nax::Array<double, i, j> r({2, 3}, {1, 2, 3, 4, 5, 6});
  r = nax::rename<k, i>(nax::rename<i, j>(nax::rename<j, k>(r)));
  CHECK(r.extents() == std::array<index_t, 2>{3, 2});
  CHECK(std::vector<double>(r.begin(), r.end()) == std::vector<double>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("a slice of x assigned into a view of x shifted by one equals going through a temporary") {
  nax_test::random_source rng(43);
  for (int trial = 0; trial < 12; ++trial) {
    auto sizes = rng.nonzero_sizes({"i", "j"}, 6);
    index_t ni = sizes["i"], nj = sizes["j"];
    auto x = nax_test::random_array_of<double, nax::axes<i, j>>(rng, sizes);
    const nax::Array<double, i, j> old = x;

    // Right shift along the inner axis: x[:, 1:] = x[:, :-1] (a forward loop would smear).
    nax::ArrayView<double, i, j> tail(x.data() + 1, {ni, nj - 1}, x.strides());
    tail.assign(nax::slice<j>(x, 0, nj - 1));
    nax_test::check_all(x, [&](const index_map& idx) {
      index_t b = idx.at("j");
      return b == 0 ? at(old, idx) : at(old, {{"i", idx.at("i")}, {"j", b - 1}});
    }, 0, 0);

    // Down shift along the outer axis with arithmetic: x[1:, :] = 2 * x[:-1, :] + x[1:, :].
    x = old;
    nax::ArrayView<double, i, j> lower(x.data() + nj, {ni - 1, nj}, x.strides());
    lower.assign(2.0 * nax::slice<i>(x, 0, ni - 1) + nax::slice<i>(x, 1, ni));
    nax_test::check_all(x, [&](const index_map& idx) {
      index_t a = idx.at("i");
      return a == 0 ? at(old, idx) : 2.0 * at(old, {{"i", a - 1}, {"j", idx.at("j")}}) + at(old, idx);
    });

    // Left shift: x[:, :-1] = x[:, 1:].
    x = old;
    nax::ArrayView<double, i, j> head(x.data(), {ni, nj - 1}, x.strides());
    head.assign(nax::slice<j>(x, 1, nj));
    nax_test::check_all(x, [&](const index_map& idx) {
      index_t b = idx.at("j");
      return b == nj - 1 ? at(old, idx) : at(old, {{"i", idx.at("i")}, {"j", b + 1}});
    }, 0, 0);
  }
}

TEST_CASE("rotations and reversals of x into x") {
  nax_test::random_source rng(44);
  for (int trial = 0; trial < 10; ++trial) {
    index_t n = rng.nonzero_extent(8);
    auto x = nax_test::random_array<float, i>(rng, {n});
    const std::vector<float> old(x.begin(), x.end());
    index_t s = rng.integer(0, n);
    x = nax::concatenate<i>(nax::slice<i>(x, s, n), nax::slice<i>(x, 0, s));
    for (index_t t = 0; t < n; ++t) CHECK(x.data()[t] == old[static_cast<std::size_t>((t + s) % n)]);

    x = nax::Array<float, i>({n}, old);
    nax::ArrayView<float, i> reversed(x.data() + n - 1, {n}, {-1});
    x = reversed;
    for (index_t t = 0; t < n; ++t) CHECK(x.data()[t] == old[static_cast<std::size_t>(n - 1 - t)]);
    // A reversed destination reading x forwards is the same reversal.
    x = nax::Array<float, i>({n}, old);
    nax::ArrayView<float, i> reversed_out(x.data() + n - 1, {n}, {-1});
    reversed_out.assign(x + 0.f);
    for (index_t t = 0; t < n; ++t) CHECK(x.data()[t] == old[static_cast<std::size_t>(n - 1 - t)]);
  }
}

TEST_CASE("broadcasting a row of x over x reads the row's old values") {
  nax_test::random_source rng(45);
  for (int trial = 0; trial < 10; ++trial) {
    auto sizes = rng.nonzero_sizes({"i", "j"});
    index_t ni = sizes["i"], nj = sizes["j"];
    auto x = nax_test::random_array_of<double, nax::axes<i, j>>(rng, sizes);
    const nax::Array<double, i, j> old = x;
    index_t r = rng.integer(0, ni - 1);
    nax::ArrayView<const double, j> row(x.data() + r * nj, {nj});
    x = x - row;  // broadcast by name over i
    nax_test::check_all(x, [&](const index_map& idx) {
      return at(old, idx) - at(old, {{"i", r}, {"j", idx.at("j")}});
    }, 0, 0);
    // The same with an explicit broadcast_to and a column.
    x = old;
    nax::ArrayView<const double, i> column(x.data() + rng.integer(0, nj - 1), {ni}, {nj});
    index_t c = column.data() - x.data();
    x = x * nax::broadcast_to<j, i>(column, {nj, ni});
    nax_test::check_all(x, [&](const index_map& idx) {
      return at(old, idx) * at(old, {{"i", idx.at("i")}, {"j", c}});
    });
  }
}

TEST_CASE("x = x / sum(x) and x = x - max over an axis read the old values") {
  nax_test::random_source rng(46);
  for (int trial = 0; trial < 10; ++trial) {
    auto sizes = rng.nonzero_sizes({"i", "j"});
    auto x = nax_test::random_array_of<double, nax::axes<i, j>>(rng, sizes, 0.5, 2.0);
    const nax::Array<double, i, j> old = x;
    double total = 0;
    for (double v : old) total += v;
    x = x / nax::sum(x);
    nax_test::check_all(x, [&](const index_map& idx) { return at(old, idx) / total; });

    x = old;
    x = x - nax::max<j>(x);
    nax_test::check_all(x, [&](const index_map& idx) {
      double row_max = -1e300;
      for (index_t b = 0; b < sizes["j"]; ++b) row_max = std::max(row_max, at(old, {{"i", idx.at("i")}, {"j", b}}));
      return at(old, idx) - row_max;
    });
  }
}

TEST_CASE("a destination view disjoint from the part of x it reads") {
  nax_test::random_source rng(47);
  for (int trial = 0; trial < 8; ++trial) {
    index_t half = rng.nonzero_extent(5), nj = rng.nonzero_extent(4);
    auto x = nax_test::random_array<float, i, j>(rng, {2 * half, nj});
    const nax::Array<float, i, j> old = x;
    nax::ArrayView<float, i, j> bottom(x.data() + half * nj, {half, nj}, x.strides());
    bottom.assign(nax::slice<i>(x, 0, half) * 2.f);
    nax_test::check_all(x, [&](const index_map& idx) {
      index_t a = idx.at("i");
      return a < half ? at(old, idx) : 2.f * at(old, {{"i", a - half}, {"j", idx.at("j")}});
    }, 0, 0);
  }
}

TEST_CASE("large arrays: in place and shifted assignments on the tiled and parallel loops") {
  nax_test::random_source rng(48);
  const index_t ni = 2, nj = 40000 + rng.integer(0, 100);
  auto x = nax_test::random_array<float, i, j>(rng, {ni, nj});
  const std::vector<float> old(x.begin(), x.end());
  x = x * 2.f + 1.f;
  std::size_t bad = 0;
  for (std::size_t t = 0; t < old.size(); ++t) bad += x.data()[t] != old[t] * 2.f + 1.f;
  CHECK(bad == 0);
  // x[:, 1:] = x[:, :-1] across tile boundaries.
  const std::vector<float> now(x.begin(), x.end());
  nax::ArrayView<float, i, j> tail(x.data() + 1, {ni, nj - 1}, x.strides());
  tail.assign(nax::slice<j>(x, 0, nj - 1));
  bad = 0;
  for (index_t a = 0; a < ni; ++a)
    for (index_t b = 0; b < nj; ++b)
      bad += x.data()[a * nj + b] != now[static_cast<std::size_t>(a * nj + (b == 0 ? 0 : b - 1))];
  CHECK(bad == 0);
}

TEST_CASE("x = std::move(x) * 2: the expression owns x's old storage") {
  nax::Array<float, i, j> x({2, 2}, {1.f, 2.f, 3.f, 4.f});
  x = std::move(x) * 2.f;
  CHECK(x.extents() == std::array<index_t, 2>{2, 2});
  CHECK(std::vector<float>(x.begin(), x.end()) == std::vector<float>{2.f, 4.f, 6.f, 8.f});
}

// The contiguous pass (lower/contiguous.hpp): arrays laid out as the destination are read as
// one run. It must give what plain loops give, and step aside (to the general pass) for a
// strided destination or leaf, and for contiguous views of x that overlap the destination at
// other elements.
TEST_CASE("contiguous operands: one run over the destination, as plain loops, on random extents") {
  nax_test::random_source rng(49);
  for (int trial = 0; trial < 40; ++trial) {
    auto sizes = rng.sizes({"i", "j", "k"}, 7);
    if (trial % 10 == 9) sizes["j"] = 40000 + rng.integer(0, 99);  // the parallel run
    if (trial % 10 == 9) sizes["i"] = rng.integer(1, 2), sizes["k"] = 1;
    auto a = nax_test::random_array_of<float, nax::axes<i, j, k>>(rng, sizes);
    auto b = nax_test::random_array_of<double, nax::axes<i, j, k>>(rng, sizes);
    auto c = nax_test::random_array_of<std::int32_t, nax::axes<i, j, k>>(rng, sizes, -9, 9);
    auto expected = [&](const index_map& idx) {
      return static_cast<double>(at(a, idx)) * at(b, idx) + 2.0 * at(c, idx) - 0.5;
    };
    nax::Array<double, i, j, k> out = a * b + 2 * c - 0.5;
    CHECK(nax_test::check_all(out, expected));
    // Into a destination with a gap after each row (not contiguous): the general pass.
    const index_t ni = sizes["i"], nj = sizes["j"], nk = sizes["k"];
    std::vector<double> padded(static_cast<std::size_t>(ni * nj * (nk + 1)) + 1, -7.0);
    nax::ArrayView<double, i, j, k> strided(padded.data(), {ni, nj, nk}, {nj * (nk + 1), nk + 1, 1});
    strided.assign(a * b + 2 * c - 0.5);
    CHECK(nax_test::check_all(strided, expected));
    std::size_t gaps_kept = 0;
    for (index_t r = 0; r < ni * nj; ++r) gaps_kept += padded[static_cast<std::size_t>(r * (nk + 1) + nk)] == -7.0;
    CHECK(gaps_kept == static_cast<std::size_t>(ni * nj));
    // A leaf whose size-1 axes have strides of no meaning is still contiguous; a transposed
    // leaf is not: both must read the right elements.
    nax::ArrayView<const float, i, j, k> odd(a.data(), {ni, nj, nk},
                                             {ni == 1 ? 12345 : nj * nk, nj == 1 ? -3 : nk, nk == 1 ? 99 : 1});
    nax::Array<double, i, j, k> from_odd = odd * b;
    CHECK(nax_test::check_all(from_odd, [&](const index_map& idx) { return static_cast<double>(at(a, idx)) * at(b, idx); }));
    nax::Array<float, k, j, i> t = nax::transpose<k, j, i>(a);
    nax::Array<double, i, j, k> from_t = t * b;
    CHECK(nax_test::check_all(from_t, [&](const index_map& idx) { return static_cast<double>(at(a, idx)) * at(b, idx); }));
  }
}

TEST_CASE("contiguous views of x shifted by s elements, assigned into x, equal going through a temporary") {
  nax_test::random_source rng(50);
  for (int trial = 0; trial < 30; ++trial) {
    const index_t n = trial % 6 == 5 ? 40000 + rng.integer(0, 99) : rng.integer(2, 40);
    const index_t s = rng.integer(1, n - 1), m = n - s;
    auto x = nax_test::random_array<float, i>(rng, {n});
    const std::vector<float> old(x.begin(), x.end());
    // x[s:] = 2 * x[:m] + x[s:] (reads behind the write), then x[:m] = x[s:] - 1 (ahead of it),
    // each as one contiguous view of x overlapping the destination by m - s elements or more.
    nax::ArrayView<float, i> back(x.data(), {m}), front(x.data() + s, {m});
    front.assign(2.f * back + front);
    std::vector<float> want = old;
    for (index_t t = 0; t < m; ++t) want[std::size_t(s + t)] = 2.f * old[std::size_t(t)] + old[std::size_t(s + t)];
    std::size_t bad = 0;
    for (index_t t = 0; t < n; ++t) bad += x.data()[t] != want[std::size_t(t)];
    CHECK_MESSAGE(bad == 0, "n = ", n, ", s = ", s);
    const std::vector<float> now(x.begin(), x.end());
    back.assign(front - 1.f);
    for (index_t t = 0; t < m; ++t) want[std::size_t(t)] = now[std::size_t(s + t)] - 1.f;
    bad = 0;
    for (index_t t = 0; t < n; ++t) bad += x.data()[t] != want[std::size_t(t)];
    CHECK_MESSAGE(bad == 0, "n = ", n, ", s = ", s);
  }
}
