// The foreign views of the view_of_* snippets: std::mdspan's spelling (data_handle(), a static
// rank(), extent(k), stride(k)) for a 2 x 2 row-major float array, and the same without rank().
#pragma once
#include <cstddef>

struct strided {
  float* p;
  static constexpr std::size_t rank() { return 2; }
  float* data_handle() const { return p; }
  std::size_t extent(std::size_t) const { return 2; }
  std::size_t stride(std::size_t k) const { return k ? 1 : 2; }
};

struct strided_without_rank {
  float* p;
  float* data_handle() const { return p; }
  std::size_t extent(std::size_t) const { return 2; }
  std::size_t stride(std::size_t k) const { return k ? 1 : 2; }
};
