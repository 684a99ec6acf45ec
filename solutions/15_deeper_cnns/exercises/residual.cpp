// Lesson 15, step 15.3: a residual block on the CPU, forward and backward.
#include <cstddef>
#include <vector>

#include "deeper_cnns.hpp"
#include "host_layers.hpp"

namespace deeper_cnns {

template <typename T>
void residual_block_forward(const ResidualShape& s, const T* x, const ResidualParams<T>& p, ResidualCache<T>& k,
                            T* y) {
  check_residual("residual_block_forward", s);
  const BatchNormShape bn = output_shape(s);
  const T eps = T(kResidualEps), momentum = T(kResidualMomentum);
  // The main path: conv, batch norm, ReLU, conv, batch norm.
  host_layers::conv2d_forward(conv1_shape(s), x, p.w1, k.zeros.data(), k.a.data());
  batch_norm_forward_train(bn, k.a.data(), p.gamma1, p.beta1, eps, momentum, k.n1.data(), k.mean1.data(),
                           k.inv1.data(), k.run_mean1.data(), k.run_var1.data());
  host_layers::relu_forward(k.n1.data(), k.r1.data(), k.n1.size());
  host_layers::conv2d_forward(conv2_shape(s), k.r1.data(), p.w2, k.zeros.data(), k.c.data());
  batch_norm_forward_train(bn, k.c.data(), p.gamma2, p.beta2, eps, momentum, k.n2.data(), k.mean2.data(),
                           k.inv2.data(), k.run_mean2.data(), k.run_var2.data());
  // The skip: x itself, or x brought to the output's shape by the projection.
  const T* skip = x;
  if (s.projection()) {
    host_layers::conv2d_forward(projection_shape(s), x, p.wp, k.zeros.data(), k.p.data());
    batch_norm_forward_train(bn, k.p.data(), p.gammap, p.betap, eps, momentum, k.np.data(), k.meanp.data(),
                             k.invp.data(), k.run_meanp.data(), k.run_varp.data());
    skip = k.np.data();
  }
  for (size_t i = 0; i < k.sum.size(); ++i) k.sum[i] = k.n2[i] + skip[i];
  host_layers::relu_forward(k.sum.data(), y, k.sum.size());
}

template <typename T>
void residual_block_backward(const ResidualShape& s, const T* x, const ResidualParams<T>& p,
                             const ResidualCache<T>& k, const T* dy, T* dx, const ResidualGrads<T>& g) {
  check_residual("residual_block_backward", s);
  const BatchNormShape bn = output_shape(s);
  const size_t out = s.out_size();
  std::vector<T> dsum(out), dc(out), dr1(out), dn1(out), da(out), dbias(size_t(s.out_channels));
  host_layers::relu_backward(k.sum.data(), dy, dsum.data(), out);
  // The sum hands the same gradient to both of its terms: first the main path, back to x...
  batch_norm_backward(bn, k.c.data(), dsum.data(), p.gamma2, k.mean2.data(), k.inv2.data(), dc.data(), g.dgamma2,
                      g.dbeta2);
  host_layers::conv2d_backward(conv2_shape(s), k.r1.data(), p.w2, dc.data(), dr1.data(), g.dw2, dbias.data());
  host_layers::relu_backward(k.n1.data(), dr1.data(), dn1.data(), out);
  batch_norm_backward(bn, k.a.data(), dn1.data(), p.gamma1, k.mean1.data(), k.inv1.data(), da.data(), g.dgamma1,
                      g.dbeta1);
  host_layers::conv2d_backward(conv1_shape(s), x, p.w1, da.data(), dx, g.dw1, dbias.data());
  // ...then the skip, whose gradient at x adds to the main path's.
  if (!s.projection()) {
    for (size_t i = 0; i < out; ++i) dx[i] += dsum[i];
    return;
  }
  std::vector<T> dp(out), dx_skip(s.in_size());
  batch_norm_backward(bn, k.p.data(), dsum.data(), p.gammap, k.meanp.data(), k.invp.data(), dp.data(), g.dgammap,
                      g.dbetap);
  host_layers::conv2d_backward(projection_shape(s), x, p.wp, dp.data(), dx_skip.data(), g.dwp, dbias.data());
  for (size_t i = 0; i < dx_skip.size(); ++i) dx[i] += dx_skip[i];
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
