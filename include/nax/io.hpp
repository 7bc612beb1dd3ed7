// Umbrella header of nax's file formats: numpy's .npy (nax::io::save_npy, nax::io::load_npy) and
// .npz pytrees, the checkpoints (nax::io::save_tree, nax::io::load_tree); and DLPack, memory
// shared with other libraries without a copy (nax::to_dlpack, nax::from_dlpack).
// Not part of <nax/nax.hpp>: it brings <filesystem> and <fstream>, which a program that reads
// no files need not compile.
#pragma once
#include "io/dlpack.hpp"
#include "io/npy.hpp"
#include "io/npz.hpp"
