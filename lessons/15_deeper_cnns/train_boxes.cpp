// train_boxes: the box task (box_task.hpp). Every digit of MNIST (or Fashion-MNIST) drawn at a random
// size and place on a 64x64 canvas; a network (models/boxnet.txt unless --model says otherwise)
// regresses the box around it with your 15.4 loss, on the GPU through the framework's trainer (whole
// steps replayed from CUDA graphs). Reports the mean corner error in pixels and the share of boxes
// found (IoU >= 0.5), and draws predicted and true boxes in boxes.png.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "box_loss.hpp"
#include "box_task.hpp"
#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/error.hpp"
#include "course/main.hpp"
#include "course/stream.hpp"
#include "deeper_gpu_layers.hpp"
#include "deeper_host_network.hpp"  // layer_kinds
#include "framework/device_choice.hpp"
#include "framework/epoch_log.hpp"
#include "framework/train_flags.hpp"
#include "framework/training_data.hpp"
#include "host_training.hpp"
#include "framework/gpu_trainer.hpp"
#include "gpu_kit.hpp"
#include "step_graph.hpp"  // lesson 09's graph_replay
#include "your_steps_check.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif
#ifndef COURSE_DEEPER_MODELS_DIR  // lessons/15_deeper_cnns/models
#define COURSE_DEEPER_MODELS_DIR "models"
#endif

namespace {

// The canvases are a data set: the same for every run and every --seed (which seeds the weights
// and the order of the examples), so runs and PyTorch's compare on the same pictures.
constexpr uint64_t kCanvasSeed = 64;

struct BoxConfig : framework::GpuTrainConfig {
  BoxConfig() {
    model = "boxnet";
    dataset = "mnist";
    epochs = 10;
    default_sgd_lr = 0.05f;
  }
};

const framework::ScoreName kBoxScore{"IoU>=.5", "iou50", "share of test boxes with IoU >= 0.5"};

// The four files --write-canvases writes; refused when one is there already.
std::vector<std::string> canvas_files(const std::string& dir) {
  return {dir + "/train_canvases.npy", dir + "/train_boxes.npy", dir + "/test_canvases.npy", dir + "/test_boxes.npy"};
}

}  // namespace

int main(int argc, char** argv) {
  return course::run_main([&] {
    const BoxConfig defaults;
    course::ArgParser args("train_boxes",
                           "Lesson 15: find the digit on a 64x64 canvas. A network regresses the box around it with\n"
                           "your 15.4 loss on the GPU; writes metrics.csv, boxes.png and the network's pictures to --out.");
    framework::TrainFlagWords words;
    words.out_default = std::string(COURSE_OUTPUT_DIR) + "/lesson15_boxes";
    words.model_help = "network ending in dense4 (the box's x0, y0, x1, y1): boxnet "
                       "(lessons/15_deeper_cnns/models/<name>.txt), a layer list with lesson 15's layers such as "
                       "conv3x3x16p1,bn,relu,pool2,dense4, or @file with one";
    words.datasets = {"mnist", "fashion"};
    words.dataset_help = "the pictures drawn on the canvases: mnist (digits) or fashion (Fashion-MNIST's clothes)";
    words.data_help = "folder with the data set's four IDX files (default: the data set's folder under data/)";
    words.profile_help = "before training, time every layer's forward, backward and update (lesson 08's)";
    framework::add_train_flags(args, defaults, words);
    args.add_choice("--loss", "smooth_l1", {"smooth_l1", "squared"},
                    "15.4's loss on the corners (fractions of the canvas): smooth_l1 or squared");
    args.add_float("--beta", 0.05, 1e-4, 1.0, "smooth_l1's beta, in fractions of the canvas (0.05: 3.2 pixels)");
    args.add_choice("--graph", "on", {"on", "off"},
                    "replay the training steps from CUDA graphs (not with adam: its step number changes every step)");
    args.add_string("--write-canvases", "",
                    "write the canvases and their boxes as .npy files into this folder (for "
                    "tools/pytorch_boxes.py) and stop");
    if (!args.parse(argc, argv)) return 0;

    BoxConfig config;
    framework::FlagOptions options;
    options.layers = deeper_cnns::layer_kinds();
    options.models_dir = COURSE_DEEPER_MODELS_DIR;
    framework::apply_given_flags(args, config, options);
    const host_training::LayerSpec last = framework::model_by_name(config.model).layers.back();
    if (last.kind != host_training::LayerKind::dense || last.out != deeper_cnns::kBoxOutputs)
      throw course::Error("--model: the box task's network must end with dense4 (x0, y0, x1, y1); this one ends with " +
                          framework::layer_text(last));
    const deeper_cnns::RegressionLoss loss = deeper_cnns::regression_loss_by_name(args.get_string("--loss"));
    const float beta = float(args.get_float("--beta"));
    const std::string export_dir = args.get_string("--write-canvases");
    if (args.given("--write-canvases")) {
      if (export_dir.empty()) throw course::Error("--write-canvases: give a folder");
      for (const std::string& file : canvas_files(export_dir)) {
        std::error_code ec;
        if (std::filesystem::exists(file, ec))
          throw course::Error("--write-canvases: " + file + " is there already; remove it or pick another folder");
      }
    } else {
      course::require_gpu("train_boxes");  // before the canvases are drawn: a run without a GPU stops at once
    }

    framework::TrainingData data;
    {
      const framework::TrainingData digits = framework::load_training_data(config);
      const course::HostTensor& images = digits.train.images;
      if (images.dim(1) != 1 || images.dim(2) != 28 || images.dim(3) != 28)
        throw course::Error("the images in " + digits.dir + " are " + std::to_string(images.dim(2)) + "x" +
                            std::to_string(images.dim(3)) + " with " + std::to_string(images.dim(1)) +
                            " channel(s): the box task draws 1-channel 28x28 pictures (mnist, fashion) on its canvases");
      data.dir = digits.dir;
      data.train = deeper_cnns::box_canvases(digits.train, kCanvasSeed, 0);
      data.test = deeper_cnns::box_canvases(digits.test, kCanvasSeed, 1);
      data.outputs = deeper_cnns::kBoxOutputs;
    }
    if (!export_dir.empty()) {
      deeper_cnns::write_canvases_npy(export_dir, "train", data.train);
      deeper_cnns::write_canvases_npy(export_dir, "test", data.test);
      std::printf("wrote %s/{train,test}_{canvases,boxes}.npy: %d and %d canvases of %dx%d\n", export_dir.c_str(),
                  data.train.count(), data.test.count(), deeper_cnns::kCanvas, deeper_cnns::kCanvas);
      return 0;
    }

    const host_training::ModelSpec spec = framework::model_for_data(config.model, data);
    deeper_cnns::check_your_steps(true);  // an unwritten step stops here, in one line
    deeper_cnns::check_your_regression_loss(loss, beta);
    deeper_cnns::check_your_box_scores();
    deeper_cnns::check_your_block_passes();

    // Lesson 08's kit with this lesson's layers and box loss, and a box's hit counted as a right answer
    // (in the steps, the evaluation and the profile).
    framework::GpuKit kit = mnist_gpu::gpu_kit(
        mnist_gpu::ConvAlgorithm::automatic, deeper_cnns::deeper_gpu_layers(config.seed),
        [loss, beta](int outputs, int max_batch) {
          return std::make_unique<deeper_cnns::BoxLoss>(loss, beta, outputs, max_batch);
        });
    kit.kernels.count_correct = deeper_cnns::count_box_hits_gpu;
    framework::DeviceRun run;
    run.program = "train_boxes on the GPU";
    char task[160];
    std::snprintf(task, sizeof task, "task: the box around each picture on a %dx%d canvas, loss %s", deeper_cnns::kCanvas,
                  deeper_cnns::kCanvas, deeper_cnns::regression_loss_name(loss));
    char beta_text[32];
    std::snprintf(beta_text, sizeof beta_text, " beta %g", double(beta));
    const std::string task_line =
        task + std::string(loss == deeper_cnns::RegressionLoss::smooth_l1 ? beta_text : "") + "\n";
    run.describe = [task_line](framework::DeviceNetwork&) { return task_line; };
    run.score = kBoxScore;
    run.result_pictures = {"boxes.png"};
    run.report_results = [](const framework::DeviceEvaluation& eval, const course::Dataset& test,
                               const framework::RunFiles& files) -> std::vector<std::string> {
      const deeper_cnns::BoxReport r = deeper_cnns::box_report(eval.logits.data(), test.labels);
      std::printf("test boxes: mean corner error %.2f pixels, IoU >= %.1f for %.2f %% of %d, mean IoU %.3f\n",
                  r.corner_error, double(deeper_cnns::kIouHit), 100 * r.hit_rate, r.count, r.mean_iou);
      if (!files.has_out()) return {};
      deeper_cnns::write_boxes_png(files.out_path("boxes.png"), test, eval.logits.data());
      return {"boxes.png"};
    };
    // Whole steps in CUDA graphs need every launch on one stream and every argument fixed at capture.
    course::Stream stream;
    framework::replay_steps(run, stream.get(), framework::graph_problem(args, config, deeper_cnns::stream_problem(spec)),
                           fast_training::graph_replay());
    framework::print_summary(framework::train_on_gpu(config, data, kit, run), "GPU", kBoxScore);
    return 0;
  });
}
