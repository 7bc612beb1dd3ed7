// grad(grad(f)): second derivatives of scalar functions, against central differences of the
// first derivative (double precision), and composed with argnums, value_and_grad, vmap and a
// reduction inside f.
#include "finite_difference.hpp"

namespace {
NAX_AXIS(batch);
NAX_AXIS(in);
using nax::index_t;

nax::Array<double> scalar(double v) { return nax::full<double>(v); }

// The largest relative error of grad(grad(f)) against central differences of grad(f) at xs.
template <class F>
double second_derivative_error(F f, std::initializer_list<double> xs) {
  double worst = 0;
  for (double x0 : xs) {
    auto x = scalar(x0);
    const double d2 = nax::grad(nax::grad(f))(x).item();
    const double h = 1e-5;
    const double up = nax::grad(f)(scalar(x0 + h)).item(), down = nax::grad(f)(scalar(x0 - h)).item();
    const double fd = (up - down) / (2 * h);
    worst = std::max(worst, std::abs(d2 - fd) / std::max(1.0, std::abs(fd)));
  }
  return worst;
}
}  // namespace

namespace {
// d/dx_K of partial<F, J> by central differences, against partial<partial<F, J>, K>.
template <class F, std::size_t J, std::size_t K>
double second_partial_error(double x, double y) {
  namespace fn = nax::detail::fn;
  const double h = 1e-5;
  auto first = [](double a, double b) {
    if constexpr (requires { fn::partial<F, J>{}(a, b); }) return fn::partial<F, J>{}(a, b);
    else return fn::partial<F, J>{}(a);
  };
  double fd;
  if constexpr (K == 0) fd = (first(x + h, y) - first(x - h, y)) / (2 * h);
  else fd = (first(x, y + h) - first(x, y - h)) / (2 * h);
  double exact;
  if constexpr (requires { fn::partial<fn::partial<F, J>, K>{}(x, y); }) exact = fn::partial<fn::partial<F, J>, K>{}(x, y);
  else exact = fn::partial<fn::partial<F, J>, K>{}(x);
  return std::abs(exact - fd) / std::max(1.0, std::abs(fd));
}
template <class F>
double unary_error() {
  double worst = 0;
  for (double x : {0.3, 1.1, 2.5}) worst = std::max(worst, second_partial_error<F, 0, 0>(x, 0.0));
  return worst;
}
template <class F>
double unary_error_at(std::initializer_list<double> xs) {
  double worst = 0;
  for (double x : xs) worst = std::max(worst, second_partial_error<F, 0, 0>(x, 0.0));
  return worst;
}
template <class F>
double binary_error() {
  double worst = 0;
  for (double x : {0.3, 1.1, 2.5})
    for (double y : {0.7, 1.9})
      worst = std::max({worst, second_partial_error<F, 0, 0>(x, y), second_partial_error<F, 0, 1>(x, y),
                        second_partial_error<F, 1, 0>(x, y), second_partial_error<F, 1, 1>(x, y)});
  return worst;
}
}  // namespace

TEST_CASE("the second partials of every elementwise functor against differences of the first partials") {
  namespace fn = nax::detail::fn;
  CHECK(unary_error<fn::negate>() < 1e-6);
  CHECK(unary_error<fn::abs>() < 1e-6);
  CHECK(unary_error<fn::square>() < 1e-6);
  CHECK(unary_error<fn::relu>() < 1e-6);
  CHECK(unary_error<fn::exp>() < 1e-6);
  CHECK(unary_error<fn::log>() < 1e-6);
  CHECK(unary_error<fn::log1p>() < 1e-6);
  CHECK(unary_error<fn::expm1>() < 1e-6);
  CHECK(unary_error<fn::sqrt>() < 1e-6);
  CHECK(unary_error<fn::rsqrt>() < 1e-6);
  CHECK(unary_error<fn::sin>() < 1e-6);
  CHECK(unary_error<fn::cos>() < 1e-6);
  CHECK(unary_error<fn::tanh>() < 1e-6);
  CHECK(unary_error<fn::erf>() < 1e-6);
  CHECK(unary_error<fn::sigmoid>() < 1e-6);
  CHECK(unary_error<fn::log_sigmoid>() < 1e-6);
  CHECK(unary_error_at<fn::relu6>({0.3, 2.5, 7.0}) < 1e-6);
  CHECK(unary_error<fn::sign>() < 1e-6);
  CHECK(unary_error<fn::floor>() < 1e-6);
  CHECK(unary_error<fn::ceil>() < 1e-6);
  CHECK(unary_error<fn::trunc>() < 1e-6);
  CHECK(unary_error<fn::round>() < 1e-6);
  CHECK(unary_error_at<fn::tan>({-1.1, 0.3, 1.2}) < 1e-6);
  CHECK(unary_error_at<fn::arcsin>({-0.8, 0.3, 0.7}) < 1e-6);
  CHECK(unary_error_at<fn::arccos>({-0.8, 0.3, 0.7}) < 1e-6);
  CHECK(unary_error_at<fn::arctan>({-2.0, 0.3, 1.7}) < 1e-6);
  CHECK(unary_error_at<fn::sinh>({-2.0, 0.3, 1.7}) < 1e-6);
  CHECK(unary_error_at<fn::cosh>({-2.0, 0.3, 1.7}) < 1e-6);
  CHECK(unary_error_at<fn::arcsinh>({-2.0, 0.3, 1.7}) < 1e-6);
  CHECK(unary_error_at<fn::arccosh>({1.2, 2.0, 3.5}) < 1e-6);
  CHECK(unary_error_at<fn::arctanh>({-0.8, 0.3, 0.7}) < 1e-6);
  CHECK(unary_error_at<fn::softplus>({-3.0, 0.3, 2.5}) < 1e-6);
  CHECK(unary_error_at<fn::silu>({-3.0, 0.3, 2.5}) < 1e-6);
  CHECK(unary_error_at<fn::gelu_exact>({-3.0, -0.4, 0.3, 2.5}) < 1e-6);
  CHECK(unary_error_at<fn::gelu_tanh>({-3.0, -0.4, 0.3, 2.5}) < 1e-6);
  CHECK(binary_error<fn::arctan2>() < 1e-6);
  CHECK(binary_error<fn::hypot>() < 1e-6);
  CHECK(binary_error<fn::fmod>() < 1e-6);       // at (x, y) whose x / y is not an integer
  CHECK(binary_error<fn::remainder>() < 1e-6);
  CHECK(binary_error<fn::plus>() < 1e-6);
  CHECK(binary_error<fn::minus>() < 1e-6);
  CHECK(binary_error<fn::multiplies>() < 1e-6);
  CHECK(binary_error<fn::divides>() < 1e-6);
  CHECK(binary_error<fn::maximum>() < 1e-6);
  CHECK(binary_error<fn::minimum>() < 1e-6);
  CHECK(binary_error<fn::pow>() < 1e-6);
}

TEST_CASE("grad(grad(f)) against differences of grad(f)") {
  CHECK(second_derivative_error([](const auto& x) { return nax::tanh(x); }, {-1.7, -0.3, 0.4, 2.2}) < 1e-6);
  CHECK(second_derivative_error([](const auto& x) { return nax::log(x) + nax::pow(x, 3.5) / (1.0 + x * x); },
                                {0.3, 1.1, 2.5}) < 1e-6);
}

TEST_CASE("grad<0, 1>(grad<0>(f)): mixed partials; value_and_grad(grad(f)) gives f' and f''") {
  auto f = [](const auto& x, const auto& y) { return x * x * y + nax::tanh(y); };  // f_x = 2xy
  auto [dxx, dxy] = nax::grad<0, 1>(nax::grad<0>(f))(scalar(0.8), scalar(-1.3));
  CHECK(dxx.item() == doctest::Approx(2 * -1.3).epsilon(1e-12));  // d/dx 2xy
  CHECK(dxy.item() == doctest::Approx(2 * 0.8).epsilon(1e-12));   // d/dy 2xy
  auto [d1, d2] = nax::value_and_grad(nax::grad([](const auto& t) { return nax::sin(t) * nax::exp(t); }))(scalar(0.5));
  CHECK(d1.item() == doctest::Approx((std::cos(0.5) + std::sin(0.5)) * std::exp(0.5)).epsilon(1e-12));
  CHECK(d2.item() == doctest::Approx(2 * std::cos(0.5) * std::exp(0.5)).epsilon(1e-12));
}

TEST_CASE("vmap(grad(grad(f))): second derivatives at many points; a reduction inside f") {
  nax_test::random_source rng(404);
  auto xs = nax_test::random_array<double, batch>(rng, {7});
  nax::Array<double, batch> d2 = nax::vmap<batch>(nax::grad(nax::grad([](const auto& x) { return nax::tanh(x); })))(xs);
  for (index_t b = 0; b < 7; ++b) {
    const double t = std::tanh(xs(b));
    CHECK(d2(b) == doctest::Approx(-2 * t * (1 - t * t)).epsilon(1e-12));
  }
  // f(x) = mean(tanh(x w)) over a vector w: f'' = mean(w^2 tanh''(x w)).
  auto w = nax_test::random_array<double, in>(rng, {5});
  auto f = [&](const auto& x) { return nax::mean(nax::tanh(x * w)); };
  const double x0 = 0.35;
  double want = 0;
  for (index_t k = 0; k < 5; ++k) {
    const double t = std::tanh(x0 * w(k));
    want += w(k) * w(k) * (-2 * t * (1 - t * t)) / 5;
  }
  CHECK(nax::grad(nax::grad(f))(scalar(x0)).item() == doctest::Approx(want).epsilon(1e-12));
}

namespace {
NAX_AXIS(out);

// H against central differences of grad f, column by column, and its symmetry.
template <class F, class... As>
void check_hessian(F f, nax::Array<double, As...> x) {
  auto hess = nax::hessian(f)(x);
  static_assert(std::is_same_v<decltype(hess), nax::Array<double, As..., nax::wrt<As>...>>);
  const auto n = static_cast<index_t>(x.size());
  auto flat = [](const auto& a) { return std::vector<double>(a.begin(), a.end()); };
  const std::vector<double> h_all = flat(hess);  // row-major: H[i][j] at i * n + j
  REQUIRE(static_cast<index_t>(h_all.size()) == n * n);
  const double h = 1e-5;
  double worst = 0, largest = 0;
  auto xs = x.begin();
  for (index_t j = 0; j < n; ++j, ++xs) {
    const double saved = *xs;
    *xs = saved + h;
    const auto up = flat(nax::grad(f)(x));
    *xs = saved - h;
    const auto down = flat(nax::grad(f)(x));
    *xs = saved;
    for (index_t i = 0; i < n; ++i) {
      const double fd = (up[i] - down[i]) / (2 * h);
      worst = std::max(worst, std::abs(h_all[i * n + j] - fd));
      largest = std::max(largest, std::abs(fd));
      CHECK(h_all[i * n + j] == doctest::Approx(h_all[j * n + i]).epsilon(1e-12));
    }
  }
  CHECK(worst / std::max(largest, 1.0) < 1e-6);
  if (n > 1) CHECK(largest > 1e-3);  // not a silent 0
}
}  // namespace

TEST_CASE("hessian: against central differences of grad, on rank 1 and 2, with a contraction, a reduction and size-0/1 axes") {
  nax_test::random_source rng(1606);
  auto w = nax_test::random_array<double, in, out>(rng, {4, 3});
  for (index_t n : {index_t{0}, index_t{1}, index_t{4}}) {
    INFO("in " << n);
    nax::Array<double, in, out> wn = nax::slice<in>(w, 0, n);
    auto mlp = [&](const auto& x) {
      return nax::sum(nax::square(nax::tanh(nax::dot<in>(x, wn)))) + nax::sum(nax::sin(x) * x) + nax::square(nax::sum(x * x));
    };
    check_hessian(mlp, nax_test::random_array<double, in>(rng, {n}));
  }
  for (auto extents : {std::pair<index_t, index_t>{2, 3}, {1, 4}, {3, 1}}) {
    const index_t nb = extents.first, ni = extents.second;  // (clang 16 cannot capture a structured binding under -fopenmp)
    INFO("batch " << nb << ", in " << ni);
    auto f = [](const auto& x) {
      return nax::sum(nax::log(nax::sum<in>(nax::exp(x)))) + nax::max(nax::square(x)) * 0.5 + nax::prod(x + 2.0);
    };
    check_hessian(f, nax_test::random_array<double, batch, in>(rng, {nb, ni}));
    check_hessian(f, nax_test::random_array<double, in, batch>(rng, {ni, nb}));
  }
  // The axis names: H[in, wrt<in>] for f of x[in].
  auto x = nax_test::random_array<double, in>(rng, {3});
  auto quad = nax::hessian([](const auto& v) { return nax::sum(v * v * 1.5); })(x);
  for (index_t i = 0; i < 3; ++i)
    for (index_t j = 0; j < 3; ++j) CHECK(quad(i, j) == (i == j ? 3.0 : 0.0));
}

TEST_CASE("hessian: an evaluation inside f that depends on its argument raises") {
  auto x = nax::ones<double, in>(3);
  std::string message;
  try {
    nax::hessian([](const auto& v) { return nax::sum(nax::eval(v * 2.0)); })(nax::Array<double, in>(x));
  } catch (const nax::argument_error& e) {
    message = e.what();
  }
  // (this area compiles without the tape's recording, NAX_NO_TAPE, and says so first)
  CHECK(message.find("depends on a differentiated argument") != std::string::npos);
}
