// nax called from inside a user's OpenMP parallel region, each thread with its own arrays:
// every pass still computes every element (a serial pass must not share its loop with the
// enclosing team; a parallel one nests). Small passes run without an OpenMP region of their
// own (for_each_chunk in backend/host/threads.hpp), large ones with one.
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <vector>

namespace {
NAX_AXIS(i);
NAX_AXIS(j);
using nax::index_t;
}  // namespace

TEST_CASE("passes run inside a user's parallel region compute every element, small and large") {
  for (index_t n : {0, 1, 100, 70000}) {
    INFO("n = " << n);
    std::atomic<int> wrong{0}, done{0};
#pragma omp parallel num_threads(3)
    {
      nax::Array<float, i, j> a({n, 2});
      for (index_t q = 0; q < a.size(); ++q) a.data()[q] = float(q % 7);
      nax::Array<float, i, j> b = a * 2.f + 1.f;             // elementwise
      nax::Array<float, j> s = nax::sum<i>(a);                // kept innermost axis
      nax::Array<float, i> m = nax::max<j>(a + 0.5f);         // reduced innermost axis
      const double total = nax::sum(nax::cast<double>(a)).item();  // all axes, few outputs
      double want_total = 0, want_s[2] = {0, 0};
      for (index_t x = 0; x < n; ++x)
        for (index_t y = 0; y < 2; ++y) {
          const float v = a(x, y);
          if (b(x, y) != v * 2.f + 1.f) ++wrong;
          want_total += v;
          want_s[y] += v;
        }
      for (index_t x = 0; x < n; ++x)
        if (m(x) != std::max(a(x, 0), a(x, 1)) + 0.5f) ++wrong;
      for (index_t y = 0; y < 2; ++y)
        if (s(y) != float(want_s[y])) ++wrong;
      if (total != want_total) ++wrong;
      ++done;
    }
    CHECK(done.load() >= 1);
    CHECK(wrong.load() == 0);
  }
}
