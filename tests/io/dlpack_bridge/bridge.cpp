// A small shared library that check_dlpack.py loads with ctypes, so that numpy's own DLPack
// code (np.from_dlpack, ndarray.__dlpack__) exchanges tensors with nax's to_dlpack and
// from_dlpack (tests/io/dlpack_test.cpp runs the script).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>

#include <nax/io.hpp>
#include <nax/nax.hpp>

namespace {
NAX_AXIS(row);
NAX_AXIS(col);

const void* last_data = nullptr;
std::int64_t freed = 0;
void (*export_deleter)(nax::dlpack::DLManagedTensor*) = nullptr;

// The export's own deleter, counted.
void counted_deleter(nax::dlpack::DLManagedTensor* m) {
  ++freed;
  export_deleter(m);
}

int fail(const std::exception& e, char* message, std::int64_t capacity) {
  std::strncpy(message, e.what(), static_cast<std::size_t>(capacity - 1));
  message[capacity - 1] = '\0';
  return 1;
}
}  // namespace

extern "C" {

// a(i, j) = 100 i + j over (rows, cols), handed to the consumer.
void* nax_bridge_export(std::int64_t rows, std::int64_t cols) {
  nax::Array<double, row, col> a = nax::cast<double>(nax::axis_index<row>(rows) * 100 + nax::axis_index<col>(cols));
  last_data = a.size() ? a.data() : nullptr;
  nax::dlpack::DLManagedTensor* m = nax::to_dlpack(std::move(a));
  export_deleter = m->deleter;
  m->deleter = counted_deleter;
  return m;
}
const void* nax_bridge_last_data() { return last_data; }
std::int64_t nax_bridge_freed() { return freed; }

// The consumer's side: m viewed as (row, col) doubles, copied row-major into out by a nax
// expression; its deleter runs when the view goes, before this returns. 1 and the error's
// text when from_dlpack refuses m (then the caller still owns it).
int nax_bridge_import(void* m, double* out, char* message, std::int64_t capacity) {
  try {
    auto t = nax::from_dlpack<double, row, col>(static_cast<nax::dlpack::DLManagedTensor*>(m));
    nax::ArrayView<double, row, col>(out, t.extents()).assign(t.view() * 1.0);
    return 0;
  } catch (const std::exception& e) {
    return fail(e, message, capacity);
  }
}
}
