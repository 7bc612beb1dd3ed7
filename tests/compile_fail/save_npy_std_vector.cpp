// expect: nax: an operand must be an array, an expression or a number
// save_npy of a std::vector: it saves nax arrays, views and expressions, not standard containers.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/io.hpp>

#include <vector>

int main() {
  std::vector<float> losses{0.5f, 0.25f, 0.125f};
  nax::io::save_npy("losses.npy", losses);
}
