// Lesson 15 (given): the residual block's shapes, its check and its cache (deeper_cnns.hpp).
#include <string>

#include "course/error.hpp"
#include "deeper_cnns.hpp"

namespace deeper_cnns {

void check_residual(const char* function, const ResidualShape& s) {
  if (s.batch < 1 || s.in_channels < 1 || s.height < 1 || s.width < 1 || s.out_channels < 1)
    throw course::Error(std::string(function) + ": every size must be >= 1, got " + std::to_string(s.batch) + "x" +
                        std::to_string(s.in_channels) + "x" + std::to_string(s.height) + "x" +
                        std::to_string(s.width) + " -> " + std::to_string(s.out_channels) + " channels");
  if (s.stride != 1 && s.stride != 2)
    throw course::Error(std::string(function) + ": stride must be 1 or 2, got " + std::to_string(s.stride));
  check_batch_norm(function, output_shape(s), kResidualEps, kResidualMomentum, true);
}

host_layers::ConvShape conv1_shape(const ResidualShape& s) {
  return {s.batch, s.in_channels, s.height, s.width, s.out_channels, 3, 3, s.stride, 1};
}
host_layers::ConvShape conv2_shape(const ResidualShape& s) {
  return {s.batch, s.out_channels, s.out_h(), s.out_w(), s.out_channels, 3, 3, 1, 1};
}
host_layers::ConvShape projection_shape(const ResidualShape& s) {
  return {s.batch, s.in_channels, s.height, s.width, s.out_channels, 1, 1, s.stride, 0};
}
BatchNormShape output_shape(const ResidualShape& s) { return {s.batch, s.out_channels, s.out_h(), s.out_w()}; }

template <typename T>
ResidualCache<T>::ResidualCache(const ResidualShape& s) {
  const size_t out = s.out_size(), f = size_t(s.out_channels), proj = s.projection() ? out : 0;
  for (std::vector<T>* v : {&a, &n1, &r1, &c, &n2, &sum}) v->assign(out, T(0));
  for (std::vector<T>* v : {&p, &np}) v->assign(proj, T(0));
  for (std::vector<T>* v : {&mean1, &inv1, &mean2, &inv2, &meanp, &invp, &run_mean1, &run_mean2, &run_meanp, &zeros})
    v->assign(f, T(0));
  for (std::vector<T>* v : {&run_var1, &run_var2, &run_varp}) v->assign(f, T(1));
}

template struct ResidualCache<float>;
template struct ResidualCache<double>;

}  // namespace deeper_cnns
