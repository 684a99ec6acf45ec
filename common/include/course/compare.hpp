#pragma once
// Compare a result with a reference: element i passes when
//     |got[i] - ref[i]| <= atol + rtol * |ref[i]|      (computed in double)
// and fails when either value is NaN or Inf. The result names the worst element.
#include <cstddef>
#include <string>
#include <vector>

namespace course {

struct Tolerance {
  double atol;
  double rtol;
};

struct CompareResult {
  bool ok = true;
  size_t count = 0;
  size_t failures = 0;            // elements outside the tolerance (non-finite included)
  size_t worst_index = 0;         // largest |got - ref| - (atol + rtol |ref|)
  double max_abs_error = 0;
  double max_rel_error = 0;       // |got - ref| / |ref| where |ref| > 0
  long long first_nonfinite = -1; // first index where got or ref is NaN/Inf, -1 if none
  double got_at_worst = 0, ref_at_worst = 0;
  std::string message() const;    // one line for a test failure or a log
};

CompareResult compare(const float* got, const float* ref, size_t n, Tolerance tol);
CompareResult compare(const float* got, const double* ref, size_t n, Tolerance tol);
CompareResult compare(const double* got, const double* ref, size_t n, Tolerance tol);
CompareResult compare(const std::vector<float>& got, const std::vector<float>& ref, Tolerance tol);

// Index of the first NaN/Inf, or -1.
long long first_nonfinite(const float* v, size_t n);

}  // namespace course
