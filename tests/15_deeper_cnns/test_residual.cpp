// Lesson 15, step 15.3: a residual block on the CPU. The reference is the block written out in double
// here, from lesson 01's convolution (its solutions) and 15.1's batch norm formulas
// (batch_norm_reference.hpp); the backward pass against finite differences of a weighted sum of y.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "course_test.hpp"
#include "deeper_cnns.hpp"
#include "host_layers.hpp"
#include "residual_reference.hpp"

using deeper_cnns::ResidualShape;
using namespace bn_test;
using namespace residual_test;

namespace {

const ResidualShape kBlocks[] = {
    {2, 4, 5, 5, 4, 1},  // identity: same channels, stride 1
    {2, 3, 6, 5, 4, 2},  // projection: stride 2, more channels, an odd width
    {3, 2, 4, 3, 5, 1},  // projection: other channels only
    {1, 3, 7, 7, 3, 2},  // projection: stride 2, one image (M = 16 values a channel)
};

}  // namespace

TEST_CASE("residual_block_forward: the block in double, identity and projection skips", "[15.3]") {
  uint64_t seed = 3000;
  for (const ResidualShape& s : kBlocks) {
    CAPTURE(s.batch, s.in_channels, s.height, s.width, s.out_channels, s.stride);
    COURSE_INPUT_SEED(seed + 1);
    const Vec x = course::random_doubles(s.in_size(), ++seed, -1.f, 1.f);
    const Params p = random_params(s, seed += 10);
    deeper_cnns::ResidualCache<double> cache(s);
    Vec y(s.out_size(), kNaN);
    deeper_cnns::residual_block_forward<double>(s, x.data(), view(p), cache, y.data());
    const Forward want = reference_forward(s, x, p);
    REQUIRE_NAMED_CLOSE("exercises/residual.cpp: residual_block_forward y", y, want.y,
                        shape_of(deeper_cnns::output_shape(s)), 1e-12, 1e-12);
    // The running statistics moved once, from mean 0 and variance 1 (15.1's rule).
    for (const Vec* v : {&cache.run_mean1, &cache.run_mean2}) {
      bool moved = false;
      for (double m : *v) moved = moved || m != 0.0;
      CHECK(moved);
    }
    if (s.projection()) {
      bool moved = false;
      for (double m : cache.run_meanp) moved = moved || m != 0.0;
      CHECK(moved);
    }
  }
}

// dL/d(everything) for L = sum w * y, against central differences of the double reference. The
// block is smooth away from its ReLUs' kinks: an element whose step moves a ReLU input across 0 is
// left out (a handful of the thousands at most, and the test says how many).
TEST_CASE("residual_block_backward: finite differences of the block in double", "[15.3]") {
  uint64_t seed = 3100;
  for (const ResidualShape& s : kBlocks) {
    CAPTURE(s.batch, s.in_channels, s.height, s.width, s.out_channels, s.stride);
    COURSE_INPUT_SEED(seed + 1);
    Vec x = course::random_doubles(s.in_size(), ++seed, -1.f, 1.f);
    Params p = random_params(s, seed += 10);
    const Vec w = course::random_doubles(s.out_size(), ++seed, -1.f, 1.f);
    deeper_cnns::ResidualCache<double> cache(s);
    Vec y(s.out_size(), kNaN), dx(s.in_size(), kNaN);
    deeper_cnns::residual_block_forward<double>(s, x.data(), view(p), cache, y.data());
    Params grads;
    std::vector<Vec*> g = grads.all(), ps = p.all();
    for (size_t t = 0; t < g.size(); ++t) g[t]->assign(ps[t]->size(), kNaN);
    const deeper_cnns::ResidualGrads<double> gv{grads.w1.data(), grads.gamma1.data(), grads.beta1.data(),
                                                grads.w2.data(), grads.gamma2.data(), grads.beta2.data(),
                                                grads.wp.data(), grads.gammap.data(), grads.betap.data()};
    deeper_cnns::residual_block_backward<double>(s, x.data(), view(p), cache, w.data(), dx.data(), gv);

    const Forward base = reference_forward(s, x, p);
    int skipped = 0, checked = 0;
    auto expect_gradient = [&](const std::string& name, Vec& param, const Vec& analytic) {
      for (size_t k = 0; k < param.size(); ++k) {
        const double keep = param[k], h = 1e-6;
        param[k] = keep + h;
        const Forward up = reference_forward(s, x, p);
        param[k] = keep - h;
        const Forward down = reference_forward(s, x, p);
        param[k] = keep;
        if (!same_signs(up.relu1_in, base.relu1_in) || !same_signs(down.relu1_in, base.relu1_in) ||
            !same_signs(up.relu2_in, base.relu2_in) || !same_signs(down.relu2_in, base.relu2_in)) {
          ++skipped;
          continue;
        }
        double L_up = 0, L_down = 0;
        for (size_t i = 0; i < w.size(); ++i) L_up += w[i] * up.y[i], L_down += w[i] * down.y[i];
        const double numeric = (L_up - L_down) / (2 * h);
        INFO("exercises/residual.cpp: residual_block_backward " << name << "[" << k << "] = " << analytic[k]
                                                                 << ", finite differences " << numeric);
        REQUIRE(std::isfinite(analytic[k]));
        REQUIRE(std::fabs(analytic[k] - numeric) <= 1e-6 + 1e-5 * std::fabs(numeric));
        ++checked;
      }
    };
    expect_gradient("dx", x, dx);
    for (size_t t = 0; t < ps.size(); ++t)
      if (!ps[t]->empty()) expect_gradient(kNames[t], *ps[t], *g[t]);
    INFO(checked << " gradient entries checked, " << skipped << " left out at a ReLU's kink");
    CHECK(skipped * 20 <= checked);
  }
}

TEST_CASE("residual_block_forward and backward refuse a bad shape before anything is written", "[15.3]") {
  for (const ResidualShape& s : {ResidualShape{2, 3, 4, 4, 3, 3}, ResidualShape{0, 3, 4, 4, 3, 1},
                                 ResidualShape{1, 3, 1, 1, 3, 1}}) {
    CAPTURE(s.batch, s.height, s.stride);
    const ResidualShape ok{2, 3, 4, 4, 3, 1};
    const Vec x(ok.in_size(), 0.5);
    const Params p = random_params(ok, 3200);
    deeper_cnns::ResidualCache<double> cache(ok);
    Vec y(ok.out_size(), kNaN);
    CHECK_THROWS_AS(deeper_cnns::residual_block_forward<double>(s, x.data(), view(p), cache, y.data()),
                    course::Error);
    for (double v : y) CHECK(std::isnan(v));
  }
}
