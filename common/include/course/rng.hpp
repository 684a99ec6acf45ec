#pragma once
// Rng: a small seeded generator (SplitMix64 seeding a xoshiro256** state) whose
// output is the same on every compiler and machine, unlike std::*_distribution.
// Rng(seed, stream) gives independent, reproducible streams from one seed:
// e.g. stream 0 for weight init, stream 1 for shuffling.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace course {

class Rng {
 public:
  explicit Rng(uint64_t seed, uint64_t stream = 0);

  uint64_t next_u64();
  double uniform01();                        // [0, 1)
  float uniform(float lo, float hi);         // [lo, hi)
  double normal(double mean = 0.0, double stddev = 1.0);
  int uniform_int(int n);                    // 0 .. n-1, n > 0

  void fill_uniform(std::vector<float>& v, float lo, float hi);
  void fill_uniform(float* v, size_t n, float lo, float hi);
  void fill_normal(std::vector<float>& v, float mean, float stddev);
  void shuffle(std::vector<int>& v);         // Fisher-Yates
  std::vector<int> permutation(int n);       // a shuffled 0..n-1

 private:
  uint64_t s_[4];
};

// Convenience for tests: n values uniform in [lo, hi) from (seed, stream).
std::vector<float> random_uniform(size_t n, uint64_t seed, float lo = -1.0f, float hi = 1.0f);

}  // namespace course
