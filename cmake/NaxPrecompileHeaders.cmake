# nax_precompile_headers(<target> [HEADERS <header>...])
#
# Precompiles <nax/nax.hpp> (or the headers given) once for the C++ sources of <target>, which
# links nax::nax. Each source then starts from the parsed header instead of reading about
# 166,000 preprocessed lines again: the part of a compile that does not depend on what the
# source does (README, "Compile time", measures it). Only C++ sources get it: a target's C or
# Objective-C sources would otherwise be given a C++ header (CMake precompiles headers for C,
# C++ and Objective-C/C++; nvcc has none). A header is written as target_precompile_headers
# takes it: <a/b.hpp> or "a/b.hpp" as an #include would say it, a plain relative path relative
# to the current source directory.
function(nax_precompile_headers target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "HEADERS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "nax_precompile_headers(${target}): unexpected arguments ${arg_UNPARSED_ARGUMENTS}; "
                        "the form is nax_precompile_headers(<target> [HEADERS <header>...])")
  endif()
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "nax_precompile_headers: there is no target named '${target}'")
  endif()
  if(NOT arg_HEADERS)
    set(arg_HEADERS "<nax/nax.hpp>")
  endif()
  set(_headers)
  foreach(_header IN LISTS arg_HEADERS)
    # Inside a generator expression CMake no longer makes a relative path absolute, and a '>'
    # would end the expression: both are done here.
    if(NOT _header MATCHES "^[<\"]" AND NOT IS_ABSOLUTE "${_header}")
      set(_header "${CMAKE_CURRENT_SOURCE_DIR}/${_header}")
    endif()
    string(REPLACE ">" "$<ANGLE-R>" _header "${_header}")
    list(APPEND _headers "$<$<COMPILE_LANGUAGE:CXX>:${_header}>")
  endforeach()
  target_precompile_headers("${target}" PRIVATE ${_headers})
endfunction()
