// train_deeper: trains a network with batch norm, global average pooling and res blocks (ResNet-20
// by default) on Fashion-MNIST, MNIST or CIFAR-10, on the GPU (lesson 08's trainer with lesson 15's
// layers, whole steps replayed from CUDA graphs) or on the CPU (lesson 02's trainer on the host
// network). Named networks are the description files in models/.
#include <cstdio>
#include <functional>
#include <string>

#include "beyond_gpu_layers.hpp"  // fused_loss_maker
#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "deeper_gpu_layers.hpp"
#include "deeper_host_network.hpp"
#include "fast_host_network.hpp"  // lesson 11's default_threads
#include "framework/epoch_log.hpp"
#include "framework/train_flags.hpp"
#include "framework/training_data.hpp"
#include "host_training.hpp"
#include "step_graph.hpp"
#include "trainer.hpp"
#include "your_steps_check.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif
#ifndef COURSE_DEEPER_MODELS_DIR  // lessons/15_deeper_cnns/models
#define COURSE_DEEPER_MODELS_DIR "models"
#endif

namespace {

// Without --epochs the CPU trains this many epochs: ResNet-20 takes minutes an epoch on two cores.
constexpr int kCpuDefaultEpochs = 1;

// ResNet-20 on Fashion-MNIST, SGD with momentum 0.9 at batch 128.
struct DeeperConfig : mnist_gpu::GpuTrainConfig {
  DeeperConfig() {
    model = "resnet20";
    dataset = "fashion";
    epochs = 10;
    default_sgd_lr = 0.05f;
  }
};

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    const DeeperConfig defaults;
    course::ArgParser args("train_deeper",
                           "Lesson 15: train a network with batch norm and res blocks (ResNet-20 unless --model says\n"
                           "otherwise) on the GPU or the CPU. Writes metrics.csv and pictures to --out.");
    framework::TrainFlagWords words;
    words.out_default = std::string(COURSE_OUTPUT_DIR) + "/lesson15";
    words.model_help = std::string("network: resnet20 (lessons/15_deeper_cnns/models/<name>.txt), or ") +
                       host_training::kModelFlagHelp + "; lesson 15 adds bn, globalavg and res(<layers>)";
    words.seed_help = "seed of the weight init, the shuffling and dropout";
    words.epochs_note = " (CPU default: " + std::to_string(kCpuDefaultEpochs) + ")";
    words.profile_help = "GPU only: before training, time every layer's forward, backward and update (lesson 08's)";
    framework::add_train_flags(args, defaults, words);
    args.add_choice("--device", "auto", {"auto", "gpu", "cpu"},
                    "auto: the GPU when there is one, else the CPU; gpu: fail without one");
    args.add_choice("--graph", "on", {"on", "off"},
                    "GPU: replay the training steps from CUDA graphs (lesson 09) when every layer runs on a stream "
                    "of its own and the optimizer is not adam; off: launch them one by one");
    args.add_int("--threads", 0, 0, 1024,
                 "CPU only: threads of lesson 11's layers (0: all cores, " +
                     std::to_string(fast_cpu::default_threads()) + " here)");
    if (!args.parse(argc, argv)) return 0;

    const std::string device = args.get_string("--device");
    if (device == "gpu") course::require_gpu("--device gpu");
    DeeperConfig config;
    framework::FlagOptions options;
    options.layers = framework::LayerSet::lesson15;
    options.models_dir = COURSE_DEEPER_MODELS_DIR;
    framework::apply_given_flags(args, config, options);
    const framework::TrainingData data = framework::load_training_data(config);
    const bool use_gpu = device == "gpu" || (device == "auto" && course::gpu_available());
    deeper_cnns::check_your_steps(use_gpu);  // an unwritten step stops here, in one line
    if (!use_gpu) {
      for (const char* flag : {"--profile", "--profile-steps", "--graph"})
        if (args.given(flag)) std::printf("note: %s applies to the GPU only; ignored\n", flag);
      if (device == "auto")
        std::printf("no usable CUDA GPU (%s): training on the CPU\n", course::query_devices().reason.c_str());
      if (!args.given("--epochs")) {
        config.epochs = kCpuDefaultEpochs;
        std::printf("the CPU trains %d epoch(s) unless --epochs says more (the GPU's default: %d)\n",
                    kCpuDefaultEpochs, DeeperConfig{}.epochs);
      }
      const int threads = args.get_int("--threads") > 0 ? static_cast<int>(args.get_int("--threads"))
                                                         : fast_cpu::default_threads();
      const host_training::TrainerExtras extras{deeper_cnns::network_maker(threads, config.seed),
                                                deeper_cnns::network_description(threads), nullptr};
      framework::print_summary(host_training::train(config, data, extras), "CPU");
      return 0;
    }
    if (args.given("--threads")) std::printf("note: --threads applies to the CPU only; ignored\n");
    const host_training::ModelSpec spec = framework::model_for_data(config.model, data);
    mnist_gpu::GpuTrainerExtras extras;
    extras.program = "train_deeper on the GPU";
    extras.layers = deeper_cnns::gpu_layer_maker(spec, config.seed);
    extras.loss = beyond_mnist::fused_loss_maker();
    // Whole steps in CUDA graphs need every launch on one stream and every argument fixed at capture.
    const std::string problem = args.get_string("--graph") == "off"                       ? "--graph off"
                                : config.optimizer == framework::OptimizerKind::adam ? "adam's step number changes every step"
                                                                                     : deeper_cnns::stream_problem(spec);
    fast_training::Stream stream;
    if (problem.empty()) {
      extras.stream = stream.get();
      extras.capture = [s = stream.get()](const std::function<void()>& enqueue) {
        return fast_training::replayed(s, enqueue);
      };
      extras.steps_text = "replayed from CUDA graphs (lesson 09's 09.9), every layer on a stream of its own";
    } else {
      extras.steps_text = "launched one by one (" + problem + ")";
    }
    framework::print_summary(mnist_gpu::train_on_gpu(config, data, extras), "GPU");
    return 0;
  });
}
