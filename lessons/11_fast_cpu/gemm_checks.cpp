// Lesson 11: the size check every GEMM of the lesson starts with (given).
#include <string>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

void check_gemm_sizes(const char* function, int M, int N, int K) {
  if (M < 0 || N < 0 || K < 0)
    throw course::Error(std::string(function) + ": sizes must not be negative, got M=" + std::to_string(M) +
                        " N=" + std::to_string(N) + " K=" + std::to_string(K));
}

}  // namespace fast_cpu
