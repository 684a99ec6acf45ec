// Lesson 13's study (a program above the lessons): data parallelism, measured. The networks' costs
// (counted: any machine), then on the GPUs: NCCL's all-reduce bandwidth and 13.4's alpha-beta fit to it,
// and the data-parallel step of 13.1-13.3 on one and on N GPUs for every network and batch: the scaling
// table, the model's predictions beside it, scaling.csv and scaling.png. --fit FILE fits a recorded all-
// reduce sweep instead (any machine).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "course/atomic_file.hpp"
#include "course/chart.hpp"
#include "course/cli.hpp"
#include "course/device_info.hpp"
#include "course/main.hpp"
#include "framework/ranks.hpp"
#include "scaling.hpp"
#include "scaling_model.hpp"

#ifndef COURSE_OUTPUT_DIR
#define COURSE_OUTPUT_DIR "out"
#endif

int main(int argc, char** argv) {
  return course::run_main([&] {
    course::ArgParser args("lesson13_data_parallel",
                           "Lesson 13: training on several GPUs, measured: NCCL's all-reduce, then images per second of\n"
                           "the data-parallel step on one and on N GPUs for six networks and six batch sizes.");
    args.add_int("--gpus", 0, 0, 64, "GPUs to use: 0 takes every usable GPU");
    args.add_int("--steps", 20, 1, 10000, "steps in each timed graph");
    args.add_int("--repeats", 5, 1, 1000, "timed replays of each graph (the median is reported)");
    args.add_flag("--quick", "two networks, two batch sizes, fewer all-reduce sizes");
    args.add_string("--networks", "", "the networks to study, e.g. mnist_cnn,colour_cnn (default: all six; --quick: mlp,a)");
    args.add_string("--batches", "", "batch sizes a GPU, e.g. 64,512 (default: 32,64,128,256,512,1024; --quick: 64,128)");
    args.add_flag("--cpu-only", "only the counted table of the networks (no GPU needed)");
    args.add_string("--fit", "", "fit 13.4's alpha-beta model to this allreduce.csv (e.g. docs/lesson13/allreduce_nvlink.csv); no GPU needed");
    args.add_string("--scaling", "", "with --fit: hold this scaling.csv of the same machine and link against the model (table and scaling_model.png in --out)");
    args.add_string("--out", std::string(COURSE_OUTPUT_DIR) + "/lesson13", "where scaling.csv, scaling.png and allreduce.csv go");
    if (!args.parse(argc, argv)) return 0;
    const bool quick = args.flag("--quick");

    const std::string names = args.given("--networks") ? args.get_string("--networks") : quick ? "mlp,a" : "";
    const std::vector<data_parallel::StudyNetwork> networks =
        data_parallel::pick_networks(data_parallel::study_networks(), names);
    const std::vector<int> batches = data_parallel::parse_batches(
        args.given("--batches") ? args.get_string("--batches") : quick ? "64,128" : "32,64,128,256,512,1024");
    const int asked = static_cast<int>(args.get_int("--gpus"));
    if (args.given("--fit")) {
      const std::string path = args.get_string("--fit");
      const data_parallel::AllReduceSweep sweep = data_parallel::read_allreduce_csv(path);
      std::vector<data_parallel::MeasuredStep> steps;  // every file read and checked before the fit
      if (args.given("--scaling")) {
        steps = data_parallel::read_scaling_csv(args.get_string("--scaling"));
        data_parallel::study_ranks(steps);
      }
      const data_parallel::AlphaBeta model = data_parallel::fit_alpha_beta(sweep.points, sweep.ranks);  // 13.4
      data_parallel::print_alpha_beta_fit(sweep, model, path);
      data_parallel::print_network_table(networks, sweep.ranks, &model);
      if (args.given("--scaling")) {
        data_parallel::print_model_table(steps, model);
        const std::string out = args.get_string("--out");
        course::create_folder(out, "for --out");
        const std::string png = out + "/scaling_model.png";
        course::write_png(png, course::line_chart(data_parallel::model_chart(steps, model, "")));
        std::printf("\nwrote %s\n", png.c_str());
      }
      std::printf("\nfit done\n");
      return 0;
    }
    if (args.given("--scaling")) throw course::Error("--scaling needs --fit: the model to hold the study against");
    if (course::announce_cpu_only("13", "13.1-13.3 (the broadcast, the all-reduce, the overlap) and the scaling study", args.flag("--cpu-only"))) {
      data_parallel::print_network_table(networks, std::max(asked, 2));
      std::printf("\nnetwork table done\n");
      return 0;
    }
    const int ranks = asked > 0 ? asked : framework::usable_gpus();
    framework::first_devices(ranks);  // says so when the machine has fewer
    const std::string gpu = course::device_summary(0);
    std::printf("devices: %d x %s; %s; NCCL %s\n", ranks, gpu.c_str(), course::cuda_versions().c_str(),
                framework::nccl_version().c_str());
    data_parallel::print_network_table(networks, std::max(ranks, 2));
    const std::string out = args.get_string("--out");
    course::create_folder(out, "for --out");
    data_parallel::AlphaBeta model;
    if (ranks >= 2) {
      const data_parallel::AllReduceSweep sweep = data_parallel::print_allreduce_table(ranks, out + "/allreduce.csv", quick);
      model = data_parallel::fit_alpha_beta(sweep.points, ranks);  // 13.4
      data_parallel::print_alpha_beta_fit(sweep, model, "this sweep");
    } else
      std::printf("\none GPU: nothing to all-reduce with. Only each network's own step is timed; the N-GPU columns need two GPUs.\n");

    std::printf("\ntiming (graphs of %d steps, median of %d replays; synthetic data):\n", int(args.get_int("--steps")),
                int(args.get_int("--repeats")));
    const std::vector<data_parallel::ScalingRow> rows = data_parallel::measure_scaling(
        networks, batches, ranks, static_cast<int>(args.get_int("--steps")), static_cast<int>(args.get_int("--repeats")));
    data_parallel::report_scaling(rows, out, gpu, ranks >= 2 ? &model : nullptr);
    std::printf("scaling done\n");
    return 0;
  });
}
