// train: the course's trainer on whatever this machine has. On a GPU, lesson 08's trainer with the
// course's own kernels (train_mnist's command line and output); without one, lesson 02's CPU
// trainer on lesson 11's layers (threaded, vectorised GEMMs; --threads). It sits above the lessons
// it combines, built from their solutions: the README's first command runs it.
#include <string>

#include "course/main.hpp"
#include "fast_host_network.hpp"
#include "train_main.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  course_trainer::TrainerProgram program;
  program.cpu.name = "lesson 11's layers";
  program.cpu.default_threads = fast_cpu::default_threads();
  program.cpu.maker = fast_cpu::network_maker;
  program.cpu.description = fast_cpu::network_description;
  program.name = "train";
  program.about = "The course's trainer: a CNN on MNIST on the GPU with lesson 08's trainer and the course's own\n"
                  "kernels; without a GPU, lesson 02's CPU trainer on lesson 11's layers. Writes metrics.csv and\n"
                  "pictures to --out; --save DIR writes the weights as .npy files.";
  program.out_default = std::string(COURSE_OUTPUT_DIR) + "/lesson08";
  return course::run_main([&] { return course_trainer::train_main(argc, argv, program); });
}
