// Umbrella of the tree layer: pytrees (Hana structs, tuples, std::array of arrays, expressions
// and numbers) and the compile-time walks over them: tree_map, tree_leaves, tree_reduce,
// nax::tuple. Includes <boost/hana/define_struct.hpp> so that BOOST_HANA_DEFINE_STRUCT is at hand.
#pragma once
#include <boost/hana/define_struct.hpp>

#include "cast.hpp"
#include "leaves.hpp"
#include "map.hpp"
#include "reduce.hpp"
#include "structure.hpp"
#include "traits.hpp"
#include "tuple.hpp"
