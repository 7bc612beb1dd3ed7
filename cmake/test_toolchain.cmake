# The test preset's compiler (CMakePresets.json, "toolchainFile"). CI's time is bound by
# compiling the tests at -O0, and clang 16 compiles them about a third faster than g++ 12, in
# less memory (docs/compile_time.md, "g++ and clang"). So the tests are built with clang++-16
# where it is installed with its OpenMP runtime (tools/install_deps.sh installs both where the
# distribution has them), else with the default C++ compiler, g++ (NAX_CHEAP_O0, CMakeLists.txt,
# then adds the flags that make g++'s -O0 compiles cheaper). nvcc's host compiler stays g++
# either way (CMake leaves nvcc's default), so where nvcc is installed, as in CI, nax is
# compiled with both. A compiler chosen by the user (-DCMAKE_CXX_COMPILER=..., or CXX in the
# environment) wins, and so does the one an existing build folder was configured with: delete
# build/test to switch.
if(NOT DEFINED CMAKE_CXX_COMPILER AND NOT DEFINED ENV{CXX})
  find_program(NAX_TEST_CLANGXX NAMES clang++-16 DOC "clang++ 16, for the test preset")
  # Only with its OpenMP runtime (libomp-16-dev, next to the compiler in Debian's layout:
  # /usr/lib/llvm-16/lib); without it clang could not build nax, and g++ can.
  if(NAX_TEST_CLANGXX)
    get_filename_component(_nax_clang_bin "${NAX_TEST_CLANGXX}" REALPATH)
    get_filename_component(_nax_clang_bin "${_nax_clang_bin}" DIRECTORY)
    if(EXISTS "${_nax_clang_bin}/../lib/libomp.so")
      set(CMAKE_CXX_COMPILER "${NAX_TEST_CLANGXX}")
    endif()
  endif()
endif()
