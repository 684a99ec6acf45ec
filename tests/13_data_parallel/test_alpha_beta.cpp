// Lesson 13, step 13.4: the alpha-beta fit, on sweeps made from a known model (host only).
// References: the alpha and beta the sweeps were made from; noise from a seeded generator.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "alpha_beta.hpp"
#include "course_test.hpp"

using data_parallel::AllReduceTime;
using data_parallel::AlphaBeta;
using data_parallel::fit_alpha_beta;

namespace {

// Sizes like the program's sweep (4 KiB .. 256 MiB by 4x) and three that fit no pattern.
std::vector<double> sweep_sizes() {
  std::vector<double> sizes;
  for (double b = 4096; b <= 268435456; b *= 4) sizes.push_back(b);
  for (double odd : {12345.0, 777777.0, 3.0 * (1 << 20) + 5}) sizes.push_back(odd);
  return sizes;
}

// The times the model gives, each times (1 + noise), noise uniform in [-spread, spread]; shuffled,
// so that no fit can rely on the order.
std::vector<AllReduceTime> made_sweep(const AlphaBeta& truth, int ranks, double spread, uint64_t seed) {
  course::Rng rng(seed);
  std::vector<AllReduceTime> sweep;
  for (double bytes : sweep_sizes()) {
    const double t = truth.alpha_s + 2.0 * (ranks - 1) / ranks * bytes / truth.beta_bytes_per_s;
    sweep.push_back({bytes, t * (1 + (spread > 0 ? rng.uniform(float(-spread), float(spread)) : 0.0))});
  }
  for (size_t i = sweep.size(); i > 1; --i) std::swap(sweep[i - 1], sweep[rng.uniform_int(int(i))]);
  return sweep;
}

double relative_error(double got, double want) { return std::abs(got - want) / want; }

// The call must throw course::Error; an unwritten step (NotImplemented) is a failure, not a refusal.
template <typename F>
void require_refused(F&& call) {
  try {
    call();
  } catch (const course::NotImplemented& e) {
    FAIL(e.what());
  } catch (const course::Error&) {
    return;
  }
  FAIL("fit_alpha_beta accepted input its contract refuses");
}

}  // namespace

TEST_CASE("fit_alpha_beta gives back the alpha and beta that made a noiseless sweep, on 2, 3, 4 and 8 GPUs", "[13.4]") {
  // NVLink-like and host-memory-like: the fixed cost dominates small sizes in both, the bandwidth large ones.
  for (const AlphaBeta truth : {AlphaBeta{12.5e-6, 185e9}, AlphaBeta{23e-6, 26.5e9}}) {
    for (int ranks : {2, 3, 4, 8}) {
      CAPTURE(truth.alpha_s, truth.beta_bytes_per_s, ranks);
      const AlphaBeta fit = fit_alpha_beta(made_sweep(truth, ranks, 0, 7 + ranks), ranks);
      // Exact data: only rounding in sums of about a dozen terms of double.
      REQUIRE(relative_error(fit.alpha_s, truth.alpha_s) < 1e-9);
      REQUIRE(relative_error(fit.beta_bytes_per_s, truth.beta_bytes_per_s) < 1e-9);
    }
  }
}

TEST_CASE("fit_alpha_beta recovers alpha and beta within 3 % from sweeps with 2 % noise on every time", "[13.4]") {
  // Twelve points of +-2 % noise: the relative fit stays within about 1 % (20 seeds tried); 3 % leaves
  // room without letting a wrong weighting through (plain least squares misses alpha by up to 20 %).
  const AlphaBeta truth{12.5e-6, 185e9};
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    COURSE_INPUT_SEED(seed);
    const AlphaBeta fit = fit_alpha_beta(made_sweep(truth, 2, 0.02, seed), 2);
    CHECK(relative_error(fit.alpha_s, truth.alpha_s) < 0.03);
    CHECK(relative_error(fit.beta_bytes_per_s, truth.beta_bytes_per_s) < 0.03);
  }
}

TEST_CASE("fit_alpha_beta weighs relative errors: a 3 % miss at 256 MiB does not move alpha", "[13.4]") {
  // Through host memory: 256 MiB take about 10 ms, so 3 % there is 300 us, fifteen times alpha.
  // Least squares on the seconds bends the line to that point and alpha comes out near -19 us;
  // weighed by 1 / t^2, the small sizes keep alpha within a few tenths of a percent.
  const AlphaBeta truth{20e-6, 25e9};
  std::vector<AllReduceTime> sweep;
  for (double bytes = 4096; bytes <= 268435456; bytes *= 4) sweep.push_back({bytes, truth.alpha_s + bytes / truth.beta_bytes_per_s});
  sweep.back().seconds *= 1.03;
  const AlphaBeta fit = fit_alpha_beta(sweep, 2);
  CAPTURE(fit.alpha_s, fit.beta_bytes_per_s);
  REQUIRE(relative_error(fit.alpha_s, truth.alpha_s) < 0.01);
  REQUIRE(relative_error(fit.beta_bytes_per_s, truth.beta_bytes_per_s) < 0.01);
}

TEST_CASE("fit_alpha_beta refuses fewer than two ranks, fewer than two sizes, sizes and times not > 0, and times that fall", "[13.4]") {
  const AlphaBeta truth{15e-6, 100e9};
  const std::vector<AllReduceTime> good = made_sweep(truth, 2, 0, 3);
  REQUIRE(relative_error(fit_alpha_beta(good, 2).alpha_s, truth.alpha_s) < 1e-9);  // the good sweep fits
  require_refused([&] { fit_alpha_beta(good, 1); });
  require_refused([&] { fit_alpha_beta(good, 0); });
  require_refused([&] { fit_alpha_beta({}, 2); });
  require_refused([&] { fit_alpha_beta({{4096, 20e-6}}, 2); });
  require_refused([&] { fit_alpha_beta({{4096, 20e-6}, {4096, 21e-6}, {4096, 19e-6}}, 2); });  // one size
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (const AllReduceTime bad : {AllReduceTime{0, 20e-6}, AllReduceTime{-4096, 20e-6}, AllReduceTime{4096, 0},
                                  AllReduceTime{4096, -1e-6}, AllReduceTime{4096, nan}, AllReduceTime{nan, 1e-5},
                                  AllReduceTime{4096, inf}, AllReduceTime{inf, 1e-5}}) {
    CAPTURE(bad.bytes, bad.seconds);
    std::vector<AllReduceTime> sweep = good;
    sweep[sweep.size() / 2] = bad;
    require_refused([&] { fit_alpha_beta(sweep, 2); });
  }
  // Times that fall as the size grows: no positive bandwidth fits.
  require_refused([&] { fit_alpha_beta({{4096, 900e-6}, {1 << 20, 300e-6}, {1 << 26, 20e-6}}, 2); });
  // Times that grow faster than any fixed cost allows: the line crosses zero below the smallest size.
  require_refused([&] { fit_alpha_beta({{1 << 20, 1e-6}, {1 << 22, 100e-6}, {1 << 24, 400e-6}}, 2); });
}
