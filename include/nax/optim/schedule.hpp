// Schedules: the learning rate (or weight decay) as a function of the step count, optax's
// formulas (optax 0.2.8, optax/schedules/_schedule.py and _join.py). A schedule is any
// callable double(std::int64_t count); these are small copyable structs, and their values are
// rounded to the leaf's type where they scale an update (optax: jnp.array(step, dtype=g.dtype)).
// Precision as optax's on its int32 count (jax_enable_x64 on): polynomial_schedule,
// linear_schedule and exponential_decay are float32 computations there (count / steps of an
// int32 is float32 in JAX, even under x64), so they are float arithmetic here too, the Python
// constants (init - end, ...) combined in double first as Python does; cosine_decay_schedule and
// piecewise_constant_schedule are float64 there (a weak float meets the count first) and double
// here. So a float64 model trained with a linear warmup sees float32 learning rates, as in optax.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/errors.hpp"

namespace nax::optim {

// A number or a schedule: the value at `count`.
template <class Rate>
double value_at(const Rate& rate, std::int64_t count) {
  if constexpr (std::is_arithmetic_v<Rate>) return static_cast<double>(rate);
  else return static_cast<double>(rate(count));
}

struct constant_schedule {
  double value;
  double operator()(std::int64_t) const { return value; }
};

// optax.polynomial_schedule: (init - end) * (1 - clip(count - begin, 0, steps) / steps)^power + end;
// transition_steps <= 0 gives init_value; a negative transition_begin counts as 0.
struct polynomial_schedule {
  double init_value, end_value, power;
  std::int64_t transition_steps, transition_begin = 0;
  double operator()(std::int64_t count) const {
    if (transition_steps <= 0) return init_value;
    const std::int64_t begin = std::max<std::int64_t>(transition_begin, 0);
    const std::int64_t c = std::clamp<std::int64_t>(count - begin, 0, transition_steps);
    const float frac = 1.0f - static_cast<float>(c) / static_cast<float>(transition_steps);  // float32 in JAX
    const float powered = power == 1.0 ? frac : std::pow(frac, static_cast<float>(power));
    return static_cast<double>(static_cast<float>(init_value - end_value) * powered + static_cast<float>(end_value));
  }
};

// optax.linear_schedule: polynomial with power 1 (frac**1 is frac exactly).
struct linear_schedule {
  double init_value, end_value;
  std::int64_t transition_steps, transition_begin = 0;
  double operator()(std::int64_t count) const {
    return polynomial_schedule{init_value, end_value, 1.0, transition_steps, transition_begin}(count);
  }
};

// optax.cosine_decay_schedule: init * ((1 - alpha) * (0.5 * (1 + cos(pi * min(count, steps) / steps)))^exponent + alpha).
struct cosine_decay_schedule {
  double init_value;
  std::int64_t decay_steps;
  double alpha = 0.0, exponent = 1.0;
  cosine_decay_schedule(double init, std::int64_t steps, double a = 0.0, double e = 1.0)
      : init_value(init), decay_steps(steps), alpha(a), exponent(e) {
    if (!(decay_steps > 0))
      throw argument_error("nax: optim: cosine_decay_schedule needs positive decay_steps, got " +
                           std::to_string(decay_steps));
  }
  double operator()(std::int64_t count) const {
    const double steps = static_cast<double>(decay_steps);
    const double c = std::min(static_cast<double>(count), steps);
    const double cosine_decay = 0.5 * (1 + std::cos(std::numbers::pi * c / steps));
    const double decayed = (1 - alpha) * std::pow(cosine_decay, exponent) + alpha;
    return init_value * decayed;
  }
};

// optax.warmup_cosine_decay_schedule: linear from init to peak over warmup_steps, then cosine
// from peak to end_value over decay_steps - warmup_steps (join_schedules at warmup_steps); its
// values are float32 numbers (see the top of this file).
struct warmup_cosine_decay_schedule {
  linear_schedule warmup;
  cosine_decay_schedule decay;
  std::int64_t warmup_steps;
  warmup_cosine_decay_schedule(double init_value, double peak_value, std::int64_t warmup, std::int64_t decay_steps,
                               double end_value = 0.0, double exponent = 1.0)
      : warmup{init_value, peak_value, warmup},
        decay(peak_value, decay_steps - warmup, peak_value == 0.0 ? 0.0 : end_value / peak_value, exponent),
        warmup_steps(warmup) {}
  // jnp.where(step < warmup, linear (float32), cosine (a weakly typed float64)) is float32.
  double operator()(std::int64_t count) const {
    return count < warmup_steps ? warmup(count) : static_cast<double>(static_cast<float>(decay(count - warmup_steps)));
  }
};

// optax.exponential_decay: init * rate^((count - begin) / steps) (floored with staircase) once
// count > begin, init before; clipped at end_value (from below when rate < 1, above otherwise).
// transition_steps <= 0 or decay_rate == 0 give init_value.
struct exponential_decay {
  double init_value;
  std::int64_t transition_steps;
  double decay_rate;
  std::int64_t transition_begin = 0;
  bool staircase = false;
  bool has_end_value = false;
  double end_value = 0.0;
  exponential_decay(double init, std::int64_t steps, double rate, std::int64_t begin = 0, bool stair = false)
      : init_value(init), transition_steps(steps), decay_rate(rate), transition_begin(begin), staircase(stair) {}
  exponential_decay(double init, std::int64_t steps, double rate, std::int64_t begin, bool stair, double end)
      : exponential_decay(init, steps, rate, begin, stair) {
    has_end_value = true;
    end_value = end;
  }
  double operator()(std::int64_t count) const {
    if (transition_steps <= 0 || decay_rate == 0) return init_value;
    const std::int64_t begin = std::max<std::int64_t>(transition_begin, 0);
    const std::int64_t decreased = count - begin;
    float p = static_cast<float>(decreased) / static_cast<float>(transition_steps);  // float32 in JAX
    if (staircase) p = std::floor(p);
    const float init = static_cast<float>(init_value);
    float v = decreased <= 0 ? init : init * std::pow(static_cast<float>(decay_rate), p);
    if (has_end_value) {
      const float end = static_cast<float>(end_value);
      v = decay_rate < 1.0 ? (v != v || v > end ? v : end) : (v != v || v < end ? v : end);  // jnp.maximum / minimum
    }
    return static_cast<double>(v);
  }
};

// optax.piecewise_constant_schedule: init_value, multiplied by scale at each boundary the count
// has reached (boundaries in increasing order; scales must be non-negative).
struct piecewise_constant_schedule {
  double init_value;
  std::vector<std::pair<std::int64_t, double>> boundaries_and_scales;
  piecewise_constant_schedule(double init, std::map<std::int64_t, double> bs = {})
      : init_value(init), boundaries_and_scales(bs.begin(), bs.end()) {
    for (const auto& [boundary, scale] : boundaries_and_scales)
      if (!(scale >= 0.0))
        throw argument_error("nax: optim: piecewise_constant_schedule expects non-negative scale factors (boundary " +
                             std::to_string(boundary) + " has " + std::to_string(scale) + ")");
  }
  double operator()(std::int64_t count) const {
    double v = init_value;
    for (const auto& [threshold, scale] : boundaries_and_scales) {
      // indicator = max(0, sign(threshold - count)): 1 before the boundary, 0 from it on.
      const double indicator = threshold > count ? 1.0 : 0.0;
      v = v * indicator + (1 - indicator) * scale * v;
    }
    return v;
  }
};

}  // namespace nax::optim
