#pragma once
// Lesson 12 (given): a host network that runs every layer a layer list can name. Lesson 02's and
// lesson 11's layers run as in lesson 11's FastHostNetwork; sigmoid and tanh run on your 12.1,
// dropout on your 12.2. Lesson 02's trainer, evaluation and pictures take it as they take any
// HostNetwork, so train_beyond --device cpu trains with it.
//
// Dropout: the c-th call of forward_backward (c = 0, 1, ...) drops with the key
// dropout_key(seed, layer index, c) in every dropout layer; forward (evaluation) drops nothing.
// Lesson 12's GPU layers count their training passes the same way, so the same seed gives the
// same masks on both sides.
#include <cstdint>
#include <string>
#include <vector>

#include "fast_host_network.hpp"
#include "host_training.hpp"

namespace beyond_mnist {

class BeyondHostNetwork : public fast_cpu::FastHostNetwork {
 public:
  BeyondHostNetwork(host_training::ModelSpec spec, std::vector<host_training::Parameter> params, int threads,
                    uint64_t dropout_seed);
  float forward_backward(const float* x, const int* labels, int batch) override;
  uint64_t training_passes() const { return passes_; }

 protected:
  void extra_forward(size_t layer, int batch, bool training) override;
  void extra_backward(size_t layer, int batch) override;

 private:
  uint64_t dropout_seed_;
  uint64_t passes_ = 0;  // calls of forward_backward so far
};

// For host_training::train: BeyondHostNetworks on `threads` threads whose dropout draws from `seed`.
host_training::NetworkMaker network_maker(int threads, uint64_t seed);
std::string network_description(int threads);

}  // namespace beyond_mnist
