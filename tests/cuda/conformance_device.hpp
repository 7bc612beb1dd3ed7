// What the CUDA conformance files share (test_conformance_*.cu): the tests/ folder the cases are
// read from, the device backend the conformance programs are written over, and the count check.
// The JAX conformance suite (tests/conformance/) on the CUDA backend: the same programs as the
// host tests (written once over a backend, tests/conformance/backend.hpp), the case's inputs
// copied to the device, the results copied back and compared with JAX's by conf::compare with
// the host's tolerances (grad: the JAX programs' losses and the MLP, float32). Cases the device cannot
// run (functions of a C++ Key, element types not compiled for the device) are counted as
// skipped, with the reason, never as passes. Without a GPU every case prints "CUDA tests skipped:
// no device". The programs are split over three files so that nvcc compiles them in parallel
// (one file was the build's longest step).
#pragma once
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

#include "../conformance/backend.hpp"

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
inline void on_device(const char* family, std::string (*run)(const conf::Case&), const std::string& label, int ran,
               int selected) {
  const auto t = conf::run_family(conf::load_family(family), run, "cuda " + label);
  CHECK(t.run == ran);
  CHECK(t.run + t.skipped_total() == selected);
}

}  // namespace conf_cuda

// The counts: every case the host file of the program runs (its CHECK(t.run == ...)) either runs
// here (`ran`) or is skipped with a reason (float64 and other types not compiled for the device,
// functions of a C++ Key).
