# Functions every lesson uses. Read lessons/*/CMakeLists.txt for examples.

# course_exercise_library(<name>
#     LESSON <NN_slug>                 folder name under lessons/ and solutions/
#     EXERCISES <files...>             exercise files, relative to the lesson folder
#                                      (lessons/NN_slug/<f> or solutions/NN_slug/<f>)
#     [SOURCES <files...>]             read-only sources in lessons/NN_slug
#     [DEPS <targets...>]              earlier lessons: link their *_ref targets
#     [ON <exercise library>]          an earlier exercise library of this lesson: <name> links it,
#                                      <name>_ref links its _ref (your steps under yours)
#     [DEFINITIONS <definitions...>]   compile definitions, public
#     [MIN_ARCH <NN>]                  code that needs compute capability NN.0: a build whose
#                                      architectures are all older also gets sm_NN, so that the
#                                      code is always compiled (its launchers refuse older GPUs)
#     [SM90A_SOURCES <files...>])      read-only sources compiled for sm_90a alone, whatever the
#                                      build's architectures (Hopper's own instructions: wgmma,
#                                      setmaxnreg); they may include exercise headers
#
# Makes two static libraries:
#   <name>_ref  always built from solutions/ (what later lessons and tests compare with)
#   <name>      built from COURSE_IMPL; an alias of <name>_ref when that is solutions
#               or when the lesson number is in COURSE_FROM_SOLUTIONS.
# Never link <name> and <name>_ref into one program: they define the same symbols.
function(course_exercise_library name)
  cmake_parse_arguments(ARG "" "LESSON;MIN_ARCH;ON" "EXERCISES;SOURCES;DEPS;SM90A_SOURCES;DEFINITIONS" ${ARGN})
  if(NOT ARG_LESSON)
    message(FATAL_ERROR "course_exercise_library(${name}): LESSON is required")
  endif()
  string(SUBSTRING ${ARG_LESSON} 0 2 number)
  set(lesson_dir ${CMAKE_SOURCE_DIR}/lessons/${ARG_LESSON})

  set(readonly "")
  foreach(f IN LISTS ARG_SOURCES)
    list(APPEND readonly ${lesson_dir}/${f})
  endforeach()

  # Remembered for the tests' failure messages: which files hold each step (course_add_tests).
  set(own_root lessons)
  if(COURSE_IMPL STREQUAL "solutions" OR number IN_LIST COURSE_FROM_SOLUTIONS)
    set(own_root solutions)
  endif()
  foreach(f IN LISTS ARG_EXERCISES)
    set_property(GLOBAL APPEND PROPERTY COURSE_EXERCISES_${number} ${ARG_LESSON}/${f})
  endforeach()
  set_property(GLOBAL PROPERTY COURSE_EXERCISE_ROOT_${number} ${own_root})

  foreach(impl ref own)
    set(on "")
    if(impl STREQUAL "ref")
      set(root ${CMAKE_SOURCE_DIR}/solutions/${ARG_LESSON})
      set(target ${name}_ref)
      if(ARG_ON)
        set(on ${ARG_ON}_ref)
      endif()
    else()
      if(own_root STREQUAL "solutions")
        add_library(${name} ALIAS ${name}_ref)
        continue()
      endif()
      set(root ${lesson_dir})
      set(target ${name})
      set(on ${ARG_ON})
    endif()
    set(sources ${readonly})
    foreach(f IN LISTS ARG_EXERCISES)
      if(NOT EXISTS ${root}/${f})
        message(FATAL_ERROR "exercise file ${root}/${f} is missing")
      endif()
      list(APPEND sources ${root}/${f})
    endforeach()
    add_library(${target} STATIC ${sources})
    # <exercises/x.cuh> (an exercise header, included with <>) resolves to this build's copy:
    # solutions/ or lessons/ ("" would look next to the including file first).
    target_include_directories(${target} BEFORE PRIVATE ${root})
    target_include_directories(${target} PUBLIC ${lesson_dir})
    target_link_libraries(${target} PUBLIC course_common ${on} ${ARG_DEPS})
    if(ARG_DEFINITIONS)
      target_compile_definitions(${target} PUBLIC ${ARG_DEFINITIONS})
    endif()
    set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF
                                               POSITION_INDEPENDENT_CODE ON)
    course_cuda_options(${target})
    if(ARG_MIN_ARCH)
      set(archs ${CMAKE_CUDA_ARCHITECTURES})
      set(all_older TRUE)
      foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
        string(REGEX MATCH "^[0-9]+" arch_number "${arch}")
        if(NOT arch_number OR arch_number GREATER_EQUAL ${ARG_MIN_ARCH})
          set(all_older FALSE)  # native, all, or new enough
        endif()
      endforeach()
      if(all_older)
        list(APPEND archs ${ARG_MIN_ARCH})
      endif()
      set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${archs}")
    endif()
    if(ARG_SM90A_SOURCES)
      set(sm90a_sources "")
      foreach(f IN LISTS ARG_SM90A_SOURCES)
        list(APPEND sm90a_sources ${lesson_dir}/${f})
      endforeach()
      add_library(${target}_sm90a OBJECT ${sm90a_sources})
      target_include_directories(${target}_sm90a BEFORE PRIVATE ${root})
      target_include_directories(${target}_sm90a PRIVATE ${lesson_dir})
      target_link_libraries(${target}_sm90a PRIVATE course_common ${ARG_DEPS})
      set_target_properties(${target}_sm90a PROPERTIES CUDA_ARCHITECTURES 90a-real POSITION_INDEPENDENT_CODE ON)
      course_cuda_options(${target}_sm90a)
      target_sources(${target} PRIVATE $<TARGET_OBJECTS:${target}_sm90a>)
    endif()
  endforeach()
endfunction()

# course_given_library(<name> ON <exercise library> SOURCES <files...> [LIBS <targets...>]
#     [DEFINITIONS <definitions...>])
# Given code of a lesson that calls the lesson's exercises, built twice:
#   <name>      on <exercise library>: the learner's (their lesson's programs run their code)
#   <name>_ref  on <exercise library>_ref: the solutions' (what later lessons link: a slip in an
#               earlier lesson never stops them)
# In a build from solutions they are one library (<name>_ref an alias of <name>).
function(course_given_library name)
  cmake_parse_arguments(ARG "" "ON" "SOURCES;LIBS;DEFINITIONS" ${ARGN})
  foreach(suffix "" "_ref")
    if(suffix STREQUAL "_ref")
      get_target_property(aliased ${ARG_ON} ALIASED_TARGET)
      if(aliased)
        add_library(${name}_ref ALIAS ${name})
        continue()
      endif()
    endif()
    add_library(${name}${suffix} STATIC ${ARG_SOURCES})
    target_include_directories(${name}${suffix} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
    target_link_libraries(${name}${suffix} PUBLIC ${ARG_ON}${suffix} ${ARG_LIBS})
    if(ARG_DEFINITIONS)
      target_compile_definitions(${name}${suffix} PUBLIC ${ARG_DEFINITIONS})
    endif()
    course_cuda_options(${name}${suffix})
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
#     [MIN_CC <NN>] [MIN_GPUS <n>]      ... of compute capability NN or newer, n of them
#     [MNIST])                          needs the real MNIST files: SKIPPED without them
function(course_add_tests exe)
  # MIN_CC 80: the GPU tests need compute capability 8.0 or newer (SKIPPED on an older GPU).
  # MIN_GPUS 2: the GPU tests need two GPUs or more (SKIPPED with fewer).
  cmake_parse_arguments(ARG "GPU;MNIST" "LESSON;MIN_CC;MIN_GPUS" "SOURCES;LIBS;STEPS;CASES" ${ARGN})
  if(NOT ARG_MIN_CC)
    set(ARG_MIN_CC 0)
  endif()
  if(NOT ARG_MIN_GPUS)
    set(ARG_MIN_GPUS 1)
  endif()
  # test_main.cpp is tiny (no Catch2 in it): it checks what the tests need, then runs them.
  add_executable(${exe} ${ARG_SOURCES} ${CMAKE_SOURCE_DIR}/tests/support/test_main.cpp)
  target_link_libraries(${exe} PRIVATE course_test_support ${ARG_LIBS})
  target_compile_definitions(${exe} PRIVATE
      COURSE_TEST_NEEDS_GPU=$<BOOL:${ARG_GPU}> COURSE_TEST_NEEDS_MNIST=$<BOOL:${ARG_MNIST}>
      COURSE_TEST_MIN_CC=${ARG_MIN_CC} COURSE_TEST_MIN_GPUS=${ARG_MIN_GPUS})
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
    set_property(GLOBAL APPEND PROPERTY COURSE_STEPS_${ARG_LESSON} ${tag})
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
  course_tests_run(${exe} LABELS ${labels})
  course_require_builds_at_end()
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
    if(test_name MATCHES "^[0-9][0-9]\\.[0-9]+-")
      course_step_hint(${tag} hint)
      set_tests_properties(${test_name} PROPERTIES ENVIRONMENT "COURSE_STEP_HINT=${hint}")
    endif()
  endforeach()
endfunction()

# course_step_hint(<NN.k> <out var>): the line a failing step's test ends with, naming the
# exercise file(s) and function(s) to edit and the command that checks the step again. Where each
# step is written comes from cmake/ExerciseSteps.cmake, made from the shipped stubs' TODO(NN.k)
# markers (tools/exercise_steps.py), never from the learner's copy: a learner deletes a marker once
# the step is written, and neither their configure nor the hint may depend on it.
include(${CMAKE_CURRENT_LIST_DIR}/ExerciseSteps.cmake)
function(course_step_hint step out)
  string(SUBSTRING ${step} 0 2 number)
  get_property(root GLOBAL PROPERTY COURSE_EXERCISE_ROOT_${number})
  set(places "")
  foreach(place IN LISTS COURSE_STEP_PLACES_${step})
    list(APPEND places "${root}/${place}")
  endforeach()
  if(NOT places)  # a step the list does not know yet: name the lesson's exercise files
    get_property(files GLOBAL PROPERTY COURSE_EXERCISES_${number})
    foreach(f IN LISTS files)
      list(APPEND places "${root}/${f}")
    endforeach()
  endif()
  list(JOIN places " and " where)
  set(preset ${COURSE_IMPL})
  set(${out} "step ${step} is not right yet: edit ${where}, then run: cmake --build --preset ${preset} --target check_${step}" PARENT_SCOPE)
endfunction()

# course_lesson_targets(<NN> <folders...>): after a lesson's folders are added,
#   lesson_NN     builds its library, program and tests (and what they link)
#   check_NN      builds lesson_NN, then runs the lesson's tests and the summary line
#   check_NN.k    the same for one step
function(course_lesson_targets number)
  set(targets "")
  foreach(dir IN LISTS ARGN)
    get_property(in_dir DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    list(APPEND targets ${in_dir})
  endforeach()
  add_custom_target(lesson_${number})
  if(targets)
    add_dependencies(lesson_${number} ${targets})
  endif()
  set(run ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/run_tests.py --build-dir ${CMAKE_BINARY_DIR})
  add_custom_target(check_${number} COMMAND ${run} --lesson ${number} USES_TERMINAL
                    COMMENT "lesson ${number}: running its tests")
  add_dependencies(check_${number} lesson_${number})
  get_property(steps GLOBAL PROPERTY COURSE_STEPS_${number})
  list(REMOVE_DUPLICATES steps)  # a step tested by two programs (CPU and GPU) is still one step
  foreach(step IN LISTS steps)
    add_custom_target(check_${step} COMMAND ${run} --step ${step} USES_TERMINAL
                      COMMENT "step ${step}: running its tests")
    add_dependencies(check_${step} lesson_${number})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY COURSE_LESSON_TARGETS lesson_${number})
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
  course_tests_run(${program} LABELS ${ARG_LABELS})
  course_require_builds_at_end()
  set(command_line "$<TARGET_FILE:${program}>")
  if(ARG_COMMAND)
    string(APPEND command_line ";${ARG_COMMAND}")
  endif()
  string(REPLACE ";" "\\;" match "${ARG_MATCH}")
  # Label mnist: the test needs the real MNIST files, looked for when it runs (a fresh clone has
  # none until data/fetch_mnist.sh): without them it is reported as SKIPPED, never as failed or passed.
  set(needs_data "")
  if("mnist" IN_LIST ARG_LABELS)
    set(needs_data "-DNEEDS_DATA=${COURSE_DATA_DIR}/mnist")
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} "-DCOMMAND=${command_line}"
                   -DEXPECT_RC=${ARG_EXPECT_RC} "-DMATCH=${match}" ${needs_data}
                   -P ${CMAKE_SOURCE_DIR}/tests/support/run_program.cmake
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" SKIP_REGULAR_EXPRESSION "^SKIPPED: ")
endfunction()

# course_tests_run(<target> LABELS <labels...>): tests with these labels run <target>. A lesson's
# build target (lesson_NN, which check_NN and check_NN.k build first) then builds it too, wherever it
# is defined (a lesson's study sits in programs/), so no test of the lesson finds its program missing.
function(course_tests_run target)
  cmake_parse_arguments(ARG "" "" "LABELS" ${ARGN})
  foreach(label IN LISTS ARG_LABELS)
    if(label MATCHES "^[0-9][0-9]$")
      set_property(GLOBAL APPEND PROPERTY COURSE_TEST_TARGETS_${label} ${target})
    endif()
  endforeach()
endfunction()

# course_buildable_targets(<dir> <out var>): every target the default build ('all') builds, in <dir>
# and below it.
function(course_buildable_targets dir out)
  set(found "")
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    get_target_property(excluded ${t} EXCLUDE_FROM_ALL)
    if(NOT type STREQUAL "UTILITY" AND NOT type STREQUAL "INTERFACE_LIBRARY" AND NOT excluded)
      list(APPEND found ${t})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    course_buildable_targets(${sub} below)
    list(APPEND found ${below})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# course_require_builds(): every test defined so far in the current folder needs the build of
# what it runs (course_finish_targets adds those builds as tests). A lesson's tests need its
# lesson_NN; the rest (common/, the framework, the programs, bad input) everything; the documents'
# and data scripts' tests, and a test with the property COURSE_RUNS_NO_BUILD, nothing.
# course_add_tests and course_add_program_test schedule it for the end of their folder; a folder
# that only calls add_test schedules it itself (course_require_builds_at_end).
function(course_require_builds)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} COURSE_RUNS_NO_BUILD no_build)
    if(no_build)
      continue()
    endif()
    get_test_property(${test} LABELS labels)
    set(fixture course_build_all)
    foreach(label IN LISTS labels)
      if(label MATCHES "^[0-9][0-9]$")
        set(fixture course_build_${label})
      elseif(label STREQUAL "docs" OR label STREQUAL "data" OR label STREQUAL "build")
        set(fixture "")
        break()
      endif()
    endforeach()
    get_test_property(${test} FIXTURES_REQUIRED required)
    if(fixture AND NOT fixture IN_LIST required)
      set_property(TEST ${test} APPEND PROPERTY FIXTURES_REQUIRED ${fixture})
      set_property(GLOBAL APPEND PROPERTY COURSE_BUILD_FIXTURES ${fixture})
    endif()
  endforeach()
endfunction()

# Schedules course_require_builds once for the end of the current folder.
function(course_require_builds_at_end)
  get_property(scheduled DIRECTORY PROPERTY COURSE_BUILDS_SCHEDULED)
  if(NOT scheduled)
    set_property(DIRECTORY PROPERTY COURSE_BUILDS_SCHEDULED TRUE)
    cmake_language(DEFER CALL course_require_builds)
  endif()
endfunction()

# course_finish_targets(): after every folder is added. `check` builds everything the default build
# does (every test's program is there, wherever it is defined), and each lesson_NN also builds the
# programs its tests run outside its folders.
#
# CTest run directly (ctest --preset lessons -R '^01.1') builds first too: each lesson's tests need
# the fixture of a test `build-lesson_NN` that builds lesson_NN, and the tests of common/, the
# framework and the programs one that builds everything, so a test never runs an old binary. The
# check targets have just built what they test: tools/run_tests.py leaves these builds out.
function(course_finish_targets)
  course_buildable_targets(${CMAKE_SOURCE_DIR} everything)
  add_dependencies(check ${everything})
  get_property(lesson_targets GLOBAL PROPERTY COURSE_LESSON_TARGETS)
  foreach(lesson_target IN LISTS lesson_targets)
    string(REPLACE "lesson_" "" number ${lesson_target})
    get_property(runs GLOBAL PROPERTY COURSE_TEST_TARGETS_${number})
    if(runs)
      list(REMOVE_DUPLICATES runs)
      add_dependencies(${lesson_target} ${runs})
    endif()
  endforeach()

  get_property(fixtures GLOBAL PROPERTY COURSE_BUILD_FIXTURES)
  list(REMOVE_DUPLICATES fixtures)
  foreach(fixture IN LISTS fixtures)
    if(fixture STREQUAL "course_build_all")
      set(name build-everything)
      set(target all)
    else()
      string(REPLACE "course_build_" "" number ${fixture})
      set(name build-lesson_${number})
      set(target lesson_${number})
    endif()
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} --build ${CMAKE_BINARY_DIR} --target ${target})
    # One build at a time in this folder; a first build may take a while.
    set_tests_properties(${name} PROPERTIES FIXTURES_SETUP ${fixture} RESOURCE_LOCK course_build
                                            LABELS build TIMEOUT 7200)
  endforeach()
endfunction()
