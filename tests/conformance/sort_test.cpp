// Conformance with JAX, family `sort` (data/sort/): sort, argsort, top_k, searchsorted, quantile and
// median, values and gradients, on the host (programs: sort.hpp).
#include "sort.hpp"

TEST_CASE("conformance sort: sort, argsort, top_k, searchsorted, quantile and median against JAX") {
  const auto cases = conf::load_family("sort");
  const auto t = conf::run_family(cases, conf_sort::run<conf::host_backend>, "sort");
  CHECK(t.run == 40);
}
