// The CUDA test executable's first cases: the umbrella header compiles under nvcc, and the
// tests find out whether there is a device. Without one they print a skip message and pass.
// The second case compiles (and runs, on the host) the whole public host API in a .cu file:
// every public header must compile under nvcc, not only the backend (DESIGN.md section 7).
#include <nax/nax.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include <cuda_runtime.h>

namespace {
NAX_AXIS(batch);
NAX_AXIS(in);
NAX_AXIS(out);
NAX_AXIS(b2);
NAX_AXIS(k);
NAX_AXIS(ko);
NAX_AXIS(ki);

__global__ void fill_index(nax::index_t* out, nax::index_t n) {
  nax::index_t const i = blockIdx.x * nax::index_t{blockDim.x} + threadIdx.x;
  if (i < n) out[i] = i;
}
}  // namespace

TEST_CASE("a kernel using nax types runs on the device, when there is one") {
  int devices = 0;
  cudaError_t const status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    MESSAGE("CUDA tests skipped: no device");
    return;
  }
  constexpr nax::index_t n = 1000;
  nax::index_t* data = nullptr;
  REQUIRE(cudaMalloc(&data, n * sizeof(nax::index_t)) == cudaSuccess);
  fill_index<<<(n + 255) / 256, 256>>>(data, n);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  nax::index_t host[n];
  REQUIRE(cudaMemcpy(host, data, sizeof(host), cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFree(data);
  CHECK(host[0] == 0);
  CHECK(host[n - 1] == n - 1);
}

TEST_CASE("the public host API compiles under nvcc and runs on the host") {
  // Arrays: constructors, factories, access, views.
  nax::Array<float, batch, in> x({2, 3}, {1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
  nax::Array<float, in, out> w({3, 2}, std::vector<float>{1.f, 0.f, 0.f, 1.f, 1.f, 1.f});
  nax::Array<float, out> b({2});
  CHECK(x(1, 2) == 6.f);
  CHECK(x.extent<in>() == 3);
  CHECK(x.extents()[0] == 2);
  CHECK(x.strides()[0] == 3);
  CHECK(x.size() == 6);
  CHECK(*x.begin() == 1.f);
  CHECK(x.view().extent<batch>() == 2);
  auto zeros = nax::zeros<float, batch, in>(2, 3);
  auto ones = nax::ones<double, in>(3);
  auto full = nax::full<int, out>(7, 2);
  auto range = nax::arange<float, k>(6);
  CHECK(zeros(1, 1) == 0.f);
  CHECK(ones(2) == 1.0);
  CHECK(full(1) == 7);
  CHECK(range(5) == 5.f);

  // Elementwise operators and functions, on floats.
  nax::Array<float, batch, in> y = x + 1.f - x * 2.f / 4.f + (-x);
  CHECK(y(0, 0) == doctest::Approx(1.f + 1.f - 0.5f - 1.f));
  nax::Array<float, batch, in> f =
      nax::abs(x) + nax::exp(x * 0.f) + nax::log(x) + nax::log1p(x) + nax::expm1(x * 0.f) + nax::sqrt(x) +
      nax::rsqrt(x) + nax::pow(x, 2.f) + nax::square(x) + nax::sin(x) + nax::cos(x) + nax::tanh(x) +
      nax::sigmoid(x) + nax::log_sigmoid(x) + nax::relu(x - 3.f) + nax::erf(x) + nax::maximum(x, 2.f) +
      nax::minimum(x, 2.f);
  float const v = 1.f;
  float const expected = std::abs(v) + 1.f + std::log(v) + std::log1p(v) + 0.f + std::sqrt(v) + 1.f / std::sqrt(v) +
                         v * v + v * v + std::sin(v) + std::cos(v) + std::tanh(v) + 1.f / (1.f + std::exp(-v)) -
                         std::log1p(std::exp(-v)) + 0.f + std::erf(v) + 2.f + 1.f;
  CHECK(f(0, 0) == doctest::Approx(expected).epsilon(1e-5));

  // Comparisons and logic give bool; where; cast; integer semantics.
  nax::Array<bool, batch, in> mask = ((x > 2.f) && !(x >= 6.f)) || (x == 1.f);
  nax::Array<bool, batch, in> mask2 =
      nax::logical_or(nax::logical_and(x < 2.f, x <= 1.f), nax::logical_not(x != 3.f));
  CHECK(mask(0, 0));
  CHECK_FALSE(mask(0, 1));
  CHECK_FALSE(mask(1, 2));
  CHECK(mask2(0, 0));
  CHECK(mask2(0, 2));
  nax::Array<float, batch, in> kept = nax::where(x > 2.f, x, 0.f);
  CHECK(nax::sum(kept).item() == 18.f);
  nax::Array<int, batch, in> xi = nax::cast<int>(x);
  nax::Array<int, batch, in> divided = xi / (xi - xi);  // integer division by zero: -1, as XLA
  CHECK(divided(0, 0) == -1);
  nax::Array<int, batch, in> powers = nax::pow(xi, 2);
  CHECK(powers(1, 2) == 36);
  nax::Array<double, batch, in> weak = xi * 2.5;  // an int array with a C++ double: double
  CHECK(weak(0, 1) == 5.0);
  nax::Array<std::int64_t, batch, in> widened = xi + nax::cast<std::uint32_t>(xi);  // int32 + uint32: int64
  CHECK(widened(1, 2) == 12);

  // Reductions.
  CHECK(nax::sum(x).item() == 21.f);
  CHECK(nax::item(nax::prod(x)) == 720.f);
  nax::Array<float, in> column_sums = nax::sum<batch>(x);
  CHECK(column_sums(2) == 9.f);
  nax::Array<float, batch> row_max = nax::max<in>(x);
  nax::Array<float, batch> row_min = nax::min<in>(x);
  CHECK(row_max(1) == 6.f);
  CHECK(row_min(1) == 4.f);
  CHECK(nax::mean(x).item() == doctest::Approx(3.5f));
  nax::Array<float, batch> lse = nax::logsumexp<in>(x);
  CHECK(lse(0) == doctest::Approx(std::log(std::exp(1.f) + std::exp(2.f) + std::exp(3.f))));
  nax::Array<std::int32_t, batch> amax = nax::argmax<in>(x);
  nax::Array<std::int32_t, batch> amin = nax::argmin<in>(x);
  CHECK(amax(0) == 2);
  CHECK(amin(1) == 0);
  CHECK(nax::sum(mask).item() == 4);  // bool sums as int32

  // Contraction, broadcasting by name, the design's first snippet.
  nax::Array<float, batch, out> p = nax::dot<in>(x, w) + b;
  CHECK(p(0, 0) == 4.f);
  CHECK(p(1, 1) == 11.f);
  float const loss = nax::mean(nax::square(nax::dot<in>(x, w) + b - p)).item();
  CHECK(loss == 0.f);

  // Every relayout.
  nax::Array<float, in, batch> t = nax::transpose<in, batch>(x);
  CHECK(t(2, 1) == 6.f);
  nax::Array<float, batch, in> same = nax::transpose<in, batch>(x);  // by name: no change
  CHECK(same(1, 0) == 4.f);
  nax::Array<float, b2, in> renamed = nax::rename<batch, b2>(x);
  CHECK(renamed(1, 0) == 4.f);
  nax::Array<float, batch, in> sliced = nax::slice<in>(x, 1, 3);
  CHECK(sliced.extent<in>() == 2);
  CHECK(sliced(1, 0) == 5.f);
  nax::Array<float, batch, in> strided = nax::slice<in>(x, 0, 3, 2);
  CHECK(strided(1, 1) == 6.f);
  nax::Array<float, ko, ki> split = nax::split<k, ko, ki>(range, 3);
  CHECK(split(1, 0) == 3.f);
  nax::Array<float, k> merged = nax::merge<ko, ki, k>(split);
  CHECK(merged(4) == 4.f);
  nax::Array<float, batch, in> joined = nax::concatenate<batch>(x, x * 10.f);
  CHECK(joined.extent<batch>() == 4);
  CHECK(joined(3, 2) == 60.f);
  nax::Array<float, b2, batch, in> stacked = nax::stack<b2>(x, t);
  CHECK(stacked(1, 1, 2) == 6.f);
  nax::Array<float, batch, in, out> broadcast = nax::broadcast_to<batch, in, out>(x, {2, 3, 4});
  CHECK(broadcast(1, 2, 3) == 6.f);
  nax::Array<std::int32_t, in> index = nax::axis_index<in>(3);
  CHECK(index(2) == 2);

  // eval, item, assignment into arrays and views, aliasing.
  auto evaluated = nax::eval(x * 2.f);
  static_assert(std::is_same_v<decltype(evaluated), nax::Array<float, batch, in>>);
  CHECK(evaluated(1, 2) == 12.f);
  nax::Array<float> scalar = nax::sum(x);
  CHECK(scalar.item() == 21.f);
  CHECK(nax::sum<batch, in>(x).item() == 21.f);
  x = x + 1.f;  // in place
  CHECK(x(0, 0) == 2.f);
  x = nax::transpose<in, batch>(x) - 1.f;  // reads overlap the destination: through a temporary
  CHECK(x(1, 2) == 6.f);
  zeros.view().assign(x * 2.f);
  CHECK(zeros(1, 2) == 12.f);

  // Printing.
  std::ostringstream os;
  os << nax::Array<int, batch, in>({2, 2}, {1, 2, 3, 4});
  CHECK(os.str() == "(batch=2, in=2)\n[[1, 2],\n [3, 4]]");
  std::ostringstream view_os;
  view_os << x.view();
  CHECK(view_os.str().rfind("(batch=2, in=3)", 0) == 0);

  // Run-time errors name axes and extents.
  nax::Array<float, batch, in> other({3, 3});
  CHECK_THROWS_AS((void)nax::eval(x + other), nax::shape_error);
  CHECK_THROWS_AS((void)nax::slice<in>(x, 0, 4), nax::shape_error);
  CHECK_THROWS_AS(((void)nax::split<k, ko, ki>(range, 4)), nax::shape_error);
  CHECK_THROWS_AS(zeros.view().assign(other), nax::shape_error);
}
