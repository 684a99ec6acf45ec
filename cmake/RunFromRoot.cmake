# The toolchain file of the presets a lesson folder offers (cmake/LessonFolderPresets.json): the
# course is configured from the repository root only; a lesson folder cannot be built alone.
get_filename_component(course_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
message(FATAL_ERROR "run CMake from the repository root, where CMakePresets.json is: "
                    "cd ${course_root} && cmake --preset lessons "
                    "(--build --preset lessons and ctest --preset lessons also work from a lesson folder)")
