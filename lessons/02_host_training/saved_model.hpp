#pragma once
// Lesson 02 (given code): a HostNetwork's test logits, for --save (framework::save_npy, run_files.hpp,
// writes them with the parameters as .npy files that PyTorch loads by name).
#include <string>
#include <vector>

#include "course/idx.hpp"
#include "framework/run_files.hpp"
#include "host_training.hpp"

namespace host_training {

// The network's logits for every example of `data`, in order (count x classes).
std::vector<float> logits_of(HostNetwork& net, const course::Dataset& data, int batch = 256);

}  // namespace host_training
