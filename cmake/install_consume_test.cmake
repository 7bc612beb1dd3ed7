# The install_consume test: install nax from its build tree into a scratch prefix, then configure,
# build and run tests/install/ (an outside project using find_package(nax)) against that prefix.
# cmake -DNAX_BINARY_DIR=... -DCONSUMER_SOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=...
#       -DMAKE_PROGRAM=... -DCXX_COMPILER=... -P install_consume_test.cmake
set(_prefix "${WORK_DIR}/prefix")
set(_build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(JOIN " " cmdline ${ARGN})
    message(FATAL_ERROR "install_consume: ${what} failed (exit ${rc}):\n${cmdline}\n${out}")
  endif()
  message(STATUS "install_consume: ${what}: ok")
endfunction()

run_step("cmake --install" "${CMAKE_COMMAND}" --install "${NAX_BINARY_DIR}" --prefix "${_prefix}")
set(_configure "${CMAKE_COMMAND}" -S "${CONSUMER_SOURCE_DIR}" -B "${_build}" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${_prefix}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    -DCMAKE_BUILD_TYPE=Release)
if(MAKE_PROGRAM)
  list(APPEND _configure "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
# The consumer must not see the source tree: CMAKE_PREFIX_PATH is its only way to nax.
run_step("configure consumer" ${_configure})
run_step("build consumer" "${CMAKE_COMMAND}" --build "${_build}")
run_step("run consumer" "${_build}/nax_consumer")
