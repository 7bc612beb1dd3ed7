// Umbrella header of reverse-mode autodiff: nax::grad, nax::value_and_grad, nax::vjp,
// nax::custom_vjp, nax::checkpoint; forward mode: nax::jvp;
// nax::jacrev, nax::jacfwd, nax::hessian.
#pragma once
// Evaluations inside grad are recorded unless NAX_NO_TAPE is defined (nax.hpp says why).
#if !defined(NAX_NO_TAPE) && !defined(NAX_TAPE_RECORDING)
#define NAX_TAPE_RECORDING 1
#endif
#include "autodiff/cotangent.hpp"
#include "autodiff/variables.hpp"
#include "autodiff/rules.hpp"
#include "autodiff/grad.hpp"
#include "autodiff/vjp.hpp"
#include "autodiff/custom_vjp.hpp"
#include "autodiff/checkpoint.hpp"
#include "autodiff/jvp.hpp"
#include "autodiff/jacobian.hpp"
#include "autodiff/hessian.hpp"
