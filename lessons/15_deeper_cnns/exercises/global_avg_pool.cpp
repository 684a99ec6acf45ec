// Lesson 15, step 15.5: global average pooling on the CPU. YOUR FILE. The contracts are in
// deeper_cnns.hpp. Uncomment the parameter names when you write it.
#include <cstddef>

#include "course/error.hpp"
#include "deeper_cnns.hpp"

namespace deeper_cnns {

template <typename T>
void global_avg_pool_forward(const T* /*x*/, T* /*y*/, int /*batch*/, int /*channels*/, int /*plane*/) {
  // TODO(15.5): check_pooling first; then every plane's mean into y.
  course::todo("15.5", "global_avg_pool_forward");
}

template <typename T>
void global_avg_pool_backward(const T* /*dy*/, T* /*dx*/, int /*batch*/, int /*channels*/, int /*plane*/) {
  // TODO(15.5): check_pooling first; then every dx from its plane's dy.
  course::todo("15.5", "global_avg_pool_backward");
}

template void global_avg_pool_forward<float>(const float*, float*, int, int, int);
template void global_avg_pool_forward<double>(const double*, double*, int, int, int);
template void global_avg_pool_backward<float>(const float*, float*, int, int, int);
template void global_avg_pool_backward<double>(const double*, double*, int, int, int);

}  // namespace deeper_cnns
