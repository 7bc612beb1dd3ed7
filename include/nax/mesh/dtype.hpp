// Run-time element types and reduction operators of the communication layer (mesh/).
// Collectives move untyped buffers; dtype and reduce_op say how to read and combine them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace nax::detail {

enum class dtype { f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, boolean };

enum class reduce_op { sum, prod, max, min };

template <class T>
struct require_communicable {
  static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, long double> &&
                    (std::is_integral_v<T> || sizeof(T) == 4 || sizeof(T) == 8),
                "nax: collectives move bool, 8- to 64-bit integers, float and double only "
                "(T is the element type asked for)");
  static constexpr bool value = true;
};

template <class T>
consteval dtype dtype_of_impl() {
  static_assert(require_communicable<T>::value);
  if constexpr (std::is_same_v<T, bool>) {
    return dtype::boolean;
  } else if constexpr (std::is_floating_point_v<T>) {
    return sizeof(T) == 4 ? dtype::f32 : dtype::f64;
  } else if constexpr (std::is_signed_v<T>) {
    if constexpr (sizeof(T) == 1) return dtype::i8;
    else if constexpr (sizeof(T) == 2) return dtype::i16;
    else if constexpr (sizeof(T) == 4) return dtype::i32;
    else return dtype::i64;
  } else {
    if constexpr (sizeof(T) == 1) return dtype::u8;
    else if constexpr (sizeof(T) == 2) return dtype::u16;
    else if constexpr (sizeof(T) == 4) return dtype::u32;
    else return dtype::u64;
  }
}

// dtype_of<float> == dtype::f32; any integer type maps by size and signedness (long and
// long long are both i64 on LP64), bool to boolean.
template <class T>
inline constexpr dtype dtype_of = dtype_of_impl<std::remove_cv_t<T>>();

constexpr std::size_t dtype_size(dtype type) {
  switch (type) {
    case dtype::f32: case dtype::i32: case dtype::u32: return 4;
    case dtype::f64: case dtype::i64: case dtype::u64: return 8;
    case dtype::i16: case dtype::u16: return 2;
    case dtype::i8: case dtype::u8: return 1;
    case dtype::boolean: return sizeof(bool);
  }
  return 0;
}

constexpr std::string_view dtype_name(dtype type) {
  switch (type) {
    case dtype::f32: return "float32";
    case dtype::f64: return "float64";
    case dtype::i8: return "int8";
    case dtype::i16: return "int16";
    case dtype::i32: return "int32";
    case dtype::i64: return "int64";
    case dtype::u8: return "uint8";
    case dtype::u16: return "uint16";
    case dtype::u32: return "uint32";
    case dtype::u64: return "uint64";
    case dtype::boolean: return "bool";
  }
  return "unknown dtype";
}

constexpr bool is_valid(dtype type) {
  return static_cast<int>(type) >= 0 && static_cast<int>(type) <= static_cast<int>(dtype::boolean);
}

constexpr std::string_view reduce_op_name(reduce_op op) {
  switch (op) {
    case reduce_op::sum: return "sum";
    case reduce_op::prod: return "prod";
    case reduce_op::max: return "max";
    case reduce_op::min: return "min";
  }
  return "unknown reduce_op";
}

constexpr bool is_valid(reduce_op op) {
  return static_cast<int>(op) >= 0 && static_cast<int>(op) <= static_cast<int>(reduce_op::min);
}

// Calls f(T{}) with the C++ type of a dtype.
template <class F>
decltype(auto) visit_dtype(dtype type, F&& f) {
  switch (type) {
    case dtype::f32: return f(float{});
    case dtype::f64: return f(double{});
    case dtype::i8: return f(std::int8_t{});
    case dtype::i16: return f(std::int16_t{});
    case dtype::i32: return f(std::int32_t{});
    case dtype::i64: return f(std::int64_t{});
    case dtype::u8: return f(std::uint8_t{});
    case dtype::u16: return f(std::uint16_t{});
    case dtype::u32: return f(std::uint32_t{});
    case dtype::u64: return f(std::uint64_t{});
    case dtype::boolean: break;
  }
  return f(bool{});
}

}  // namespace nax::detail
