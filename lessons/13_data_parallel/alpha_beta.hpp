#pragma once
// Lesson 13, step 13.4: what an all-reduce costs, in two numbers. An all-reduce of S bytes on n GPUs
// takes about
//
//     t(S) = alpha + 2 (n-1)/n * S / beta
//
// alpha (seconds): the fixed cost of one call, whatever its size (launching NCCL's kernel, the
// ranks agreeing that everyone is there, the first bytes crossing the link);
// beta (bytes a second): the bandwidth of each GPU's link once the data streams; 2 (n-1)/n * S is
// what a ring all-reduce moves through each link (13.2).
// Small all-reduces cost alpha; large ones cost bytes / beta. With alpha and beta fitted to a sweep of
// all-reduce sizes measured on this machine, the cost of any network's gradients is predicted
// before the network is run (allreduce_sweep.hpp prints that prediction beside the measurement).
// Host code only: no GPU needed.
#include <vector>

namespace data_parallel {

// One measured all-reduce: its size and its time.
struct AllReduceTime {
  double bytes = 0;    // the buffer every rank reduces (not what crosses the link)
  double seconds = 0;  // the time of one call
};

struct AlphaBeta {
  double alpha_s = 0;           // the fixed cost of a call (seconds)
  double beta_bytes_per_s = 0;  // each link's bandwidth (bytes a second)
};

// What a ring all-reduce moves through each GPU's links, per byte reduced: 2 (n-1)/n.
inline double ring_link_share(int ranks) { return 2.0 * (ranks - 1) / ranks; }

// The model's time for an all-reduce of `bytes` on `ranks` GPUs (one rank: nothing to reduce, 0).
inline double allreduce_model_seconds(const AlphaBeta& m, double bytes, int ranks) {
  if (ranks < 2) return 0;
  return m.alpha_s + ring_link_share(ranks) * bytes / m.beta_bytes_per_s;
}

// ---- step 13.4: fit alpha and beta -----------------------------------------------------------
// The alpha and beta of the model above that fit `sweep` (all-reduces on `ranks` GPUs, in any order)
// best in the least-squares sense of RELATIVE error: they minimise
//
//     sum over i of ( (model(bytes_i) - seconds_i) / seconds_i )^2
//
// A sweep spans five orders of magnitude (4 KiB: tens of microseconds; 256 MiB: milliseconds).
// Plain least squares on the seconds would let the largest sizes decide everything: a 1 % wobble of
// a 10 ms point is 100 us, several times alpha, and alpha can come out negative. Weighing each point
// by 1 / seconds_i^2 makes a 1 % miss cost the same at every size.
// Throws course::Error when ranks < 2, when the sweep has fewer than two different sizes, when a
// size is not > 0 or a time not > 0 (NaN and infinity included), and when the fitted alpha or beta is
// not > 0 (the times do not look like a fixed cost plus a bandwidth).
AlphaBeta fit_alpha_beta(const std::vector<AllReduceTime>& sweep, int ranks);

}  // namespace data_parallel
