// Lesson 15, step 15.1: batch normalisation on the CPU, forward (training and evaluation) and backward.
#include <cmath>
#include <cstddef>

#include "deeper_cnns.hpp"

namespace deeper_cnns {

template <typename T>
void batch_norm_forward_train(const BatchNormShape& s, const T* x, const T* gamma, const T* beta, T eps, T momentum,
                              T* y, T* saved_mean, T* saved_inv_std, T* running_mean, T* running_var) {
  check_batch_norm("batch_norm_forward_train", s, double(eps), double(momentum), true);
  const size_t M = s.per_channel();
  for (int c = 0; c < s.channels; ++c) {
    // Two passes over the channel: the mean first, then the squares around it (one pass of
    // sum x^2 - M mean^2 cancels badly when the mean is large against the spread).
    T sum = 0;
    for (size_t i = 0; i < M; ++i) sum += x[s.at(c, i)];
    const T mean = sum / T(M);
    T squares = 0;
    for (size_t i = 0; i < M; ++i) {
      const T d = x[s.at(c, i)] - mean;
      squares += d * d;
    }
    const T var = squares / T(M);
    const T inv_std = T(1) / std::sqrt(var + eps);
    for (size_t i = 0; i < M; ++i) {
      const size_t k = s.at(c, i);
      y[k] = gamma[c] * ((x[k] - mean) * inv_std) + beta[c];
    }
    saved_mean[c] = mean;
    saved_inv_std[c] = inv_std;
    running_mean[c] = (1 - momentum) * running_mean[c] + momentum * mean;
    running_var[c] = (1 - momentum) * running_var[c] + momentum * (squares / T(M - 1));
  }
}

template <typename T>
void batch_norm_forward_eval(const BatchNormShape& s, const T* x, const T* gamma, const T* beta,
                             const T* running_mean, const T* running_var, T eps, T* y) {
  check_batch_norm("batch_norm_forward_eval", s, double(eps), 0.0, false);
  const size_t M = s.per_channel();
  for (int c = 0; c < s.channels; ++c) {
    const T inv_std = T(1) / std::sqrt(running_var[c] + eps);
    for (size_t i = 0; i < M; ++i) {
      const size_t k = s.at(c, i);
      y[k] = gamma[c] * ((x[k] - running_mean[c]) * inv_std) + beta[c];
    }
  }
}

template <typename T>
void batch_norm_backward(const BatchNormShape& s, const T* x, const T* dy, const T* gamma, const T* saved_mean,
                         const T* saved_inv_std, T* dx, T* dgamma, T* dbeta) {
  check_batch_norm_shape("batch_norm_backward", s, true);
  const size_t M = s.per_channel();
  for (int c = 0; c < s.channels; ++c) {
    const T mean = saved_mean[c], inv_std = saved_inv_std[c];
    T sum_dy = 0, sum_dy_xhat = 0;
    for (size_t i = 0; i < M; ++i) {
      const size_t k = s.at(c, i);
      sum_dy += dy[k];
      sum_dy_xhat += dy[k] * ((x[k] - mean) * inv_std);
    }
    // Every x moved the mean and the variance too: the two sums carry that back to each one.
    const T scale = gamma[c] * inv_std;
    for (size_t i = 0; i < M; ++i) {
      const size_t k = s.at(c, i);
      const T xhat = (x[k] - mean) * inv_std;
      dx[k] = scale * (dy[k] - sum_dy / T(M) - xhat * (sum_dy_xhat / T(M)));
    }
    dbeta[c] = sum_dy;
    dgamma[c] = sum_dy_xhat;
  }
}

template void batch_norm_forward_train<float>(const BatchNormShape&, const float*, const float*, const float*, float,
                                              float, float*, float*, float*, float*, float*);
template void batch_norm_forward_train<double>(const BatchNormShape&, const double*, const double*, const double*,
                                               double, double, double*, double*, double*, double*, double*);
template void batch_norm_forward_eval<float>(const BatchNormShape&, const float*, const float*, const float*,
                                             const float*, const float*, float, float*);
template void batch_norm_forward_eval<double>(const BatchNormShape&, const double*, const double*, const double*,
                                              const double*, const double*, double, double*);
template void batch_norm_backward<float>(const BatchNormShape&, const float*, const float*, const float*, const float*,
                                         const float*, float*, float*, float*);
template void batch_norm_backward<double>(const BatchNormShape&, const double*, const double*, const double*,
                                          const double*, const double*, double*, double*, double*);

}  // namespace deeper_cnns
