#pragma once
// Lesson 15's tests: ResNet's basic block written out in double, from lesson 01's convolution (its
// solutions) and 15.1's batch norm formulas (batch_norm_reference.hpp): the reference of 15.3 and of
// the networks' res blocks.
#include <algorithm>
#include <vector>

#include "batch_norm_reference.hpp"
#include "deeper_cnns.hpp"
#include "host_layers.hpp"

namespace residual_test {

using bn_test::Vec;
using deeper_cnns::BatchNormShape;
using deeper_cnns::ResidualShape;

// The block's parameters as vectors (double), in ResidualParams's order.
struct Params {
  Vec w1, gamma1, beta1, w2, gamma2, beta2, wp, gammap, betap;
  std::vector<Vec*> all() { return {&w1, &gamma1, &beta1, &w2, &gamma2, &beta2, &wp, &gammap, &betap}; }
};
inline const char* const kNames[] = {"dw1", "dgamma1", "dbeta1", "dw2", "dgamma2", "dbeta2", "dwp", "dgammap", "dbetap"};

inline Params random_params(const ResidualShape& s, uint64_t seed) {
  const size_t F = size_t(s.out_channels), C = size_t(s.in_channels), proj = s.projection() ? 1 : 0;
  Params p;
  p.w1 = course::random_doubles(F * C * 9, seed, -0.5f, 0.5f);
  p.gamma1 = course::random_doubles(F, seed + 1, 0.5f, 1.5f);
  p.beta1 = course::random_doubles(F, seed + 2, -0.5f, 0.5f);
  p.w2 = course::random_doubles(F * F * 9, seed + 3, -0.5f, 0.5f);
  p.gamma2 = course::random_doubles(F, seed + 4, 0.5f, 1.5f);
  p.beta2 = course::random_doubles(F, seed + 5, -0.5f, 0.5f);
  p.wp = course::random_doubles(proj * F * C, seed + 6, -0.5f, 0.5f);
  p.gammap = course::random_doubles(proj * F, seed + 7, 0.5f, 1.5f);
  p.betap = course::random_doubles(proj * F, seed + 8, -0.5f, 0.5f);
  return p;
}

// The block in double: y, and the inputs of its two ReLUs (where a finite difference must not step
// across 0).
struct Forward {
  Vec y, relu1_in, relu2_in;
};
inline Forward reference_forward(const ResidualShape& s, const Vec& x, const Params& p) {
  const double eps = deeper_cnns::kResidualEps;
  const BatchNormShape bn = deeper_cnns::output_shape(s);
  const size_t out = s.out_size();
  const Vec zeros(size_t(s.out_channels), 0.0);
  Vec a(out), r1(out), c(out), skip = x;
  host_layers::conv2d_forward(deeper_cnns::conv1_shape(s), x.data(), p.w1.data(), zeros.data(), a.data());
  Forward f;
  f.relu1_in = bn_test::reference_train(bn, a, p.gamma1, p.beta1, eps).y;
  for (size_t i = 0; i < out; ++i) r1[i] = std::max(f.relu1_in[i], 0.0);
  host_layers::conv2d_forward(deeper_cnns::conv2_shape(s), r1.data(), p.w2.data(), zeros.data(), c.data());
  const Vec main = bn_test::reference_train(bn, c, p.gamma2, p.beta2, eps).y;
  if (s.projection()) {
    Vec q(out);
    host_layers::conv2d_forward(deeper_cnns::projection_shape(s), x.data(), p.wp.data(), zeros.data(), q.data());
    skip = bn_test::reference_train(bn, q, p.gammap, p.betap, eps).y;
  }
  f.relu2_in.resize(out), f.y.resize(out);
  for (size_t i = 0; i < out; ++i) f.relu2_in[i] = main[i] + skip[i], f.y[i] = std::max(f.relu2_in[i], 0.0);
  return f;
}

inline deeper_cnns::ResidualParams<double> view(const Params& p) {
  return {p.w1.data(), p.gamma1.data(), p.beta1.data(), p.w2.data(), p.gamma2.data(), p.beta2.data(),
          p.wp.data(), p.gammap.data(), p.betap.data()};
}

inline bool same_signs(const Vec& a, const Vec& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if ((a[i] > 0) != (b[i] > 0)) return false;
  return true;
}

}  // namespace residual_test
