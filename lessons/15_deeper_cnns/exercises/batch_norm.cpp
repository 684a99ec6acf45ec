// Lesson 15, step 15.1: batch normalisation on the CPU, forward (training and evaluation) and backward.
// YOUR FILE. The contracts are in deeper_cnns.hpp. Uncomment the parameter names when you write it.
#include <cmath>
#include <cstddef>

#include "course/error.hpp"
#include "deeper_cnns.hpp"

namespace deeper_cnns {

template <typename T>
void batch_norm_forward_train(const BatchNormShape& /*s*/, const T* /*x*/, const T* /*gamma*/, const T* /*beta*/,
                              T /*eps*/, T /*momentum*/, T* /*y*/, T* /*saved_mean*/, T* /*saved_inv_std*/,
                              T* /*running_mean*/, T* /*running_var*/) {
  // TODO(15.1): check_batch_norm first (training); then per channel its mean and biased variance
  // over the M values (s.at(c, i) finds value i of channel c), y, the saved mean and 1 / sqrt(var + eps),
  // and the running statistics (the unbiased variance).
  course::todo("15.1", "batch_norm_forward_train");
}

template <typename T>
void batch_norm_forward_eval(const BatchNormShape& /*s*/, const T* /*x*/, const T* /*gamma*/, const T* /*beta*/,
                             const T* /*running_mean*/, const T* /*running_var*/, T /*eps*/, T* /*y*/) {
  // TODO(15.1): check_batch_norm first (not training); y from the running statistics.
  course::todo("15.1", "batch_norm_forward_eval");
}

template <typename T>
void batch_norm_backward(const BatchNormShape& /*s*/, const T* /*x*/, const T* /*dy*/, const T* /*gamma*/,
                         const T* /*saved_mean*/, const T* /*saved_inv_std*/, T* /*dx*/, T* /*dgamma*/,
                         T* /*dbeta*/) {
  // TODO(15.1): check_batch_norm_shape first (training); per channel the two sums over dy, then dx.
  course::todo("15.1", "batch_norm_backward");
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
