#pragma once
// The course framework: a training run's settings (TrainConfig, read from the command line by
// framework/train_flags.hpp) and what a run measured (TrainSummary). Every default of the CPU
// trainer is written here, once: its flags show TrainConfig{}'s values; the GPU trainers start from
// them and change what they train differently.
// dataset "mnist" | "fashion" | "cifar10"; data_dir empty: course::default_data_dir of that data set;
// train_limit / test_limit > 0 keep only the first examples.
#include <cstdint>
#include <string>
#include <vector>

namespace framework {

// The optimizers the course's trainers know; each trainer offers some of them (its --optimizer).
// sgd: SGD with momentum; adam; adadelta; nesterov: SGD with Nesterov momentum.
enum class OptimizerKind { sgd, adam, adadelta, nesterov };
// "sgd", "adam", "adadelta", "nesterov".
const char* optimizer_name(OptimizerKind kind);
// The kind called `name`; course::Error naming the four otherwise.
OptimizerKind optimizer_kind(const std::string& name);

struct TrainConfig {
  std::string model = "small", dataset = "mnist", data_dir, out_dir;
  OptimizerKind optimizer = OptimizerKind::sgd;
  std::string save_dir;  // not empty: the trained parameters and test logits as .npy files there
  int epochs = 3, batch = 32;
  float lr = 0.f;  // 0: the optimizer's default below (learning_rate() says which lr trains)
  // SGD momentum 0.9, batch 32: 0.05 overshoots in epoch 3 (measured), 0.02 does not. Adam's steps
  // are about lr in size whatever the gradient's scale, so it wants a much smaller lr.
  float default_sgd_lr = 0.02f, default_adam_lr = 0.001f;
  float default_adadelta_lr = 1.0f;  // lesson 12's Adadelta scales its own steps: PyTorch's default 1
  float momentum = 0.9f;  // SGD's momentum (0: plain SGD); Adam ignores it
  float rho = 0.9f;       // lesson 12's Adadelta: the decay of its running averages
  uint64_t seed = 1;
  int train_limit = 0, test_limit = 0;
  bool profile = false;     // a GPU trainer's --profile: its table before training
  int profile_steps = 200;  // the steps the profile averages over
  // Step decay (--lr-drops): from the start of each of these epochs (counted from 1, increasing,
  // each >= 2) the learning rate is a tenth of the one before. Empty: one rate for the whole run.
  std::vector<int> lr_drops;

  float default_lr(OptimizerKind kind) const {
    return kind == OptimizerKind::adam ? default_adam_lr : kind == OptimizerKind::adadelta ? default_adadelta_lr : default_sgd_lr;
  }
  float learning_rate() const { return lr > 0.f ? lr : default_lr(optimizer); }
  // The drops at or before epoch `epoch` (counted from 0), and the rate after `drops` of them:
  // learning_rate() divided by 10 that many times. learning_rate_in: the rate of epoch `epoch`.
  int lr_drops_by(int epoch) const;
  float learning_rate_after(int drops) const;
  float learning_rate_in(int epoch) const { return learning_rate_after(lr_drops_by(epoch)); }
};

// --lr-drops's text ("6,9") as TrainConfig::lr_drops for a run of `epochs` epochs; "" gives none.
// Throws course::Error (one line) unless it is a comma-separated list of increasing epochs in
// [2, epochs].
std::vector<int> parse_lr_drops(const std::string& text, int epochs);
struct TrainSummary {
  std::vector<double> epoch_seconds, train_loss, train_accuracy, test_loss, test_accuracy;
};
}  // namespace framework
