// What Array needs of a running differentiation (autodiff/tape.hpp, DESIGN 5b): while grad
// calls the user's function, an Array must not free or overwrite storage the record may read
// in the backward pass, and a raw pointer into a value that depends on a differentiated
// argument would silently cut its derivative. Core layer: a small interface, the thread's
// current tape (null outside grad: then every hook is one thread-local load and a branch).
#pragma once
#include <cstddef>

namespace nax::detail {

struct tape_interface {
  // Does [p, p + bytes) hold a value that depends on a differentiated argument?
  virtual bool depends(const void* p, std::size_t bytes) const = 0;
  // Does the record read [p, p + bytes) (or depend on it), so that writing it changes a gradient?
  virtual bool holds(const void* p, std::size_t bytes) const = 0;
  // Takes over an Array's buffer that is about to be freed or replaced: the record keeps it
  // (freed with free_buffer(p, bytes) when the record no longer needs it).
  virtual void adopt(void* p, std::size_t bytes) = 0;
  // Evaluations the tape records nothing of free their temporaries at once (+1 in, -1 out).
  virtual void suspend(int delta) = 0;
  // Throws the error for a raw access (data(), operator(), begin(), item()) to [p, p + bytes).
  [[noreturn]] virtual void raw_access(const void* p, std::size_t bytes, bool write, const char* how) const = 0;

 protected:
  ~tape_interface() = default;
};

// The tape of the differentiation running on this thread (each mesh thread has its own).
inline thread_local tape_interface* active_tape = nullptr;

// While it lives, the arrays freed are temporaries of an evaluation nothing records.
struct tape_suspension {
  tape_interface* tape;
  explicit tape_suspension(tape_interface& t) : tape(&t) { t.suspend(+1); }
  tape_suspension(const tape_suspension&) = delete;
  tape_suspension& operator=(const tape_suspension&) = delete;
  ~tape_suspension() { tape->suspend(-1); }
};

// A raw read (write: a writable pointer) of an array's storage inside grad: an error when it
// depends on a differentiated argument (a read cuts the derivative) or, for a writable pointer,
// when the record reads it (a write would change what the backward pass computes).
inline void check_raw_access(const void* p, std::size_t bytes, bool write, const char* how) {
  if (tape_interface* tape = active_tape) [[unlikely]] {
    if (p && (write ? tape->holds(p, bytes) : tape->depends(p, bytes))) tape->raw_access(p, bytes, write, how);
  }
}

}  // namespace nax::detail
