# The test preset's compiler (CMakePresets.json, "toolchainFile"). CI's time is bound by
# compiling the tests at -O0, and clang 16 compiles them about a third faster than g++ 12, in
# less memory (docs/compile_time.md, "g++ and clang"). So the tests are built with clang++-16
# where it is installed (tools/install_deps.sh installs clang-16 where the distribution
# has it), else with the default C++ compiler, g++ (NAX_CHEAP_O0, CMakeLists.txt, then adds the
# flags that make g++'s -O0 compiles cheaper). nvcc's host compiler stays g++ either way (CMake
# leaves nvcc's default), so CI compiles nax with both. A compiler chosen by the user
# (-DCMAKE_CXX_COMPILER=..., or CXX in the environment) wins.
if(NOT DEFINED CMAKE_CXX_COMPILER AND NOT DEFINED ENV{CXX})
  find_program(NAX_TEST_CLANGXX NAMES clang++-16 DOC "clang++ 16, for the test preset")
  if(NAX_TEST_CLANGXX)
    set(CMAKE_CXX_COMPILER "${NAX_TEST_CLANGXX}")
  endif()
endif()
