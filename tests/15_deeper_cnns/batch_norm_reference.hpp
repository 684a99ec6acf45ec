#pragma once
// Lesson 15's tests: batch normalisation written out in double (the references of 15.1 and 15.2),
// and inputs with a different offset and spread in every channel.
#include <cmath>
#include <limits>
#include <vector>

#include "course/check.hpp"
#include "course_test.hpp"
#include "deeper_cnns.hpp"

namespace bn_test {

using deeper_cnns::BatchNormShape;
using Vec = std::vector<double>;
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline size_t index_of(const BatchNormShape& s, int n, int c, int p) {
  return (size_t(n) * s.channels + c) * s.height * s.width + p;
}

// The training forward pass in double: y, mean, inv_std and the unbiased variance per channel.
struct Reference {
  Vec y, mean, inv_std, unbiased_var;
};
inline Reference reference_train(const BatchNormShape& s, const Vec& x, const Vec& gamma, const Vec& beta, double eps) {
  Reference r{Vec(x.size()), Vec(s.channels), Vec(s.channels), Vec(s.channels)};
  const int plane = s.height * s.width;
  const double M = double(s.per_channel());
  for (int c = 0; c < s.channels; ++c) {
    double sum = 0, squares = 0;
    for (int n = 0; n < s.batch; ++n)
      for (int p = 0; p < plane; ++p) sum += x[index_of(s, n, c, p)];
    const double mean = sum / M;
    for (int n = 0; n < s.batch; ++n)
      for (int p = 0; p < plane; ++p) squares += (x[index_of(s, n, c, p)] - mean) * (x[index_of(s, n, c, p)] - mean);
    r.mean[c] = mean, r.inv_std[c] = 1 / std::sqrt(squares / M + eps), r.unbiased_var[c] = squares / (M - 1);
    for (int n = 0; n < s.batch; ++n)
      for (int p = 0; p < plane; ++p) {
        const size_t k = index_of(s, n, c, p);
        r.y[k] = gamma[c] * (x[k] - mean) * r.inv_std[c] + beta[c];
      }
  }
  return r;
}

// x with a different offset and spread in every channel (a mean far from 0 is where a one-pass
// variance loses its digits), gamma and beta random and away from 0 and 1.
inline Vec channel_input(const BatchNormShape& s, uint64_t seed) {
  Vec x = course::random_doubles(s.size(), seed, -1.f, 1.f);
  const int plane = s.height * s.width;
  for (int n = 0; n < s.batch; ++n)
    for (int c = 0; c < s.channels; ++c)
      for (int p = 0; p < plane; ++p) x[index_of(s, n, c, p)] = 3.0 * c - 5.0 + (0.5 + c) * x[index_of(s, n, c, p)];
  return x;
}

// x's shape for the failure messages: the worst element named by (n, c, h, w).
inline course::Shape shape_of(const BatchNormShape& s) {
  return {{"n", size_t(s.batch)}, {"c", size_t(s.channels)}, {"h", size_t(s.height)}, {"w", size_t(s.width)}};
}

template <typename T>
std::vector<T> as(const Vec& v) {
  return std::vector<T>(v.begin(), v.end());
}

inline const BatchNormShape kShapes[] = {{2, 1, 1, 2}, {3, 5, 7, 4}, {1, 3, 17, 3}, {16, 2, 1, 1}, {5, 33, 3, 5}};

}  // namespace bn_test
