# Included before project(): finds nvcc and picks CUDA architectures, so that
# nobody has to edit a CMakeLists.txt to build.

# nvcc is often not on PATH (Debian/Ubuntu NVIDIA repo installs it in /usr/local/cuda).
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  find_program(COURSE_NVCC nvcc PATHS /usr/local/cuda/bin /opt/cuda/bin NO_CACHE)
  if(COURSE_NVCC)
    set(CMAKE_CUDA_COMPILER "${COURSE_NVCC}" CACHE FILEPATH "CUDA compiler")
  endif()
endif()

# Architectures: what the user passed (-DCMAKE_CUDA_ARCHITECTURES=... or the
# CUDAARCHS environment variable) wins; otherwise "native" when a GPU is visible.
# Without a GPU nothing device-side runs, so one architecture is enough: sm_75 code plus
# its PTX, which any newer GPU can still run if one appears later. (A build for three
# architectures takes about three times as long to compile.)
if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  set(_course_gpu_visible FALSE)
  find_program(COURSE_NVIDIA_SMI nvidia-smi NO_CACHE)
  if(COURSE_NVIDIA_SMI)
    execute_process(COMMAND "${COURSE_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
                    RESULT_VARIABLE _smi_rc OUTPUT_VARIABLE _smi_out ERROR_QUIET TIMEOUT 20)
    if(_smi_rc EQUAL 0 AND _smi_out MATCHES "[0-9]+\\.[0-9]+")
      set(_course_gpu_visible TRUE)
    endif()
  endif()
  if(_course_gpu_visible)
    set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "CUDA architectures (native: the visible GPU)")
  else()
    set(CMAKE_CUDA_ARCHITECTURES 75 CACHE STRING
        "CUDA architectures (no GPU visible: one, sm_75 + PTX; set your GPU's to run on it)")
    message(STATUS "No GPU visible: device code is built for one architecture (sm_75 + PTX). "
                   "On a machine with a GPU, configure there (native) or pass -DCMAKE_CUDA_ARCHITECTURES=<yours>.")
  endif()
endif()
