#pragma once
// The command line of lesson 09's trainer (given), shared with the trainers of its network: lesson
// 08's recipe flags and the fast network's own, each default taken from
// FastTrainConfig.
#include <string>

#include "course/cli.hpp"
#include "fast_run.hpp"
#include "framework/train_flags.hpp"

namespace fast_training {

// Declares --model --epochs --batch --lr --optimizer --seed --dataset --data --out --save --graph
// --conv --profile --profile-steps --train-limit --test-limit; --out defaults to out_default.
void add_fast_train_flags(course::ArgParser& args, const std::string& out_default);
// The config those flags give (flags not given keep FastTrainConfig's defaults). `options`: which
// --model a trainer built on this one takes (any layer list, models by name).
FastTrainConfig fast_train_config(const course::ArgParser& args, const framework::FlagOptions& options = {});

// The shape of a step on one GPU, for the trainers that take it (train_fast and those built on it;
// a trainer on several GPUs keeps one stream each): --branches on|off (09.12; `counters`
// names what goes to the side stream besides the weight gradients) and --thin on|off (09.13), both
// on by default.
struct StepShape {
  bool branches = true, thin = true;
};
void add_step_shape_flags(course::ArgParser& args, const std::string& counters);
StepShape step_shape(const course::ArgParser& args);

}  // namespace fast_training
