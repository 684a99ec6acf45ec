# Functions every lesson uses. Read lessons/*/CMakeLists.txt for examples.

# course_exercise_library(<name>
#     LESSON <NN_slug>                 folder name under lessons/ and solutions/
#     EXERCISES <files...>             exercise files, relative to the lesson folder
#                                      (lessons/NN_slug/<f> or solutions/NN_slug/<f>)
#     [SOURCES <files...>]             read-only sources in lessons/NN_slug
#     [DEPS <targets...>])             earlier lessons: link their *_ref targets
#
# Makes two static libraries:
#   <name>_ref  always built from solutions/ (what later lessons and tests compare with)
#   <name>      built from COURSE_IMPL; an alias of <name>_ref when that is solutions
#               or when the lesson number is in COURSE_FROM_SOLUTIONS.
# Never link <name> and <name>_ref into one program: they define the same symbols.
function(course_exercise_library name)
  cmake_parse_arguments(ARG "" "LESSON" "EXERCISES;SOURCES;DEPS" ${ARGN})
  if(NOT ARG_LESSON)
    message(FATAL_ERROR "course_exercise_library(${name}): LESSON is required")
  endif()
  string(SUBSTRING ${ARG_LESSON} 0 2 number)
  set(lesson_dir ${CMAKE_SOURCE_DIR}/lessons/${ARG_LESSON})

  set(readonly "")
  foreach(f IN LISTS ARG_SOURCES)
    list(APPEND readonly ${lesson_dir}/${f})
  endforeach()

  foreach(impl ref own)
    if(impl STREQUAL "ref")
      set(root ${CMAKE_SOURCE_DIR}/solutions/${ARG_LESSON})
      set(target ${name}_ref)
    else()
      if(COURSE_IMPL STREQUAL "solutions" OR number IN_LIST COURSE_FROM_SOLUTIONS)
        add_library(${name} ALIAS ${name}_ref)
        continue()
      endif()
      set(root ${lesson_dir})
      set(target ${name})
    endif()
    set(sources ${readonly})
    foreach(f IN LISTS ARG_EXERCISES)
      if(NOT EXISTS ${root}/${f})
        message(FATAL_ERROR "exercise file ${root}/${f} is missing")
      endif()
      list(APPEND sources ${root}/${f})
    endforeach()
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC ${lesson_dir})
    target_link_libraries(${target} PUBLIC course_common ${ARG_DEPS})
    set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF
                                               POSITION_INDEPENDENT_CODE ON)
    course_cuda_options(${target})
  endforeach()
endfunction()

# Warnings and nvcc flags shared by every target with CUDA sources.
function(course_cuda_options target)
  target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
      $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo -Xcompiler=-Wall>)
endfunction()

# course_add_tests(<executable>
#     LESSON <NN>                       the lesson number: the CTest label
#     SOURCES <files...>                Catch2 test files (.cpp)
#     LIBS <targets...>                 what the tests link
#     STEPS <NN.k:name ...>             one CTest test per step, running the Catch2 tag [NN.k];
#                                       the test is called NN.k-name
#     [CASES <tag:name ...>]            other CTest tests (not exercise steps): tag [tag], named NN-name
#     [GPU]                             needs a CUDA device: reported SKIPPED without one
#     [MNIST])                          needs the real MNIST files: SKIPPED without them
function(course_add_tests exe)
  cmake_parse_arguments(ARG "GPU;MNIST" "LESSON" "SOURCES;LIBS;STEPS;CASES" ${ARGN})
  # test_main.cpp is tiny (no Catch2 in it): it checks what the tests need, then runs them.
  add_executable(${exe} ${ARG_SOURCES} ${CMAKE_SOURCE_DIR}/tests/support/test_main.cpp)
  target_link_libraries(${exe} PRIVATE course_test_support ${ARG_LIBS})
  target_compile_definitions(${exe} PRIVATE
      COURSE_TEST_NEEDS_GPU=$<BOOL:${ARG_GPU}> COURSE_TEST_NEEDS_MNIST=$<BOOL:${ARG_MNIST}>)
  set(labels ${ARG_LESSON})
  if(ARG_GPU)
    list(APPEND labels gpu)
  else()
    list(APPEND labels cpu)
  endif()
  if(ARG_MNIST)
    list(APPEND labels mnist)
  endif()
  set(entries "")
  foreach(step IN LISTS ARG_STEPS)
    string(REPLACE ":" ";" parts "${step}")
    list(GET parts 0 tag)
    list(GET parts 1 title)
    list(APPEND entries "${tag}|${tag}-${title}")
  endforeach()
  foreach(c IN LISTS ARG_CASES)
    string(REPLACE ":" ";" parts "${c}")
    list(GET parts 0 tag)
    list(GET parts 1 title)
    list(APPEND entries "${tag}|${ARG_LESSON}-${title}")
  endforeach()
  if(NOT entries)
    message(FATAL_ERROR "course_add_tests(${exe}): give STEPS or CASES")
  endif()
  foreach(entry IN LISTS entries)
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 tag)
    list(GET parts 1 test_name)
    get_property(strict GLOBAL PROPERTY COURSE_CATCH_STRICT_ARGS)
    add_test(NAME ${test_name}
             COMMAND ${exe} "[${tag}]" ${strict} --order rand --rng-seed 1
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
    set_tests_properties(${test_name} PROPERTIES
        LABELS "${labels}"
        SKIP_RETURN_CODE 77)
  endforeach()
endfunction()

# course_add_program_test(<test name> LABELS <labels...> COMMAND <program> [args...]
#                         [EXPECT_RC <n>|nonzero] [MATCH <regex>])
# Runs a lesson program; passes when its exit code and output are as expected
# (e.g. a bad flag must give a one-line error and a non-zero exit).
function(course_add_program_test name)
  cmake_parse_arguments(ARG "" "EXPECT_RC;MATCH" "LABELS;COMMAND" ${ARGN})
  if(NOT DEFINED ARG_EXPECT_RC)
    set(ARG_EXPECT_RC 0)
  endif()
  list(POP_FRONT ARG_COMMAND program)
  set(command_line "$<TARGET_FILE:${program}>")
  if(ARG_COMMAND)
    string(APPEND command_line ";${ARG_COMMAND}")
  endif()
  string(REPLACE ";" "\\;" match "${ARG_MATCH}")
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command_line}"
                   -DEXPECT_RC=${ARG_EXPECT_RC} "-DMATCH=${match}"
                   -P ${CMAKE_SOURCE_DIR}/tests/support/run_program.cmake
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
