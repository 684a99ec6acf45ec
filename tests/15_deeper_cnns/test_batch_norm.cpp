// Lesson 15, step 15.1: batch normalisation on the CPU. References: the formulas of deeper_cnns.hpp
// written out here in double (two passes per channel), a case worked by hand, and finite
// differences of a weighted sum of y for the backward pass. Every output starts as NaN.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "batch_norm_reference.hpp"
#include "deeper_cnns.hpp"

using deeper_cnns::BatchNormShape;
using namespace bn_test;

namespace {

template <typename T>
void check_forward_train(const BatchNormShape& s, uint64_t seed, double atol, double rtol) {
  CAPTURE(s.batch, s.channels, s.height, s.width);
  COURSE_INPUT_SEED(seed);
  const Vec x = channel_input(s, seed), gamma = course::random_doubles(size_t(s.channels), seed + 1, 0.5f, 2.f),
            beta = course::random_doubles(size_t(s.channels), seed + 2, -1.f, 1.f),
            run_mean = course::random_doubles(size_t(s.channels), seed + 3, -1.f, 1.f),
            run_var = course::random_doubles(size_t(s.channels), seed + 4, 0.5f, 2.f);
  const double eps = 1e-5, momentum = 0.1;
  const Reference r = reference_train(s, x, gamma, beta, eps);
  const std::vector<T> xt = as<T>(x), gt = as<T>(gamma), bt = as<T>(beta);
  std::vector<T> y(s.size(), T(kNaN)), mean(size_t(s.channels), T(kNaN)), inv_std(size_t(s.channels), T(kNaN));
  std::vector<T> rm = as<T>(run_mean), rv = as<T>(run_var);
  deeper_cnns::batch_norm_forward_train<T>(s, xt.data(), gt.data(), bt.data(), T(eps), T(momentum), y.data(),
                                           mean.data(), inv_std.data(), rm.data(), rv.data());
  Vec want_rm(size_t(s.channels)), want_rv(size_t(s.channels));
  for (int c = 0; c < s.channels; ++c) {
    want_rm[c] = (1 - momentum) * run_mean[c] + momentum * r.mean[c];
    want_rv[c] = (1 - momentum) * run_var[c] + momentum * r.unbiased_var[c];
  }
  const course::Shape shape = shape_of(s);
  REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: batch_norm_forward_train y", y, r.y, shape, atol, rtol);
  REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: saved_mean", mean, r.mean, ::course::Shape{}, atol, rtol);
  REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: saved_inv_std", inv_std, r.inv_std, ::course::Shape{}, atol, rtol);
  REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: running_mean", rm, want_rm, ::course::Shape{}, atol, rtol);
  REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: running_var (unbiased)", rv, want_rv, ::course::Shape{}, atol, rtol);
}

}  // namespace

TEST_CASE("batch_norm_forward_train: a case worked by hand", "[15.1]") {
  // One channel, M = 4 values 1, 2, 3, 6: mean 3, biased variance (4 + 1 + 0 + 9) / 4 = 3.5,
  // unbiased 14 / 3. eps = 0.5: inv_std = 1 / sqrt(4) = 0.5, xhat = -1, -0.5, 0, 1.5;
  // gamma 2, beta 1: y = -1, 0, 1, 4. Momentum 0.25 from running 0 and 1: 0.75 and 0.75 + 14/12.
  const BatchNormShape s{2, 1, 1, 2};
  const std::vector<double> x = {1, 2, 3, 6}, gamma = {2}, beta = {1};
  std::vector<double> y(4, kNaN), mean(1, kNaN), inv_std(1, kNaN), rm = {0}, rv = {1};
  deeper_cnns::batch_norm_forward_train<double>(s, x.data(), gamma.data(), beta.data(), 0.5, 0.25, y.data(),
                                                mean.data(), inv_std.data(), rm.data(), rv.data());
  REQUIRE_ALL_CLOSE(y, (std::vector<double>{-1, 0, 1, 4}), 1e-15, 1e-15);
  REQUIRE_ALL_CLOSE(mean, std::vector<double>{3}, 1e-15, 1e-15);
  REQUIRE_ALL_CLOSE(inv_std, std::vector<double>{0.5}, 1e-15, 1e-15);
  REQUIRE_ALL_CLOSE(rm, std::vector<double>{0.75}, 1e-15, 1e-15);
  REQUIRE_ALL_CLOSE(rv, std::vector<double>{0.75 + 14.0 / 12.0}, 1e-15, 1e-15);
}

// Tolerances: double against double is a few ulps of sums of at most ~500 terms (1e-12). Float keeps
// 24 bits: a mean of values near 100 is good to ~1e-5 of them, and xhat inherits that relative to
// the spread (1e-4 with room).
TEST_CASE("batch_norm_forward_train: the formulas in double, float and double, odd shapes", "[15.1]") {
  uint64_t seed = 1500;
  for (const BatchNormShape& s : kShapes) {
    check_forward_train<double>(s, ++seed, 1e-12, 1e-12);
    check_forward_train<float>(s, ++seed, 1e-4, 1e-4);
  }
}

TEST_CASE("batch_norm_forward_eval: the running statistics, not the batch's", "[15.1]") {
  uint64_t seed = 1600;
  for (const BatchNormShape& s : kShapes) {
    CAPTURE(s.batch, s.channels, s.height, s.width);
    const Vec x = channel_input(s, ++seed), gamma = course::random_doubles(size_t(s.channels), ++seed, 0.5f, 2.f),
              beta = course::random_doubles(size_t(s.channels), ++seed, -1.f, 1.f),
              rm = course::random_doubles(size_t(s.channels), ++seed, -1.f, 1.f),
              rv = course::random_doubles(size_t(s.channels), ++seed, 0.5f, 2.f);
    const double eps = 1e-3;
    Vec want(x.size());
    const int plane = s.height * s.width;
    for (int n = 0; n < s.batch; ++n)
      for (int c = 0; c < s.channels; ++c)
        for (int p = 0; p < plane; ++p) {
          const size_t k = index_of(s, n, c, p);
          want[k] = gamma[c] * (x[k] - rm[c]) / std::sqrt(rv[c] + eps) + beta[c];
        }
    Vec y(x.size(), kNaN);
    const Vec rm_before = rm, rv_before = rv;
    deeper_cnns::batch_norm_forward_eval<double>(s, x.data(), gamma.data(), beta.data(), rm.data(), rv.data(), eps,
                                                 y.data());
    REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: batch_norm_forward_eval y", y, want,
                        shape_of(s), 1e-12, 1e-12);
    CHECK(rm == rm_before);  // read only
    CHECK(rv == rv_before);
    // One value per channel is fine in evaluation (no statistics are taken).
    const BatchNormShape one{1, 2, 1, 1};
    const Vec x1 = {0.5, -2}, g1 = {1, 3}, b1 = {0, 1}, m1 = {0.5, 0}, v1 = {1, 4};
    Vec y1(2, kNaN);
    deeper_cnns::batch_norm_forward_eval<double>(one, x1.data(), g1.data(), b1.data(), m1.data(), v1.data(), 1e-12,
                                                 y1.data());
    REQUIRE_ALL_CLOSE(y1, (Vec{0, 3 * -2 / 2.0 + 1}), 1e-9, 1e-9);
  }
}

// The loss L = sum over all values of w * y (w random) has dL/dy = w. Batch normalisation is smooth
// in x, gamma and beta, so central differences with step 1e-5 are good to ~1e-10 relative (their
// truncation error is ~h^2 |L'''|); a term left out (the mean's or the variance's path back to x)
// is off by 10-100 %.
TEST_CASE("batch_norm_backward: finite differences of the training pass in double", "[15.1]") {
  uint64_t seed = 1700;
  for (const BatchNormShape& s : {BatchNormShape{2, 1, 1, 2}, BatchNormShape{3, 2, 2, 3}, BatchNormShape{1, 3, 5, 1},
                                  BatchNormShape{4, 2, 1, 1}}) {
    CAPTURE(s.batch, s.channels, s.height, s.width);
    COURSE_INPUT_SEED(seed + 1);
    Vec x = channel_input(s, ++seed), gamma = course::random_doubles(size_t(s.channels), ++seed, 0.5f, 2.f),
        beta = course::random_doubles(size_t(s.channels), ++seed, -1.f, 1.f);
    const Vec w = course::random_doubles(s.size(), ++seed, -1.f, 1.f);
    const double eps = 1e-3;
    auto loss = [&] {
      const Reference r = reference_train(s, x, gamma, beta, eps);
      double L = 0;
      for (size_t k = 0; k < r.y.size(); ++k) L += w[k] * r.y[k];
      return L;
    };
    Vec y(x.size(), kNaN), mean(size_t(s.channels), kNaN), inv_std(size_t(s.channels), kNaN),
        rm(size_t(s.channels), 0.0), rv(size_t(s.channels), 1.0);
    deeper_cnns::batch_norm_forward_train<double>(s, x.data(), gamma.data(), beta.data(), eps, 0.1, y.data(),
                                                  mean.data(), inv_std.data(), rm.data(), rv.data());
    Vec dx(x.size(), kNaN), dgamma(size_t(s.channels), kNaN), dbeta(size_t(s.channels), kNaN);
    deeper_cnns::batch_norm_backward<double>(s, x.data(), w.data(), gamma.data(), mean.data(), inv_std.data(),
                                             dx.data(), dgamma.data(), dbeta.data());
    auto numeric = [&](Vec& param) {
      Vec g(param.size());
      for (size_t k = 0; k < param.size(); ++k) {
        const double keep = param[k], h = 1e-5 * std::max(1.0, std::fabs(keep));
        param[k] = keep + h;
        const double up = loss();
        param[k] = keep - h;
        const double down = loss();
        param[k] = keep;
        g[k] = (up - down) / (2 * h);
      }
      return g;
    };
    REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: batch_norm_backward dx", dx, numeric(x),
                        shape_of(s), 1e-7, 1e-6);
    REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: batch_norm_backward dgamma", dgamma, numeric(gamma),
                        ::course::Shape{}, 1e-7, 1e-6);
    REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: batch_norm_backward dbeta", dbeta, numeric(beta),
                        ::course::Shape{}, 1e-7, 1e-6);
  }
}

TEST_CASE("batch_norm_backward: float against the double pass; dx sums to 0 in every channel", "[15.1]") {
  uint64_t seed = 1800;
  for (const BatchNormShape& s : kShapes) {
    CAPTURE(s.batch, s.channels, s.height, s.width);
    const Vec x = channel_input(s, ++seed), gamma = course::random_doubles(size_t(s.channels), ++seed, 0.5f, 2.f),
              beta = course::random_doubles(size_t(s.channels), ++seed, -1.f, 1.f),
              dy = course::random_doubles(s.size(), ++seed, -1.f, 1.f);
    const Reference r = reference_train(s, x, gamma, beta, 1e-5);
    Vec dx(x.size(), kNaN), dgamma(size_t(s.channels), kNaN), dbeta(size_t(s.channels), kNaN);
    deeper_cnns::batch_norm_backward<double>(s, x.data(), dy.data(), gamma.data(), r.mean.data(), r.inv_std.data(),
                                             dx.data(), dgamma.data(), dbeta.data());
    // Shifting every x of a channel by the same amount changes nothing: dx sums to 0 per channel.
    const int plane = s.height * s.width;
    for (int c = 0; c < s.channels; ++c) {
      double sum = 0, scale = 0;
      for (int n = 0; n < s.batch; ++n)
        for (int p = 0; p < plane; ++p) sum += dx[index_of(s, n, c, p)], scale += std::fabs(dx[index_of(s, n, c, p)]);
      INFO("channel " << c << ": sum of dx " << sum);
      CHECK(std::fabs(sum) <= 1e-12 * (1 + scale));
    }
    const std::vector<float> xf = as<float>(x), gf = as<float>(gamma), dyf = as<float>(dy), mf = as<float>(r.mean),
                             sf = as<float>(r.inv_std);
    std::vector<float> dxf(x.size(), float(kNaN)), dgf(size_t(s.channels), float(kNaN)),
        dbf(size_t(s.channels), float(kNaN));
    deeper_cnns::batch_norm_backward<float>(s, xf.data(), dyf.data(), gf.data(), mf.data(), sf.data(), dxf.data(),
                                            dgf.data(), dbf.data());
    // Sums of up to ~500 products of size ~1 in float: ~1e-4 of their magnitude.
    REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: batch_norm_backward<float> dx", dxf, dx,
                        shape_of(s), 1e-3, 1e-3);
    REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: batch_norm_backward<float> dgamma", dgf, dgamma, ::course::Shape{},
                        1e-3, 1e-3);
    REQUIRE_NAMED_CLOSE("exercises/batch_norm.cpp: batch_norm_backward<float> dbeta", dbf, dbeta, ::course::Shape{},
                        1e-3, 1e-3);
  }
}

TEST_CASE("batch norm refuses bad arguments before writing anything", "[15.1]") {
  const Vec x = {1, 2, 3, 4}, g = {1}, b = {0};
  auto untouched = [](const Vec& v) {
    for (double e : v)
      if (!std::isnan(e)) return false;
    return true;
  };
  struct Bad {
    BatchNormShape s;
    double eps, momentum;
    const char* says;
  };
  for (const Bad& bad : {Bad{{2, 1, 1, 2}, 0.0, 0.1, "eps"}, Bad{{2, 1, 1, 2}, kNaN, 0.1, "eps"},
                         Bad{{2, 1, 1, 2}, 1e-5, 1.5, "momentum"}, Bad{{2, 1, 1, 2}, 1e-5, -0.1, "momentum"},
                         Bad{{1, 1, 1, 1}, 1e-5, 0.1, "more than one value"}, Bad{{0, 1, 2, 2}, 1e-5, 0.1, ">= 1"}}) {
    CAPTURE(bad.s.batch, bad.s.height, bad.s.width, bad.eps, bad.momentum);
    Vec y(4, kNaN), mean(1, kNaN), inv_std(1, kNaN), rm(1, kNaN), rv(1, kNaN);
    std::string error;
    try {
      deeper_cnns::batch_norm_forward_train<double>(bad.s, x.data(), g.data(), b.data(), bad.eps, bad.momentum,
                                                    y.data(), mean.data(), inv_std.data(), rm.data(), rv.data());
    } catch (const course::Error& e) {
      error = e.what();
    }
    INFO("error: '" << error << "'");
    CHECK(error.find("batch_norm_forward_train") != std::string::npos);
    CHECK(error.find(bad.says) != std::string::npos);
    CHECK(untouched(y));
    CHECK(untouched(rm));
    CHECK(untouched(rv));
  }
  // The backward pass and evaluation check too.
  Vec dx(4, kNaN), dg(1, kNaN), db(1, kNaN), y(4, kNaN);
  const Vec one = {1};
  CHECK_THROWS_AS(deeper_cnns::batch_norm_backward<double>(BatchNormShape{1, 1, 1, 1}, x.data(), x.data(), g.data(),
                                                           one.data(), one.data(), dx.data(), dg.data(), db.data()),
                  course::Error);
  CHECK(untouched(dx));
  CHECK_THROWS_AS(deeper_cnns::batch_norm_forward_eval<double>(BatchNormShape{2, 1, 1, 2}, x.data(), g.data(),
                                                               b.data(), one.data(), one.data(), -1.0, y.data()),
                  course::Error);
  CHECK(untouched(y));
}
