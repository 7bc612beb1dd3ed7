// Umbrella header of nax's file formats: numpy's .npy (nax::io::save_npy, nax::io::load_npy).
// Not part of <nax/nax.hpp>: it brings <filesystem> and <fstream>, which a program that reads
// no files need not compile.
#pragma once
#include "io/npy.hpp"
