// Lesson 15, step 15.4 on the CPU: the regression losses against their formulas in double
// (regression_reference.hpp), by hand, and their gradients against finite differences.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "course/check.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "deeper_cnns.hpp"
#include "regression_reference.hpp"

using deeper_cnns::RegressionLoss;
using Vec = std::vector<double>;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const RegressionLoss kKinds[] = {RegressionLoss::squared, RegressionLoss::smooth_l1};
const char* name(RegressionLoss k) { return k == RegressionLoss::squared ? "squared" : "smooth_l1"; }

}  // namespace

TEST_CASE("regression_loss: cases worked by hand", "[15.4]") {
  // One row, two outputs: d = 0.5 and -3. Squared: (0.25 + 9) / 2 = 4.625, dpred = 2d / 2 = 0.5, -3.
  // Smooth L1 with beta 1: 0.5^2 / 2 = 0.125 and 3 - 0.5 = 2.5, mean 1.3125; dpred = d / 2 = 0.25
  // and -1 / 2 = -0.5 (the bounded pull of a far target).
  const Vec p = {1.5, -1}, t = {1, 2};
  Vec row(1, kNaN), d(2, kNaN);
  CHECK(deeper_cnns::regression_loss<double>(RegressionLoss::squared, p.data(), t.data(), 1, 2, 1.0, row.data(),
                                             d.data()) == 4.625);
  REQUIRE_ALL_CLOSE(row, Vec{4.625}, 0.0, 0.0);
  REQUIRE_ALL_CLOSE(d, (Vec{0.5, -3}), 0.0, 0.0);
  CHECK(deeper_cnns::regression_loss<double>(RegressionLoss::smooth_l1, p.data(), t.data(), 1, 2, 1.0, row.data(),
                                             d.data()) == 1.3125);
  REQUIRE_ALL_CLOSE(row, Vec{1.3125}, 0.0, 0.0);
  REQUIRE_ALL_CLOSE(d, (Vec{0.25, -0.5}), 0.0, 0.0);
}

TEST_CASE("regression_loss: the formulas in double, float and double, odd sizes", "[15.4]") {
  uint64_t seed = 4000;
  for (RegressionLoss kind : kKinds)
    for (int batch : {1, 3, 17, 128})
      for (int outputs : {1, 4, 33}) {
        CAPTURE(name(kind), batch, outputs);
        COURSE_INPUT_SEED(seed + 1);
        const size_t n = size_t(batch) * outputs;
        const Vec p = course::random_doubles(n, ++seed, -3.f, 3.f), t = course::random_doubles(n, ++seed, -3.f, 3.f);
        const double beta = 0.7;
        const regression_test::Want want = regression_test::reference(kind, p, t, batch, outputs, beta);
        Vec row(size_t(batch), kNaN), d(n, kNaN);
        const double loss = deeper_cnns::regression_loss<double>(kind, p.data(), t.data(), batch, outputs, beta,
                                                                 row.data(), d.data());
        CHECK(std::fabs(loss - want.loss) <= 1e-12 * (1 + want.loss));
        REQUIRE_NAMED_CLOSE("exercises/regression_loss.cpp: row_loss", row, want.row_loss, ::course::Shape{}, 1e-14,
                            1e-12);
        // The gradient: central differences of the mean loss (smooth except at d = +-beta for smooth
        // L1, where its derivative is continuous too; no value lands within the step of a kink here).
        Vec q = p, numeric(n);
        for (size_t i = 0; i < n; ++i) {
          const double h = 1e-6;
          q[i] = p[i] + h;
          const double up = regression_test::reference(kind, q, t, batch, outputs, beta).loss;
          q[i] = p[i] - h;
          const double down = regression_test::reference(kind, q, t, batch, outputs, beta).loss;
          q[i] = p[i];
          numeric[i] = (up - down) / (2 * h);
        }
        REQUIRE_NAMED_CLOSE("exercises/regression_loss.cpp: dpred", d, numeric, ::course::Shape{}, 1e-9, 1e-6);
        // float: a few ulps of each value.
        const std::vector<float> pf(p.begin(), p.end()), tf(t.begin(), t.end());
        std::vector<float> rowf(size_t(batch), std::nanf("")), df(n, std::nanf(""));
        deeper_cnns::regression_loss<float>(kind, pf.data(), tf.data(), batch, outputs, float(beta), rowf.data(),
                                            df.data());
        REQUIRE_NAMED_CLOSE("exercises/regression_loss.cpp: row_loss<float>", rowf, row, ::course::Shape{}, 1e-6, 1e-5);
        REQUIRE_NAMED_CLOSE("exercises/regression_loss.cpp: dpred<float>", df, d, ::course::Shape{}, 1e-7, 1e-5);
      }
}

TEST_CASE("regression_loss: smooth L1 meets the squared error at |d| = beta, and its pull stays bounded",
          "[15.4]") {
  // At |d| = beta both branches give beta / 2 and slope +-1: values just inside and just outside agree.
  const double beta = 0.5;
  const Vec t = {0, 0, 0, 0, 0};
  const Vec p = {beta - 1e-9, beta + 1e-9, -beta + 1e-9, -beta - 1e-9, 1e6};
  Vec row(5, kNaN), d(5, kNaN);
  deeper_cnns::regression_loss<double>(RegressionLoss::smooth_l1, p.data(), t.data(), 5, 1, beta, row.data(), d.data());
  CHECK(std::fabs(row[0] - row[1]) < 1e-8);
  CHECK(std::fabs(row[2] - row[3]) < 1e-8);
  CHECK(std::fabs(d[0] - d[1]) < 1e-8);
  CHECK(std::fabs(d[4] - 1.0 / 5) < 1e-15);  // a target a million away pulls as hard as one at beta
}

TEST_CASE("regression_loss refuses a bad batch, outputs or beta before writing anything", "[15.4]") {
  const Vec p = {1, 2}, t = {0, 0};
  struct Bad {
    RegressionLoss kind;
    int batch, outputs;
    double beta;
    const char* says;
  };
  for (const Bad& bad : {Bad{RegressionLoss::squared, 0, 2, 1, ">= 1"}, Bad{RegressionLoss::squared, 1, 0, 1, ">= 1"},
                         Bad{RegressionLoss::smooth_l1, 1, 2, 0, "beta"}, Bad{RegressionLoss::smooth_l1, 1, 2, kNaN, "beta"}}) {
    Vec row(1, kNaN), d(2, kNaN);
    std::string error;
    try {
      deeper_cnns::regression_loss<double>(bad.kind, p.data(), t.data(), bad.batch, bad.outputs, bad.beta, row.data(),
                                           d.data());
    } catch (const course::Error& e) {
      error = e.what();
    }
    INFO("error: '" << error << "'");
    CHECK(error.find("regression_loss") != std::string::npos);
    CHECK(error.find(bad.says) != std::string::npos);
    CHECK(std::isnan(row[0]));
    CHECK(std::isnan(d[0]));
  }
}
