#pragma once
// Lesson 12 (given): a host network that runs every layer a layer list can name: lesson 11's
// FastHostNetwork with this lesson's host layers registered beside lesson 11's (sigmoid and tanh on
// your 12.1, dropout on your 12.2). The framework's CPU trainer takes it as it takes any host
// network, so train_beyond --device cpu trains with it.
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

 private:
  uint64_t passes_ = 0;  // calls of forward_backward so far
};

// Lesson 11's layers and this lesson's sigmoid, tanh and dropout (beyond_host_layers.hpp).
const framework::HostLayerMakers& beyond_host_layers();

// For host_training::train: BeyondHostNetworks on `threads` threads whose dropout draws from `seed`.
host_training::NetworkMaker network_maker(int threads, uint64_t seed);
std::string network_description(int threads);

}  // namespace beyond_mnist
