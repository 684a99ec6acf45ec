#pragma once
// The course's trainer (a program above the lessons): one command line, two trainers. On a GPU:
// lesson 08's trainer (train_mnist's flags and output); without one, or with --device cpu: lesson
// 02's CPU trainer on the layers `cpu` names (lesson 11's, for the `train` program).
#include <functional>
#include <string>

#include "host_training.hpp"

namespace course_trainer {

// Other layers for the CPU trainer: their name (e.g. "threaded layers"), the thread count --threads 0
// means, and lesson 02's NetworkMaker and description for a thread count.
struct CpuLayers {
  std::string name;
  int default_threads = 1;
  std::function<host_training::NetworkMaker(int threads)> maker;
  std::function<std::string(int threads)> description;
};

struct TrainerProgram {
  std::string name, about;  // for --help and the errors
  std::string out_default;  // --out's default
  CpuLayers cpu;            // what the CPU trainer runs on
};

// Parses the flags and trains; returns the exit status (call it inside course::run_main).
int train_main(int argc, char** argv, const TrainerProgram& program);

}  // namespace course_trainer
