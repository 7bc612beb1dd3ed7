// The JAX conformance suite (tests/conformance/) on the CUDA backend: the same programs as the
// host tests (written once over a backend, tests/conformance/backend.hpp), the case's inputs
// copied to the device, the results copied back and compared with JAX's by conf::compare with
// the host's tolerances (grad: the JAX programs' losses and the MLP, float32). Cases the device cannot
// run (functions of a C++ Key, element types not compiled for the device) are counted as
// skipped, with the reason, never as passes. Without a GPU every case prints "CUDA tests skipped: no device".
#include "device_support.hpp"

#include <cstdlib>

// The tests/ folder whose conformance/data the cases read: $NAX_TEST_SOURCE_DIR when set (a
// test_cuda built on another machine, bench/gpu/prepare.sh, reads the source tree it runs
// beside: bench/gpu/run.sh sets it), else the one it was built from (the compile definition).
namespace nax_cuda_test {
inline constexpr const char* built_test_source_dir = NAX_TEST_SOURCE_DIR;
inline const char* test_source_dir() {
  const char* dir = std::getenv("NAX_TEST_SOURCE_DIR");
  return dir && *dir ? dir : built_test_source_dir;
}
}  // namespace nax_cuda_test
#undef NAX_TEST_SOURCE_DIR
#define NAX_TEST_SOURCE_DIR ::nax_cuda_test::test_source_dir()

#include "../conformance/bitwise.hpp"
#include "../conformance/core_dot.hpp"
#include "../conformance/core_elementwise.hpp"
#include "../conformance/core_reduce.hpp"
#include "../conformance/core_unary.hpp"
#include "../conformance/grad_losses.hpp"
#include "../conformance/index.hpp"
#include "../conformance/layout.hpp"
#include "../conformance/nn.hpp"
#include "../conformance/random.hpp"
#include "../conformance/relayout.hpp"
#include "../conformance/sort.hpp"

namespace conf_cuda {

// Covered: the element types the programs are compiled for on the device. Each program is a
// kernel (and its host side) per type, so core and relayout cover fewer types than the host (nvcc
// time; tests/conformance/README.md): no float64, and no int32 for the unary ops and relayouts.
template <class... Covered>
struct cuda_backend {
  static constexpr bool device = true;
  template <class T>
  static constexpr bool instantiates() {
    return (std::is_same_v<T, Covered> || ...);
  }
  static std::string not_instantiated(const std::string& dtype) {
    return dtype + " is not compiled for the device (compile time)";
  }

  template <class T, class... As>
  static nax::cuda::Array<T, As...> input(const npy::Array& a) {
    return nax::cuda::to_device(conf::to_array<T, As...>(a));
  }
  template <class E>
  static auto eval(const E& e) {
    return nax::cuda::eval(e);
  }
  template <class E>
  static auto result(const E& e) {
    return nax::cuda::to_host(e);
  }
  template <class T, class... As, class E>
  static nax::Array<T, As...> result_as(const E& e) {
    return nax::cuda::to_host(nax::cuda::Array<T, As...>(e));
  }
};

using f32 = cuda_backend<float>;
using f32_i32 = cuda_backend<float, std::int32_t>;
using f32_i32_bool = cuda_backend<float, std::int32_t, bool>;
using f32_i32_bool_i64 = cuda_backend<float, std::int32_t, bool, std::int64_t>;
using every_type = cuda_backend<float, double, std::uint32_t, std::uint64_t, std::int32_t, std::int64_t>;

// The cases of `family` that `run` takes (`selected`, as many as on the host), on the device:
// `ran` of them run there, the rest are skipped with a reason.
void on_device(const char* family, std::string (*run)(const conf::Case&), const std::string& label, int ran,
               int selected) {
  const auto t = conf::run_family(conf::load_family(family), run, "cuda " + label);
  CHECK(t.run == ran);
  CHECK(t.run + t.skipped_total() == selected);
}

}  // namespace conf_cuda

using namespace conf_cuda;

// The counts: every case the host file of the program runs (its CHECK(t.run == ...)) either runs
// here (`ran`) or is skipped with a reason (float64 and other types not compiled for the device,
// functions of a C++ Key).
TEST_CASE("cuda conformance core: unary elementwise ops against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("core", conf_unary::run<f32>, "core/unary elementwise", 32, 72);
}

TEST_CASE("cuda conformance core: elementwise ops against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("core", conf_elementwise::run<f32_i32_bool>, "core/binary elementwise", 79, 115);
}

TEST_CASE("cuda conformance core: reductions against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("core", conf_reduce::run<f32_i32_bool>, "core/reductions", 92, 140);
}

TEST_CASE("cuda conformance core: contractions against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("core", conf_dot::run<f32_i32>, "core/contractions", 14, 21);
}

TEST_CASE("cuda conformance random: threefry keys and samplers on the device against jax.random, bit for bit") {
  if (nax_cuda_test::no_device()) return;
  on_device("random", conf_random::run<every_type>, "random", 176, 187);
}

TEST_CASE("cuda conformance grad: the JAX programs' losses and the MLP (params tuples) against jax.grad") {
  if (nax_cuda_test::no_device()) return;
  on_device("grad", conf_grad::run_losses_for<f32>, "grad/losses", 6, 12);
  on_device("grad", conf_grad::run_mlp_for<f32>, "grad/mlp", 4, 8);
}

TEST_CASE("cuda conformance relayout: transpose, slice, split, broadcast_to, a fused program against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("relayout", conf_relayout::run<f32>, "relayout", 11, 22);
}

TEST_CASE("cuda conformance nn: the added elementwise ops, softmax, norms and cross-entropies against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("nn", conf_nn::run<f32>, "nn", 37, 78);  // float32 values and gradients
}

TEST_CASE("cuda conformance index: take, take_along, one_hot, integer-label cross-entropy and scatters against JAX") {
  if (nax_cuda_test::no_device()) return;
  on_device("index", conf_index::run<f32>, "index", 13, 24);  // float32 values and gradients
}

TEST_CASE("cuda conformance layout: gather layouts, triangles, linspace and composed reductions against JAX") {
  if (nax_cuda_test::no_device()) return;
  // float32 values and gradients, int32 linspace, any/all/count_nonzero (bool, int64 results),
  // cumsum of bools
  on_device("layout", conf_layout::run<f32_i32_bool_i64>, "layout", 45, 85);
}

TEST_CASE("cuda conformance bitwise: and, or, xor, not, invert and the shifts on integers and bools against JAX") {
  if (nax_cuda_test::no_device()) return;
  // every type of the host file: int8, uint8, int32, uint32, int64, bool (mixed types, C++ numbers)
  using integers = cuda_backend<std::int8_t, std::uint8_t, std::int32_t, std::uint32_t, std::int64_t, bool>;
  on_device("bitwise", conf_bitwise::run<integers>, "bitwise", 65, 65);
}

TEST_CASE("cuda conformance sort: sort, argsort, top_k, searchsorted, quantile and median against JAX") {
  if (nax_cuda_test::no_device()) return;
  // float32 values and gradients, int32 sorts (int64 positions); float64 is not compiled for the device
  on_device("sort", conf_sort::run<cuda_backend<float, std::int32_t, std::int64_t>>, "sort", 22, 40);
}
