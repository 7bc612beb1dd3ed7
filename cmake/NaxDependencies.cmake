# Dependency helpers for nax's own build (not installed).
# A missing dependency stops configure with the Debian package that provides it.

# nax_require_package(<find_package name> <debian package> [find_package args...])
macro(nax_require_package _nax_name _nax_debian)
  find_package(${_nax_name} ${ARGN} QUIET)
  if(NOT ${_nax_name}_FOUND)
    message(FATAL_ERROR
      "nax: required dependency '${_nax_name}' was not found.\n"
      "  On Debian/Ubuntu install it with:  sudo apt-get install ${_nax_debian}\n"
      "  (or point CMAKE_PREFIX_PATH at an installation of ${_nax_name}).")
  endif()
endmacro()

# nax_find_openblas_cblas(<result var>)
# Looks for OpenBLAS's CBLAS (Debian: libopenblas-dev). On success defines the imported
# target nax_openblas_cblas (cblas.h include dir + libopenblas) and sets <result var> ON.
function(nax_find_openblas_cblas _nax_result)
  if(TARGET nax_openblas_cblas)
    set(${_nax_result} ON PARENT_SCOPE)
    return()
  endif()
  # Debian's OpenBLASConfig.cmake points at the active variant (pthread/openmp/serial).
  find_package(OpenBLAS CONFIG QUIET)
  set(_hint_inc "")
  set(_hint_lib "")
  if(OpenBLAS_FOUND)
    set(_hint_inc ${OpenBLAS_INCLUDE_DIRS})
    foreach(_lib IN LISTS OpenBLAS_LIBRARIES)
      get_filename_component(_dir "${_lib}" DIRECTORY)
      list(APPEND _hint_lib "${_dir}")
    endforeach()
  endif()
  find_path(NAX_CBLAS_INCLUDE_DIR cblas.h
    HINTS ${_hint_inc}
    PATH_SUFFIXES openblas-pthread openblas-openmp openblas-serial openblas
    DOC "Directory holding OpenBLAS's cblas.h")
  find_library(NAX_OPENBLAS_LIBRARY NAMES openblas
    HINTS ${_hint_lib}
    DOC "The OpenBLAS library (provides the CBLAS symbols)")
  if(NAX_CBLAS_INCLUDE_DIR AND NAX_OPENBLAS_LIBRARY)
    add_library(nax_openblas_cblas INTERFACE IMPORTED GLOBAL)
    set_target_properties(nax_openblas_cblas PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${NAX_CBLAS_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${NAX_OPENBLAS_LIBRARY}")
    message(STATUS "nax: OpenBLAS CBLAS: ${NAX_OPENBLAS_LIBRARY} (${NAX_CBLAS_INCLUDE_DIR}/cblas.h)")
    set(${_nax_result} ON PARENT_SCOPE)
  else()
    set(${_nax_result} OFF PARENT_SCOPE)
  endif()
endfunction()
