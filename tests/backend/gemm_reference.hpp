// Checks shared by tests/backend/gemm_test.cpp (the built-in kernel) and
// tests/cblas/gemm_cblas_test.cpp (the CBLAS path): operands with random strided layouts,
// a naive triple loop as reference, and the comparison. Each check takes the GEMM to test
// as a callable with gemm's signature.
#pragma once
#include <nax/backend/host/gemm.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace gemm_reference {

using nax::index_t;
namespace host = nax::detail::host;

enum axis : int { batch_axis = 0, row_axis = 1, col_axis = 2 };

// Where the elements of one operand lie: axes from innermost to outermost, the stride of
// the innermost one, extra elements between consecutive rows, columns or batches, axes that
// run backwards (negative stride) and a batch stride of zero (one matrix for all batches).
struct layout {
  int order[3] = {col_axis, row_axis, batch_axis};
  index_t step = 1;
  index_t pad[3] = {0, 0, 0};
  bool reversed[3] = {false, false, false};
  bool broadcast = false;
};

inline layout row_major() { return {}; }
inline layout column_major() {
  layout l;
  l.order[0] = row_axis, l.order[1] = col_axis;
  return l;
}

inline std::string describe(const layout& l) {
  static const char* names[3] = {"batch", "row", "col"};
  std::ostringstream out;
  out << "{inner->outer:";
  for (int a : l.order) out << ' ' << names[a] << (l.reversed[a] ? "(rev)" : "") << "+pad" << l.pad[a];
  out << ", step " << l.step << (l.broadcast ? ", batch broadcast" : "") << '}';
  return out.str();
}

inline layout random_layout(std::mt19937& rng, bool allow_broadcast) {
  layout l;
  std::shuffle(std::begin(l.order), std::end(l.order), rng);
  auto chance = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
  l.step = chance(80) ? 1 : 2;
  for (int a = 0; a < 3; ++a) {
    l.pad[a] = chance(60) ? 0 : static_cast<index_t>(1 + rng() % 5);
    l.reversed[a] = chance(15);
  }
  l.broadcast = allow_broadcast && chance(20);
  return l;
}

// One operand: its storage (padding included) and the view gemm sees.
template <class T>
struct strided_matrix {
  index_t extent[3];
  index_t stride[3];
  index_t origin = 0;  // storage index of element (0, 0, 0)
  std::vector<T> storage;

  strided_matrix(index_t batch, index_t rows, index_t cols, const layout& l) : extent{batch, rows, cols} {
    index_t running = l.step;
    for (int a : l.order) {
      if (a == batch_axis && l.broadcast) {
        stride[a] = 0;
        continue;
      }
      stride[a] = running;
      running = running * std::max<index_t>(1, extent[a]) + l.pad[a];
    }
    index_t span = 1;
    for (int a = 0; a < 3; ++a) {
      const index_t reach = stride[a] * std::max<index_t>(0, extent[a] - 1);
      span += reach;
      if (l.reversed[a] && stride[a] != 0) origin += reach, stride[a] = -stride[a];
    }
    storage.resize(static_cast<std::size_t>(span + l.pad[0] + l.pad[1] + l.pad[2]));
  }

  index_t offset(index_t b, index_t i, index_t j) const {
    return origin + b * stride[batch_axis] + i * stride[row_axis] + j * stride[col_axis];
  }
  T& operator()(index_t b, index_t i, index_t j) { return storage[static_cast<std::size_t>(offset(b, i, j))]; }
  T operator()(index_t b, index_t i, index_t j) const { return storage[static_cast<std::size_t>(offset(b, i, j))]; }

  host::gemm_operand<T> operand() const {
    return {storage.data() + origin, stride[batch_axis], stride[row_axis], stride[col_axis]};
  }
  host::gemm_output<T> output() { return {storage.data() + origin, stride[batch_axis], stride[row_axis], stride[col_axis]}; }
};

// Accumulator of the reference: long double for floating types, 64-bit integers otherwise
// (unsigned types wrap as the kernel does; signed test values are too small to overflow).
template <class T>
using reference_accumulator =
    std::conditional_t<std::is_floating_point_v<T>, long double,
                       std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;

template <class T>
T random_value(std::mt19937& rng) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(std::uniform_real_distribution<double>(-1.0, 1.0)(rng));
  else if constexpr (std::is_signed_v<T>)
    return static_cast<T>(static_cast<int>(rng() % 9) - 4);
  else
    return static_cast<T>(rng() % 5);
}

// alpha and beta worth testing, 0 and 1 included (1 and 0 often take special paths).
template <class T>
std::vector<T> scalars() {
  if constexpr (std::is_floating_point_v<T>)
    return {T(1), T(0), T(-1), T(0.5), T(2.25)};
  else if constexpr (std::is_signed_v<T>)
    return {T(1), T(0), T(-1), T(2), T(3)};
  else
    return {T(1), T(0), T(2), T(3)};
}

struct problem {
  index_t batch, M, N, K;
  layout a = row_major(), b = row_major(), c = row_major();
};

inline std::string describe(const problem& p) {
  std::ostringstream out;
  out << "batch " << p.batch << ", M " << p.M << ", N " << p.N << ", K " << p.K << "; A " << describe(p.a)
      << "; B " << describe(p.b) << "; C " << describe(p.c);
  return out.str();
}

// Runs gemm on random operands laid out as `p` says and compares every element of C with
// the triple loop; also checks that storage outside C (padding) is untouched and, for
// beta == 0, that C's old values (NaN for floating types) are not read.
template <class T, class Gemm>
void check_product(Gemm&& gemm, const problem& p, T alpha, T beta, std::mt19937& rng) {
  strided_matrix<T> A(p.batch, p.M, p.K, p.a), B(p.batch, p.K, p.N, p.b), C(p.batch, p.M, p.N, p.c);
  for (T& x : A.storage) x = random_value<T>(rng);
  for (T& x : B.storage) x = random_value<T>(rng);
  for (T& x : C.storage) x = random_value<T>(rng);
  if constexpr (std::is_floating_point_v<T>)
    if (beta == T(0))
      for (index_t b = 0; b < p.batch; ++b)
        for (index_t i = 0; i < p.M; ++i)
          for (index_t j = 0; j < p.N; ++j) C(b, i, j) = std::numeric_limits<T>::quiet_NaN();
  const strided_matrix<T> C_before = C;

  gemm(p.batch, p.M, p.N, p.K, alpha, A.operand(), B.operand(), beta, C.output());

  using acc = reference_accumulator<T>;
  std::vector<bool> in_c(C.storage.size(), false);
  index_t wrong = 0;
  std::string first_wrong;
  const long double tolerance =
      std::is_floating_point_v<T>
          ? 16.0L * static_cast<long double>(std::numeric_limits<T>::epsilon()) * std::sqrt(static_cast<long double>(p.K + 1))
          : 0.0L;
  for (index_t b = 0; b < p.batch; ++b)
    for (index_t i = 0; i < p.M; ++i)
      for (index_t j = 0; j < p.N; ++j) {
        in_c[static_cast<std::size_t>(C.offset(b, i, j))] = true;
        acc sum = 0, magnitude = 0;
        for (index_t k = 0; k < p.K; ++k) {
          const acc term = static_cast<acc>(A(b, i, k)) * static_cast<acc>(B(b, k, j));
          sum += term;
          if constexpr (std::is_floating_point_v<T>) magnitude += std::fabs(term);
        }
        const acc old = beta == T(0) ? acc(0) : static_cast<acc>(C_before(b, i, j));
        const acc expected = static_cast<acc>(alpha) * sum + static_cast<acc>(beta) * old;
        const T got = C(b, i, j);
        bool ok;
        if constexpr (std::is_floating_point_v<T>) {
          const long double scale = std::fabs(static_cast<long double>(alpha)) * magnitude +
                                    std::fabs(static_cast<long double>(beta) * old);
          ok = std::fabs(static_cast<long double>(got) - expected) <= tolerance * scale + 1e-30L;
        } else {
          ok = got == static_cast<T>(expected);
        }
        if (!ok && wrong++ == 0) {
          std::ostringstream out;
          out << "C(" << b << ", " << i << ", " << j << ") = " << +got << ", expected " << +static_cast<T>(expected);
          first_wrong = out.str();
        }
      }
  index_t padding_changed = 0;
  for (std::size_t s = 0; s < C.storage.size(); ++s)
    if (!in_c[s] && !(C.storage[s] == C_before.storage[s])) ++padding_changed;

  INFO(describe(p), "; alpha ", +alpha, ", beta ", +beta);
  INFO(first_wrong);
  CHECK(wrong == 0);
  CHECK(padding_changed == 0);
}

// Every M, N, K among sizes around the register tile (0, 1, 5..8, 15..17), row-major.
template <class T, class Gemm>
void check_small_sizes(Gemm&& gemm) {
  std::mt19937 rng(1);
  const std::vector<T> s = scalars<T>();
  const index_t sizes[] = {0, 1, 2, 5, 6, 7, 8, 15, 16, 17};
  std::size_t count = 0;
  for (index_t M : sizes)
    for (index_t N : sizes)
      for (index_t K : sizes) {
        const T alpha = s[count % s.size()], beta = s[(count / s.size() + count) % s.size()];
        ++count;
        check_product<T>(gemm, problem{1, M, N, K}, alpha, beta, rng);
      }
}

// Random sizes (0, 1 and primes crossing tile and block edges), random layouts of all three
// operands (transposed, padded, reversed, batch innermost, broadcast inputs), alpha, beta.
template <class T, class Gemm>
void check_random_layouts(Gemm&& gemm, unsigned seed, int cases) {
  std::mt19937 rng(seed);
  const std::vector<T> s = scalars<T>();
  const index_t sizes[] = {0, 1, 2, 7, 17, 33, 64, 129};
  const index_t batches[] = {0, 1, 1, 2, 3};
  auto pick = [&](const auto& options) { return options[rng() % std::size(options)]; };
  for (int c = 0; c < cases; ++c) {
    problem p{pick(batches), pick(sizes), pick(sizes), pick(sizes)};
    p.a = random_layout(rng, true);
    p.b = random_layout(rng, true);
    p.c = random_layout(rng, false);
    check_product<T>(gemm, p, s[rng() % s.size()], s[rng() % s.size()], rng);
  }
}

// Products large enough to cross the cache blocks of the built-in kernel (kc = 256; mc = 144
// or 72 with AVX2, 288 or 144 with AVX-512; nc = 4080 or 4064) and to be split across
// threads, in several layouts; and every M and N around the register tiles (6 x 16 and
// 12 x 32 for float, 6 x 8 and 12 x 16 for double), deep enough (K = 450) that the packed
// kernel takes them rather than the small-product loop.
template <class T, class Gemm>
void check_block_edges(Gemm&& gemm) {
  std::mt19937 rng(3);
  check_product<T>(gemm, problem{1, 7, 4100, 260}, T(1), T(0), rng);
  check_product<T>(gemm, problem{1, 300, 40, 600}, T(2), T(1), rng);
  check_product<T>(gemm, problem{1, 300, 40, 600, column_major(), column_major(), column_major()}, T(1), T(-1), rng);
  problem mixed{2, 151, 97, 263, column_major(), row_major(), row_major()};
  mixed.c.pad[row_axis] = 3;
  check_product<T>(gemm, mixed, T(1), T(0), rng);
  // batch 3 on 2 threads: each matrix is cut in two; batch 4: whole matrices per thread.
  check_product<T>(gemm, problem{3, 70, 90, 80}, T(1), T(1), rng);
  check_product<T>(gemm, problem{4, 70, 90, 80}, T(1), T(0), rng);
  // Column-major C is computed as C^T = B^T A^T.
  check_product<T>(gemm, problem{1, 130, 70, 50, row_major(), row_major(), column_major()}, T(1), T(2), rng);
  for (index_t M : {5, 6, 7, 11, 12, 13, 25})
    for (index_t N : {7, 8, 9, 15, 16, 17, 31, 32, 33})
      check_product<T>(gemm, problem{1, M, N, 450}, T(1), M % 2 ? T(0) : T(-1), rng);
}

// Thin products (one of K, M, N at most 8, held by an operand of packed short rows: the
// kernels of gemm_thin.hpp), in every orientation of A, B and C, long dimensions from 1 to
// past a thread split, and the same shapes with one operand padded (the general path).
template <class T, class Gemm>
void check_thin(Gemm&& gemm) {
  std::mt19937 rng(6);
  const std::vector<T> s = scalars<T>();
  const index_t longs[] = {1, 3, 17, 300, 40000};
  std::size_t count = 0;
  for (index_t thin = 1; thin <= 9; ++thin)
    for (index_t n : longs)
      for (int which = 0; which < 3; ++which)
        for (int orientation = 0; orientation < 8; ++orientation) {
          problem p{1 + static_cast<index_t>(count % 2), n, 1 + static_cast<index_t>(count % 3), thin};
          if (which == 1) p = problem{1, thin, 1 + static_cast<index_t>(count % 4), n};
          if (which == 2) p = problem{1, 1 + static_cast<index_t>(count % 4), thin, n};
          if (n == 40000 && p.batch * p.M * p.N * p.K > 2000000) continue;
          p.a = orientation & 1 ? column_major() : row_major();
          p.b = orientation & 2 ? column_major() : row_major();
          p.c = orientation & 4 ? column_major() : row_major();
          if (count % 7 == 0) p.a.pad[row_axis] = 1;
          const T alpha = s[count % s.size()], beta = s[(count / s.size() + count) % s.size()];
          ++count;
          check_product<T>(gemm, p, alpha, beta, rng);
        }
}

// K == 0: C = beta C (0 when beta == 0, even over NaN); alpha == 0 likewise, A and B unread.
template <class T, class Gemm>
void check_degenerate(Gemm&& gemm) {
  std::mt19937 rng(4);
  for (T beta : scalars<T>()) {
    check_product<T>(gemm, problem{2, 5, 7, 0}, T(1), beta, rng);
    check_product<T>(gemm, problem{2, 5, 7, 9}, T(0), beta, rng);
  }
  // Nothing to do: must not touch the (null) pointers.
  gemm(index_t{0}, index_t{4}, index_t{4}, index_t{4}, T(1), host::gemm_operand<T>{nullptr, 0, 4, 1},
       host::gemm_operand<T>{nullptr, 0, 4, 1}, T(0), host::gemm_output<T>{nullptr, 0, 4, 1});
  gemm(index_t{3}, index_t{0}, index_t{4}, index_t{4}, T(1), host::gemm_operand<T>{nullptr, 0, 4, 1},
       host::gemm_operand<T>{nullptr, 0, 4, 1}, T(0), host::gemm_output<T>{nullptr, 0, 4, 1});
}

}  // namespace gemm_reference
