# Runs one compile-fail snippet (see tests/compile_fail/CMakeLists.txt).
# cmake -DSNIPPET=<file.cpp> -DCOMMAND_FILE=<compile_fail_command.cmake> -P compile_fail_test.cmake
# Passes iff the snippet's leading "// expect: <regex>" lines all match the compiler output of a
# failing compile, or, for "// expect-compile", the compile succeeds.
include("${COMMAND_FILE}")   # NAX_CF_COMMAND

file(READ "${SNIPPET}" _head LIMIT 8192)
string(REPLACE "\r" "" _head "${_head}")
set(_mode "")
set(_count 0)
while(_head MATCHES "^([^\n]*)\n?(.*)$")
  set(_line "${CMAKE_MATCH_1}")
  set(_rest "${CMAKE_MATCH_2}")
  if(_line MATCHES "^//[ \t]*expect-compile[ \t]*$" AND _mode STREQUAL "")
    set(_mode compile)
    break()
  elseif(_line MATCHES "^//[ \t]*expect:[ \t]*(.*[^ \t])[ \t]*$")
    set(_mode fail)
    math(EXPR _count "${_count} + 1")
    set(_regex_${_count} "${CMAKE_MATCH_1}")
  else()
    break()
  endif()
  set(_head "${_rest}")
endwhile()
if(_mode STREQUAL "")
  message(FATAL_ERROR "${SNIPPET}: the first line must be '// expect: <regex>' or '// expect-compile'")
endif()

# Deterministic diagnostics: ASCII quotes, no colours.
set(ENV{LC_ALL} C)
set(ENV{GCC_COLORS} "")
# NAX_CF_COMPILE_FLAGS (optional, from the command file): added for expect-compile snippets
# only, e.g. nvcc's -Werror all-warnings, so that a control also proves it compiles cleanly.
set(_command ${NAX_CF_COMMAND})
if(_mode STREQUAL "compile" AND DEFINED NAX_CF_COMPILE_FLAGS)
  list(APPEND _command ${NAX_CF_COMPILE_FLAGS})
endif()
# NAX_CF_CLANG_PCH (optional): clang's precompiled <nax/nax.hpp>. Used only where it changes
# nothing: the snippet's first directive includes that header, and no nax header is newer.
if(DEFINED NAX_CF_CLANG_PCH AND EXISTS "${NAX_CF_CLANG_PCH}")
  file(STRINGS "${SNIPPET}" _directives REGEX "^[ \t]*#")
  set(_first "")
  if(_directives)
    list(GET _directives 0 _first)
  endif()
  set(_use_pch OFF)
  if(_first MATCHES "^[ \t]*#[ \t]*include[ \t]*<nax/nax\\.hpp>")
    set(_use_pch ON)
    file(GLOB_RECURSE _headers "${NAX_CF_HEADERS_DIR}/*.hpp")
    foreach(_header IN LISTS _headers)
      if(NOT "${NAX_CF_CLANG_PCH}" IS_NEWER_THAN "${_header}")
        set(_use_pch OFF)
        break()
      endif()
    endforeach()
  endif()
  if(_use_pch)
    list(APPEND _command -include-pch "${NAX_CF_CLANG_PCH}")
  endif()
endif()
execute_process(COMMAND ${_command} "${SNIPPET}"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
string(JOIN " " _cmdline ${_command} "${SNIPPET}")

# On failure: the command and the raw compiler output (message() without a mode keeps it
# unwrapped), then the reason.
macro(fail reason)
  message("${_cmdline}\n${_out}")
  message(FATAL_ERROR "${SNIPPET}: ${reason}")
endmacro()

if(_mode STREQUAL "compile")
  if(NOT _rc EQUAL 0)
    fail("expected to compile (// expect-compile), but the compiler exited with ${_rc}")
  endif()
  message(STATUS "compiled, as expected")
  return()
endif()

if(_rc EQUAL 0)
  fail("expected a compile error, but the snippet compiled")
endif()
foreach(_i RANGE 1 ${_count})
  if(NOT _out MATCHES "${_regex_${_i}}")
    fail("the compile failed (exit ${_rc}) but its output does not match  // expect: ${_regex_${_i}}")
  endif()
  message(STATUS "matched: ${_regex_${_i}}")
endforeach()
