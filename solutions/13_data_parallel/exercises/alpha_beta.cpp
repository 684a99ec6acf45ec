// Lesson 13, step 13.4: fit the alpha-beta model of an all-reduce.
#include <cmath>
#include <set>
#include <string>

#include "alpha_beta.hpp"
#include "course/error.hpp"

namespace data_parallel {

AlphaBeta fit_alpha_beta(const std::vector<AllReduceTime>& sweep, int ranks) {
  if (ranks < 2) throw course::Error("fit_alpha_beta: an all-reduce needs ranks >= 2, got " + std::to_string(ranks));
  std::set<double> sizes;
  for (const AllReduceTime& p : sweep) {
    if (!(p.bytes > 0) || !std::isfinite(p.bytes) || !(p.seconds > 0) || !std::isfinite(p.seconds))
      throw course::Error("fit_alpha_beta: every size and time must be > 0 and finite, got " +
                          std::to_string(p.bytes) + " bytes in " + std::to_string(p.seconds) + " s");
    sizes.insert(p.bytes);
  }
  if (sizes.size() < 2)
    throw course::Error("fit_alpha_beta: a line needs at least two different sizes, got " +
                        std::to_string(sizes.size()));
  // t = alpha + gamma * x with x the bytes through each link and gamma = 1 / beta: weighted least
  // squares, weight 1 / t^2, whose normal equations are 2 x 2.
  const double link_share = ring_link_share(ranks);
  double sw = 0, sx = 0, sxx = 0, st = 0, sxt = 0;
  for (const AllReduceTime& p : sweep) {
    const double x = link_share * p.bytes, t = p.seconds, w = 1 / (t * t);
    sw += w, sx += w * x, sxx += w * x * x, st += w * t, sxt += w * x * t;
  }
  const double det = sw * sxx - sx * sx;
  const double gamma = (sw * sxt - sx * st) / det;
  const double alpha = (st - gamma * sx) / sw;
  if (!(alpha > 0) || !(gamma > 0) || !std::isfinite(alpha) || !std::isfinite(gamma))  // NaN fails every test
    throw course::Error("fit_alpha_beta: the sweep does not fit a fixed cost plus a bandwidth (alpha " +
                        std::to_string(alpha) + " s, 1/beta " + std::to_string(gamma) + " s a byte)");
  return {alpha, 1 / gamma};
}

}  // namespace data_parallel
