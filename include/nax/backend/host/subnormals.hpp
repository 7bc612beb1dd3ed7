// Subnormal floats in the host GEMM: flushed to zero, as XLA does on the CPU (so JAX's jitted
// products and nax's agree there too), because an x86 core takes a microcode assist for
// every subnormal operand or result of a multiply-add, about a hundred times the cost of a
// normal one. A backward pass through a recurrence makes them: its cotangents shrink step by
// step through tanh's derivative. bench_rnn (64 steps, 2 cores) took 277 ms with them and
// 62 ms with the products flushed (57 ms with every operation flushed, which nax does not do);
// JAX's lax.scan version 71-75 ms. The flush is scoped: each GEMM thread sets the
// flags (MXCSR's FTZ and DAZ) for its part and restores them after, so nothing else in the
// program changes. Products differ from IEEE only where a term or the result is below
// 1.2e-38 (float) or 2.2e-308 (double). Define NAX_KEEP_SUBNORMALS to keep IEEE's gradual
// underflow in products (and their cost). Other architectures keep subnormals.
#pragma once

#if (defined(__x86_64__) || defined(_M_X64)) && !defined(NAX_KEEP_SUBNORMALS)
#include <xmmintrin.h>
#define NAX_FLUSHES_SUBNORMALS 1
#else
#define NAX_FLUSHES_SUBNORMALS 0
#endif

namespace nax::detail::host {

// While alive, the calling thread treats subnormal operands as zero and flushes subnormal
// results to zero (SSE/AVX arithmetic; x87 long double is not affected).
class subnormals_flushed {
 public:
#if NAX_FLUSHES_SUBNORMALS
  subnormals_flushed() : saved_(_mm_getcsr()) { _mm_setcsr(saved_ | flush_to_zero | denormals_are_zero); }
  ~subnormals_flushed() { _mm_setcsr(saved_); }
#else
  subnormals_flushed() = default;
#endif
  subnormals_flushed(const subnormals_flushed&) = delete;
  subnormals_flushed& operator=(const subnormals_flushed&) = delete;

 private:
#if NAX_FLUSHES_SUBNORMALS
  static constexpr unsigned flush_to_zero = 0x8000, denormals_are_zero = 0x0040;
  unsigned saved_;
#endif
};

}  // namespace nax::detail::host
