// expect: nax: optim: a learning rate or weight decay \(Rate\) must be a number or a schedule
// expect: require_scalar_or_schedule<const char ?\*>
// A learning rate that is neither a number nor a callable of the step count.
#include <nax/nax.hpp>  // first: the snippets share its precompiled header
#include <nax/optim.hpp>
int main() {
  auto opt = nax::optim::sgd("0.1");
  (void)opt;
}
