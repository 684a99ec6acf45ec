# The toolchain file of the presets a lesson folder offers (cmake/LessonFolderPresets.json): the
# course is configured from the repository root only; a lesson folder cannot be built alone.
# It stops CMake with one message. The build tool and compilers are named first, only so that CMake
# adds no errors of its own after that message; the presets' build folder is outside the repository
# (/tmp, one folder per lesson folder of each checkout), so nothing is left in it.
get_filename_component(course_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
find_program(CMAKE_MAKE_PROGRAM NAMES ninja ninja-build make)
find_program(CMAKE_C_COMPILER NAMES cc gcc clang)
find_program(CMAKE_CXX_COMPILER NAMES c++ g++ clang++)
message(FATAL_ERROR "run CMake from the repository root, where CMakePresets.json is:\n"
                    "  cd ${course_root} && cmake --preset lessons\n"
                    "(cmake --build --preset lessons and ctest --preset lessons also work from a lesson folder)")
