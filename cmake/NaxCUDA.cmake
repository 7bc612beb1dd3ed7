# CUDA helpers for nax. Installed with the package: a consumer that enables CUDA before
# find_package(nax) gets nax_cuda_cxx20_workaround() applied by nax-config.cmake.

# CMake 3.25 does not know the CUDA20 dialect for nvcc ("requires the language dialect CUDA20
# ... does not support this"), also when it is inherited from cxx_std_20 on nax::nax.
# Call after enable_language(CUDA), in the directory that enabled it. A no-op where CMake
# already knows CUDA20.
macro(nax_cuda_cxx20_workaround)
  if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    if(NOT "cuda_std_20" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
      list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
    endif()
    set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
  endif()
  if(NOT DEFINED CMAKE_CUDA_STANDARD)
    set(CMAKE_CUDA_STANDARD 20)
  endif()
endmacro()

# nax_enable_cuda(<result var>): enables CUDA when an nvcc is found (CMAKE_CUDA_COMPILER,
# CUDACXX, PATH, or /usr/local/cuda/bin/nvcc), with CMAKE_CUDA_ARCHITECTURES defaulting to 90
# (there may be no GPU to detect). Sets <result var> ON or OFF. A macro because
# enable_language() must run at directory scope.
macro(nax_enable_cuda _nax_result)
  set(${_nax_result} OFF)
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(_nax_nvcc_on_path nvcc)
    if(NOT _nax_nvcc_on_path AND EXISTS /usr/local/cuda/bin/nvcc)
      set(ENV{CUDACXX} /usr/local/cuda/bin/nvcc)
    endif()
    unset(_nax_nvcc_on_path CACHE)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
      set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures to build for (nax default: 90)")
    endif()
    enable_language(CUDA)
    nax_cuda_cxx20_workaround()
    set(${_nax_result} ON)
  else()
    message(STATUS "nax: no CUDA compiler found; CUDA tests are off")
  endif()
endmacro()

# nax_cuda_backend_target(<result var>): the INTERFACE target nax_cuda_backend (nax::nax + the
# CUDA runtime, cuBLAS and NCCL) for programs that use <nax/cuda.hpp> and
# <nax/mesh/nccl_communicator.hpp>. Call after nax_enable_cuda() succeeded. Sets <result var>
# OFF (with a warning naming the package) when NCCL is missing.
function(nax_cuda_backend_target _nax_result)
  set(${_nax_result} OFF PARENT_SCOPE)
  if(TARGET nax_cuda_backend)
    set(${_nax_result} ON PARENT_SCOPE)
    return()
  endif()
  find_package(CUDAToolkit REQUIRED)
  find_library(NAX_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} DOC "NCCL library")
  find_path(NAX_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} DOC "NCCL header")
  if(NOT NAX_NCCL_LIBRARY OR NOT NAX_NCCL_INCLUDE_DIR)
    message(WARNING "nax: CUDA found but not NCCL (nccl.h and libnccl.so; Debian/Ubuntu: libnccl-dev, "
                    "from NVIDIA's CUDA repository); the CUDA tests and GPU benchmarks are off")
    return()
  endif()
  add_library(nax_cuda_backend INTERFACE)
  target_link_libraries(nax_cuda_backend INTERFACE nax::nax CUDA::cudart CUDA::cublas "${NAX_NCCL_LIBRARY}")
  target_include_directories(nax_cuda_backend INTERFACE "${NAX_NCCL_INCLUDE_DIR}")
  set(${_nax_result} ON PARENT_SCOPE)
endfunction()
