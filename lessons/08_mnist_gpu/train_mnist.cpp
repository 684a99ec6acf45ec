// train_mnist: lesson 08's program. Trains a CNN on MNIST (or Fashion-MNIST) on the GPU with the
// course's own kernels (lessons 03-07 and this lesson's exercises). It needs a GPU: on the CPU,
// lesson 02's lesson02_host_training trains the same networks, and the course's `train` program
// (above the lessons) takes whichever this machine has.
#include <string>

#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "framework/epoch_log.hpp"
#include "framework/training_data.hpp"
#include "gpu_kit.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("train_mnist",
                           "Lesson 08: train a CNN on MNIST on the GPU with the course's own kernels.\n"
                           "Writes metrics.csv and pictures to --out; --save DIR writes the weights as .npy files.");
    framework::TrainFlagWords words;
    words.out_default = std::string(COURSE_OUTPUT_DIR) + "/lesson08";
    words.model_note = " (a: two 5x5 convs, 3136->512->10; small: conv 3x3x10, dense 100)";
    mnist_gpu::add_train_mnist_flags(args, words);
    if (!args.parse(argc, argv)) return 0;

    // The flags and the data set first (a missing data set is the first thing to fix), then the GPU.
    const mnist_gpu::TrainMnistConfig config = mnist_gpu::train_mnist_config(args);
    const framework::TrainingData data = framework::load_training_data(config);
    if (!course::gpu_available())
      throw course::Error("train_mnist needs a CUDA GPU, but none is usable (" + course::query_devices().reason +
                          "); on the CPU, lesson02_host_training trains the same networks on the CPU");
    framework::DeviceRun run;
    run.program = "train_mnist on the GPU";
    framework::print_summary(framework::train_on_gpu(config, data, mnist_gpu::gpu_kit(config.conv), run), "GPU");
    return 0;
  });
}
