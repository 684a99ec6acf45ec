#pragma once
// Lesson 02 (given code): a trained network as .npy files that PyTorch loads by name
// (tools/pytorch_mnist.py --check-npy), for both trainers' --save.
#include <string>
#include <vector>

#include "course/idx.hpp"
#include "host_training.hpp"

namespace host_training {

// The network's logits for every example of `data`, in order (count x classes).
std::vector<float> logits_of(HostNetwork& net, const course::Dataset& data, int batch = 256);

// One <name>.npy per parameter in PyTorch's layouts (conv1.weight: O x I x kh x kw, fc1.weight:
// out x in, biases [out]) and test_logits.npy (count x classes), each written atomically.
void save_npy(const std::string& dir, const std::vector<Parameter>& params, const std::vector<float>& test_logits,
              int classes);

}  // namespace host_training
