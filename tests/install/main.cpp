// A user program built against the installed nax package (see CMakeLists.txt next to it).
#include <nax/nax.hpp>

#include <cstdio>

int main() {
  try {
    throw nax::shape_error("extent of axis batch is 3, expected 4");
  } catch (std::invalid_argument const& error) {
    std::printf("nax consumer ok: %s\n", error.what());
    return 0;
  }
  return 1;
}
