# Runs one program and checks its exit code and output. Used by course_add_program_test:
#   cmake -DCOMMAND=<prog;args> -DEXPECT_RC=<n|nonzero> -DMATCH=<regex> -P run_program.cmake
#   [-DNEEDS_DATA=<folder>]: the MNIST files the program reads; without them the test prints
#   "SKIPPED: ..." (the test's SKIP_REGULAR_EXPRESSION) and runs nothing.
if(DEFINED NEEDS_DATA)
  foreach(f train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte)
    if(NOT EXISTS "${NEEDS_DATA}/${f}")
      message("SKIPPED: this test needs MNIST in ${NEEDS_DATA}; run data/fetch_mnist.sh")
      return()
    endif()
  endforeach()
endif()
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(EXPECT_RC STREQUAL "nonzero")
  if(rc EQUAL 0)
    message(FATAL_ERROR "expected a non-zero exit code, got 0")
  endif()
elseif(NOT rc EQUAL EXPECT_RC)
  message(FATAL_ERROR "expected exit code ${EXPECT_RC}, got ${rc}")
endif()
if(DEFINED MATCH AND NOT "${out}${err}" MATCHES "${MATCH}")
  message(FATAL_ERROR "output does not match: ${MATCH}")
endif()
