// Umbrella header of the host library: named-axis arrays, fused expressions, the host backend.
#pragma once
// Evaluations inside grad are recorded (autodiff/tape.hpp) unless NAX_NO_TAPE is defined: the
// recording compiles each floating-point evaluation's backward pass (measured: a test file of
// elementwise evaluations, 45 s -> 123 s of g++ at -O0), so code that never evaluates inside grad
// may opt out; an evaluation inside grad that depends on the argument then raises an error.
#if !defined(NAX_NO_TAPE) && !defined(NAX_TAPE_RECORDING)
#define NAX_TAPE_RECORDING 1
#endif
#include "core/array.hpp"
#include "core/config.hpp"
#include "core/errors.hpp"
#include "core/foreign_view.hpp"
#include "core/print.hpp"
#include "expr/axis_index.hpp"
#include "expr/bitwise.hpp"
#include "expr/contract.hpp"
#include "expr/creation.hpp"
#include "expr/gather_layouts.hpp"
#include "expr/index.hpp"
#include "expr/join.hpp"
#include "expr/math.hpp"
#include "expr/nn.hpp"
#include "expr/reduce.hpp"
#include "expr/reduce_compositions.hpp"
#include "expr/relayout.hpp"
#include "expr/quantile.hpp"
#include "expr/scan.hpp"
#include "expr/sort.hpp"
#include "backend/host/assign.hpp"
#include "backend/host/contract.hpp"
#include "backend/host/join.hpp"
#include "backend/host/reduce.hpp"
#include "backend/host/evaluate.hpp"
#include "backend/host/index.hpp"
#include "backend/host/scan.hpp"
#include "backend/host/sort.hpp"
#include "transform/collectives.hpp"
#include "transform/vmap.hpp"
#include "mesh/global_array.hpp"
#include "mesh/traffic.hpp"
#include "transform/xmap.hpp"
#include "random/random.hpp"
#include "tree/tree.hpp"
#include "autodiff.hpp"
