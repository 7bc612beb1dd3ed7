// Umbrella header of reverse-mode autodiff: nax::grad, nax::value_and_grad.
#pragma once
#include "autodiff/cotangent.hpp"
#include "autodiff/variables.hpp"
#include "autodiff/rules.hpp"
#include "autodiff/grad.hpp"
