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

// A tensor's shape with a name per dimension, e.g. {{"n", 2}, {"c", 3}, {"h", 5}, {"w", 5}}
// (row-major: the last dimension is contiguous). Used to print an element as y[n=1, c=0, ...].
struct Dim {
  const char* name;
  size_t size;
};
using Shape = std::vector<Dim>;

// "[n=1, c=0, h=2, w=4]" for flat index i of `shape`; "[i]" when the shape is empty or does not
// hold i elements.
std::string index_in_shape(size_t i, const Shape& shape);

struct CompareResult {
  bool ok = true;
  size_t count = 0;
  size_t failures = 0;            // elements outside the tolerance (non-finite included)
  size_t worst_index = 0;         // largest |got - ref| - (atol + rtol |ref|)
  double max_abs_error = 0;
  double max_rel_error = 0;       // |got - ref| / |ref| where |ref| > 0
  long long first_nonfinite = -1; // first index where got or ref is NaN/Inf, -1 if none
  double got_at_worst = 0, ref_at_worst = 0;
  Tolerance tolerance{0, 0};      // what was allowed
  std::string message() const;    // one line for a test failure or a log
  // The same line naming the output (`what`, e.g. "dx") and the worst element's index in
  // `shape`, with the tolerance: "dx: 1 of 6 elements outside |got - ref| <= 1e-06 + 0 |ref|;
  // worst dx[b=1, i=0] (flat 3): got 3, expected 0; max abs error 3".
  std::string message(const std::string& what, const Shape& shape = {}) const;
};

CompareResult compare(const float* got, const float* ref, size_t n, Tolerance tol);
CompareResult compare(const float* got, const double* ref, size_t n, Tolerance tol);
CompareResult compare(const double* got, const double* ref, size_t n, Tolerance tol);
CompareResult compare(const std::vector<float>& got, const std::vector<float>& ref, Tolerance tol);

// Index of the first NaN/Inf, or -1.
long long first_nonfinite(const float* v, size_t n);

}  // namespace course
