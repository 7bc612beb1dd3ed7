// expect-compile
// Control: the element-type errors fixed the way their messages say (nax::cast<T>), and the
// conversions that are allowed without a cast.

#include <nax/nax.hpp>
#include <cstdint>

NAX_AXIS(batch);
NAX_AXIS(in);

int main() {
  nax::Array<double, batch> x({3});
  nax::Array<float, batch> y = nax::cast<float>(x * 2.0);  // narrowing_assignment, fixed
  y = nax::cast<float>(x);                                 // narrowing_operator_assign, fixed
  nax::Array<double, batch> widened = y;                   // float into double: no cast needed
  nax::Array<float, batch> from_int = nax::Array<int, batch>({3});  // int into float is allowed
  y = y * 2.0;                                             // a C++ double next to floats stays float

  nax::Array<std::uint64_t, batch> u({3});
  nax::Array<std::int64_t, batch> s({3});
  auto sum = nax::cast<std::int64_t>(u) + s;  // promote_uint64_int64, fixed
  nax::Array<std::int64_t, batch> total = sum;
  auto d = nax::dot<batch>(u, nax::cast<std::uint64_t>(s));  // promote_uint64_int64_dot, fixed
  std::uint64_t v = d.item();
  nax::Array<bool, batch> c({3});
  nax::Array<std::int64_t, batch> chosen = nax::where(c, nax::cast<std::int64_t>(u), s);
  (void)widened, (void)from_int, (void)total, (void)v, (void)chosen;
}
