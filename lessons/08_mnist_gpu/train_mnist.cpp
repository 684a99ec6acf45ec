// train_mnist: trains a CNN on MNIST (or Fashion-MNIST) on the GPU with the course's own kernels
// (lessons 03-07 and this lesson's exercises). Without a GPU, --device auto falls back to lesson
// 02's CPU trainer and says so. (The course's `train` program, above the lessons, runs the same with
// faster layers for the CPU.)
#include "course/main.hpp"
#include "train_mnist_main.hpp"

#ifndef COURSE_LEARNER_BUILD  // 1 when lesson 08's exercises are built from lessons/ (your work)
#define COURSE_LEARNER_BUILD 0
#endif
#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  mnist_gpu::TrainMnistProgram program;
  program.name = "train_mnist";
  program.about = "Lesson 08: train a CNN on MNIST on the GPU with the course's own kernels.\n"
                  "Writes metrics.csv and pictures to --out; --save DIR writes the weights as .npy files.";
  program.out_default = std::string(COURSE_OUTPUT_DIR) + "/lesson08";
  program.learner_build = COURSE_LEARNER_BUILD;
  return course::run_main([&] { return mnist_gpu::train_mnist_main(argc, argv, program); });
}
