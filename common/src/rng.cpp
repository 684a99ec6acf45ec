#include "course/rng.hpp"

#include <cmath>
#include <utility>

#include "course/error.hpp"

namespace course {

namespace {
uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(uint64_t seed, uint64_t stream) {
  // Mix the stream number into the seed so that streams of one seed differ.
  uint64_t x = seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
  for (auto& s : s_) s = splitmix64(x);
}

uint64_t Rng::next_u64() {  // xoshiro256**
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

float Rng::uniform(float lo, float hi) {
  float v = static_cast<float>(lo + (static_cast<double>(hi) - lo) * uniform01());
  return v < hi ? v : lo;  // rounding to float must not reach hi
}

double Rng::normal(double mean, double stddev) {
  // Box-Muller; 1 - u keeps the logarithm finite.
  double u1 = 1.0 - uniform01(), u2 = uniform01();
  return mean + stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

int Rng::uniform_int(int n) {
  if (n <= 0) throw Error("Rng::uniform_int: n must be positive, got " + std::to_string(n));
  // Rejection sampling: no modulo bias.
  const uint64_t range = static_cast<uint64_t>(n);
  const uint64_t limit = UINT64_MAX - UINT64_MAX % range;
  uint64_t x;
  do x = next_u64();
  while (x >= limit);
  return static_cast<int>(x % range);
}

void Rng::fill_uniform(float* v, size_t n, float lo, float hi) {
  for (size_t i = 0; i < n; ++i) v[i] = uniform(lo, hi);
}
void Rng::fill_uniform(std::vector<float>& v, float lo, float hi) { fill_uniform(v.data(), v.size(), lo, hi); }
void Rng::fill_normal(std::vector<float>& v, float mean, float stddev) {
  for (auto& x : v) x = static_cast<float>(normal(mean, stddev));
}

void Rng::shuffle(std::vector<int>& v) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[static_cast<size_t>(uniform_int(static_cast<int>(i)))]);
}

std::vector<int> Rng::permutation(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  shuffle(v);
  return v;
}

std::vector<float> random_uniform(size_t n, uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  Rng(seed).fill_uniform(v, lo, hi);
  return v;
}

}  // namespace course
