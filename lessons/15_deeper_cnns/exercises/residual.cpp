// Lesson 15, step 15.3: a residual block on the CPU, forward and backward. YOUR FILE.
// The block, its pieces' shapes and its cache are in deeper_cnns.hpp; lesson 01's conv2d and ReLU
// (host_layers.hpp) and your 15.1 batch norm are what you build it from. Uncomment the parameter
// names when you write it.
#include <cstddef>
#include <vector>

#include "course/error.hpp"
#include "deeper_cnns.hpp"
#include "host_layers.hpp"

namespace deeper_cnns {

template <typename T>
void residual_block_forward(const ResidualShape& /*s*/, const T* /*x*/, const ResidualParams<T>& /*p*/,
                            ResidualCache<T>& /*cache*/, T* /*y*/) {
  // TODO(15.3): check_residual first; the main path (conv1, batch norm, ReLU, conv2, batch norm)
  // into the cache; the skip (x, or the projection's conv and batch norm when s.projection());
  // y = ReLU(main + skip), the sum kept in the cache.
  course::todo("15.3", "residual_block_forward");
}

template <typename T>
void residual_block_backward(const ResidualShape& /*s*/, const T* /*x*/, const ResidualParams<T>& /*p*/,
                             const ResidualCache<T>& /*cache*/, const T* /*dy*/, T* /*dx*/,
                             const ResidualGrads<T>& /*g*/) {
  // TODO(15.3): check_residual first; back through the last ReLU; then the sum's gradient down
  // BOTH of its paths (the main path to x, and the skip), dx the total of both.
  course::todo("15.3", "residual_block_backward");
}

template void residual_block_forward<float>(const ResidualShape&, const float*, const ResidualParams<float>&,
                                            ResidualCache<float>&, float*);
template void residual_block_forward<double>(const ResidualShape&, const double*, const ResidualParams<double>&,
                                             ResidualCache<double>&, double*);
template void residual_block_backward<float>(const ResidualShape&, const float*, const ResidualParams<float>&,
                                             const ResidualCache<float>&, const float*, float*,
                                             const ResidualGrads<float>&);
template void residual_block_backward<double>(const ResidualShape&, const double*, const ResidualParams<double>&,
                                              const ResidualCache<double>&, const double*, double*,
                                              const ResidualGrads<double>&);

}  // namespace deeper_cnns
