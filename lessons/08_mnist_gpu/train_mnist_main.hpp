#pragma once
// Lesson 08 (given): train_mnist's command line and its two trainers, as one function, so that a
// program above the lessons can run the same command line with other CPU layers (the course's
// `train` program gives faster ones). On a GPU: lesson 08's trainer (trainer.hpp); without one, or
// with --device cpu: lesson 02's CPU trainer, on HostNetwork or on the layers `cpu` names.
#include <functional>
#include <string>

#include "host_training.hpp"

namespace mnist_gpu {

// Other layers for the CPU trainer: their name (e.g. "threaded layers"), the thread count --threads 0
// means, and lesson 02's NetworkMaker and description for a thread count.
struct CpuLayers {
  std::string name;
  int default_threads = 1;
  std::function<host_training::NetworkMaker(int threads)> maker;
  std::function<std::string(int threads)> description;
};

struct TrainMnistProgram {
  std::string name, about;        // for --help and the errors
  std::string out_default;        // --out's default
  const CpuLayers* cpu = nullptr;  // null: lesson 02's HostNetwork, and no --threads flag
  // Your build (lesson 08 from lessons/): no CPU fallback to reference code, a message instead.
  bool learner_build = false;
};

// Parses the flags and trains; returns the exit status (call it inside course::run_main).
int train_mnist_main(int argc, char** argv, const TrainMnistProgram& program);

}  // namespace mnist_gpu
