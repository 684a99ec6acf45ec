# Catch2 and stb: the system's packages first (tools/setup.sh installs them); where a
# system has none and nothing can be installed, pinned copies are downloaded once with
# FetchContent. Without a network either, configure stops with one line that names what
# is missing and the flag that points at a local copy.
include(FetchContent)

option(COURSE_FETCH_DEPS "Download pinned Catch2 v3 / stb when the system has none" ON)
# Pinned versions (SHA-256 of GitHub's archives); override the URLs to use a mirror.
set(COURSE_CATCH2_URL "https://github.com/catchorg/Catch2/archive/v3.4.0.tar.gz"
    CACHE STRING "Where configure downloads Catch2 v3 when the system has no Catch2")
set(COURSE_CATCH2_SHA256 "122928b814b75717316c71af69bd2b43387643ba076a6ec16e7882bfb2dfacbb"
    CACHE STRING "SHA-256 of COURSE_CATCH2_URL")
set(COURSE_STB_URL
    "https://github.com/nothings/stb/archive/5c205738c191bcb0abc65c4febfa9bd25ff35234.tar.gz"
    CACHE STRING "Where configure downloads stb when the system has no stb_image_write.h")
set(COURSE_STB_SHA256 "cfeab9f800961882d6d22ddf36e965523b33002f4f937de08321304c9ba72af3"
    CACHE STRING "SHA-256 of COURSE_STB_URL")

# course_fetch(<name> <url> <sha256> <what> <flag hint>): downloads and unpacks <name>
# (FetchContent, so -DFETCHCONTENT_SOURCE_DIR_<NAME>=<folder> uses a local copy instead).
# Sets <name>_SOURCE_DIR. A failed download is one line, not a page of CMake output.
function(course_fetch name url sha256 what hint)
  string(TOUPPER ${name} upper)
  if(NOT FETCHCONTENT_SOURCE_DIR_${upper})
    if(NOT COURSE_FETCH_DEPS)
      message(FATAL_ERROR "${what} not found (downloads are off: COURSE_FETCH_DEPS=OFF): "
                          "run 'bash tools/setup.sh' or pass ${hint}")
    endif()
    set(archive ${CMAKE_BINARY_DIR}/_deps/${name}-download.tar.gz)
    if(NOT EXISTS ${archive})
      message(STATUS "${what} not found on this system: downloading ${url}")
      file(DOWNLOAD ${url} ${archive}.part STATUS status TIMEOUT 120 INACTIVITY_TIMEOUT 20)
      list(GET status 0 code)
      list(GET status 1 reason)
      if(code EQUAL 0)
        file(SHA256 ${archive}.part got)
        if(NOT got STREQUAL sha256)
          set(code 1)
          set(reason "the file's SHA-256 is ${got}, not the pinned ${sha256}")
        endif()
      endif()
      if(NOT code EQUAL 0)
        file(REMOVE ${archive}.part)
        message(FATAL_ERROR "${what} not found and not downloadable (${reason}): "
                            "run 'bash tools/setup.sh' or pass ${hint}")
      endif()
      file(RENAME ${archive}.part ${archive})
    endif()
    set(url ${archive})
  endif()
  FetchContent_Declare(${name} URL ${url} URL_HASH SHA256=${sha256})
  FetchContent_MakeAvailable(${name})
  set(${name}_SOURCE_DIR ${${name}_SOURCE_DIR} PARENT_SCOPE)
endfunction()

# ---- stb_image_write.h --------------------------------------------------------------
set(STB_INCLUDE_DIR "" CACHE PATH "Folder holding stb_image_write.h (default: the system's libstb-dev)")
find_path(COURSE_STB_DIR stb_image_write.h
          HINTS ${STB_INCLUDE_DIR} PATH_SUFFIXES stb PATHS /usr/include /usr/local/include)
if(NOT COURSE_STB_DIR)
  course_fetch(stb ${COURSE_STB_URL} ${COURSE_STB_SHA256} "stb_image_write.h"
               "-DSTB_INCLUDE_DIR=<folder holding stb_image_write.h>")
  set(COURSE_STB_DIR ${stb_SOURCE_DIR} CACHE PATH "stb (downloaded)" FORCE)
endif()

# ---- Catch2 (v3, or v2.13 as Debian 12 ships it) --------------------------------------
find_package(Catch2 3 QUIET)
if(Catch2_FOUND)
  set(COURSE_CATCH_MAJOR 3)
else()
  find_package(Catch2 2.13 QUIET)
  if(Catch2_FOUND)
    set(COURSE_CATCH_MAJOR 2)
  else()
    course_fetch(catch2 ${COURSE_CATCH2_URL} ${COURSE_CATCH2_SHA256} "Catch2"
                 "-DFETCHCONTENT_SOURCE_DIR_CATCH2=<Catch2 v3 source folder> (or -DCatch2_DIR=<its CMake config>)")
    set(COURSE_CATCH_MAJOR 3)
    set(Catch2_DIR "downloaded: ${catch2_SOURCE_DIR}")
  endif()
endif()

# ---- NCCL (lesson 13) ----------------------------------------------------------------
# Beside the CUDA toolkit (its include and lib folders), in the system's folders (Debian's
# libnccl-dev), or where NCCL_ROOT points. Without it lesson 13 is left out, with a warning.
set(NCCL_ROOT "" CACHE PATH "Folder holding include/nccl.h and lib/libnccl.so (default: beside the CUDA toolkit)")
find_path(COURSE_NCCL_INCLUDE_DIR nccl.h HINTS ${NCCL_ROOT}/include ${CUDAToolkit_INCLUDE_DIRS})
find_library(COURSE_NCCL_LIBRARY nccl HINTS ${NCCL_ROOT}/lib ${NCCL_ROOT}/lib64 ${CUDAToolkit_LIBRARY_DIR})
if(COURSE_NCCL_INCLUDE_DIR AND COURSE_NCCL_LIBRARY)
  add_library(course_nccl INTERFACE IMPORTED)
  target_include_directories(course_nccl INTERFACE ${COURSE_NCCL_INCLUDE_DIR})
  target_link_libraries(course_nccl INTERFACE ${COURSE_NCCL_LIBRARY})
  message(STATUS "NCCL: ${COURSE_NCCL_LIBRARY}")
else()
  set(COURSE_NCCL_MISSING "no NCCL found (nccl.h: ${COURSE_NCCL_INCLUDE_DIR}, libnccl: ${COURSE_NCCL_LIBRARY}); "
                          "install it (Debian: libnccl-dev) or pass -DNCCL_ROOT=<folder with include/ and lib/>")
endif()
