#include "course/error.hpp"

#include <string>

#include "course/cuda_check.hpp"

namespace course {


void todo(const char* step, const char* what) {
  throw NotImplemented(std::string("TODO(") + step + "): " + what +
                       " is not written yet (this is your exercise)");
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw CudaError(code, std::string("CUDA error ") + cudaGetErrorName(code) + " (" +
                            cudaGetErrorString(code) + ") in " + call + " at " + file + ":" +
                            std::to_string(line));
}

}  // namespace course
