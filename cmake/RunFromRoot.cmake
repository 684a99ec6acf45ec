# The course is configured from the repository root only; a lesson folder cannot be built alone.
# Two ways in: the toolchain file of the presets a lesson folder offers (cmake/LessonFolderPresets.json,
# whose build folder is under /tmp), and the first lines of every lesson's CMakeLists.txt when CMake
# is run on the lesson folder itself (`cmake .`). Either way CMake stops with one message and leaves
# nothing behind.
get_filename_component(course_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

# CMake writes its cache and CMakeFiles/ as it stops, after this file has run: a process that outlives
# CMake removes what this configure made (only what CMake makes, only in a folder that is not a build
# of the course).
set(course_tmp_root /tmp/cnn-course-configured-from-a-lesson-folder)
string(FIND "${CMAKE_BINARY_DIR}/" "${course_tmp_root}/" under_tmp_root)
string(FIND "${CMAKE_BINARY_DIR}/" "${CMAKE_SOURCE_DIR}/" under_source)
if(under_tmp_root EQUAL 0)
  get_filename_component(parent "${CMAKE_BINARY_DIR}" DIRECTORY)
  file(RELATIVE_PATH relative /tmp "${parent}")
  set(cleanup "rm -rf '${CMAKE_BINARY_DIR}'; cd /tmp && rmdir -p --ignore-fail-on-non-empty '${relative}'")
elseif(under_source EQUAL 0)  # `cmake .` or `cmake -B build` in the lesson folder
  set(cleanup "rm -rf '${CMAKE_BINARY_DIR}/CMakeCache.txt' '${CMAKE_BINARY_DIR}/CMakeFiles'; rmdir '${CMAKE_BINARY_DIR}'")
endif()
if(cleanup)
  execute_process(COMMAND sh -c "(sleep 1; ${cleanup}) >/dev/null 2>&1 &")
endif()

if(NOT CMAKE_MAKE_PROGRAM)  # named only so that CMake adds no errors of its own after the message
  find_program(CMAKE_MAKE_PROGRAM NAMES ninja ninja-build make)
endif()
message(FATAL_ERROR "run CMake from the repository root, not from a lesson folder: cd ${course_root} && cmake --preset lessons\n"
                    "(cmake --build --preset lessons and ctest --preset lessons also work from a lesson folder)")
