// Lesson 15, step 15.4 on the GPU: the kernel against the formulas in double
// (regression_reference.hpp) and the derivative written out; outputs poisoned, odd sizes, more rows
// than one grid's threads.
#include <cmath>
#include <vector>

#include "course/check.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/error.hpp"
#include "course_test.hpp"
#include "deeper_cnns.hpp"
#include "regression_reference.hpp"

using deeper_cnns::RegressionLoss;
using Vec = std::vector<double>;

TEST_CASE("regression_loss_gpu equals the formulas in double, every row and value written", "[15.4]") {
  uint64_t seed = 4100;
  for (RegressionLoss kind : {RegressionLoss::squared, RegressionLoss::smooth_l1})
    for (int batch : {1, 17, 300000})
      for (int outputs : {1, 4, 9}) {
        CAPTURE(int(kind), batch, outputs);
        COURSE_INPUT_SEED(seed + 1);
        const size_t n = size_t(batch) * outputs;
        const Vec p = course::random_doubles(n, ++seed, -3.f, 3.f), t = course::random_doubles(n, ++seed, -3.f, 3.f);
        const double beta = 0.7, count = double(n);
        const regression_test::Want want = regression_test::reference(kind, p, t, batch, outputs, beta);
        Vec want_d(n);
        for (size_t i = 0; i < n; ++i) {
          const double d = double(float(p[i])) - double(float(t[i]));
          want_d[i] = (kind == RegressionLoss::squared ? 2 * d
                       : std::fabs(d) < beta           ? d / beta
                                                       : (d > 0 ? 1.0 : -1.0)) /
                      count;
        }
        const std::vector<float> pf(p.begin(), p.end()), tf(t.begin(), t.end());
        course::DeviceBuffer<float> dp(pf), dt(tf), row{size_t(batch)}, dpred{n};
        row.poison(), dpred.poison();
        deeper_cnns::regression_loss_gpu(kind, dp.data(), dt.data(), batch, outputs, float(beta), row.data(),
                                         dpred.data());
        CUDA_CHECK(cudaDeviceSynchronize());
        // float: a few ulps of each row's sum, relative to the row's own size.
        REQUIRE_NAMED_CLOSE("exercises/regression_loss.cu: row_loss", row.to_host(), want.row_loss, ::course::Shape{},
                            1e-12, 1e-5);
        REQUIRE_NAMED_CLOSE("exercises/regression_loss.cu: dpred", dpred.to_host(), want_d, ::course::Shape{}, 1e-12,
                            1e-5);
      }
}

TEST_CASE("regression_loss_gpu refuses a bad batch or beta before any launch", "[15.4]") {
  course::DeviceBuffer<float> p(std::vector<float>{1, 2}), row(1), d(2);
  row.poison(), d.poison();
  CHECK_THROWS_AS(deeper_cnns::regression_loss_gpu(RegressionLoss::squared, p.data(), p.data(), 0, 2, 1.0f, row.data(),
                                                   d.data()),
                  course::Error);
  CHECK_THROWS_AS(deeper_cnns::regression_loss_gpu(RegressionLoss::smooth_l1, p.data(), p.data(), 1, 2, -1.0f,
                                                   row.data(), d.data()),
                  course::Error);
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(std::isnan(row.to_host()[0]));
}
