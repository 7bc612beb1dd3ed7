// A training run saved and resumed through nax::io::save_tree / load_tree gives the losses of
// the uninterrupted run, bit for bit (examples/train_adamw.cpp: parameters, adamw's state with
// its count and moments, the step).
#define NAX_EXAMPLE_NO_MAIN
#include <doctest/doctest.h>

#include <unistd.h>

#include "../../examples/train_adamw.cpp"

TEST_CASE("train_adamw stopped at step 37 and resumed from its checkpoint gives the uninterrupted losses") {
  const auto path = std::filesystem::temp_directory_path() / ("nax_resume_test_" + std::to_string(::getpid()) + ".npz");
  std::filesystem::remove(path);
  const auto whole = train_adamw::run(false);
  const auto before = train_adamw::run(false, path.string(), 37);
  REQUIRE(std::filesystem::exists(path));
  const auto after = train_adamw::run(false, path.string());
  std::filesystem::remove(path);
  REQUIRE(whole.size() == 101);
  REQUIRE(before.size() == 38);
  REQUIRE(after.size() == 101 - 37);
  for (std::size_t s = 0; s != before.size(); ++s) CHECK(before[s] == whole[s]);
  for (std::size_t s = 0; s != after.size(); ++s) CHECK(after[s] == whole[37 + s]);
  CHECK(whole.back() < 0.5 * whole.front());
}
