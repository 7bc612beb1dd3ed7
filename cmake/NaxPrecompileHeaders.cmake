# nax_precompile_headers(<target> [HEADERS <header>...])
#
# Precompiles <nax/nax.hpp> (or the headers given) once for the C++ sources of <target>, which
# links nax::nax. Each source then starts from the parsed header instead of reading about
# 166,000 preprocessed lines again: the part of a compile that does not depend on what the
# source does (README, "Compile time", measures it). Sources in other languages (CUDA: nvcc has
# no precompiled headers) are left alone. A header given as <a/b.hpp> is found on the include
# path, as "a/b.hpp" relative to the current source directory (target_precompile_headers).
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
    list(APPEND _headers "$<$<COMPILE_LANGUAGE:CXX>:${_header}>")
  endforeach()
  target_precompile_headers("${target}" PRIVATE ${_headers})
endfunction()
