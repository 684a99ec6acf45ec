// The course framework: the GPU run on several ranks (rank_trainer.hpp).
#include "framework/rank_trainer.hpp"

#include "device_run.hpp"

#include "course/device_info.hpp"
#include "course/error.hpp"

namespace framework {

TrainSummary train_on_ranks(const TrainConfig& config, const TrainingData& data, const std::vector<int>& devices,
                            const std::function<DeviceRun(const Rank& rank)>& run_of_rank) {
  if (devices.empty()) throw course::Error("train_on_ranks: no GPU was given");
  // The settings and outputs are checked once, with rank 0's hooks (every rank's are alike).
  const DeviceRun lead_run = run_of_rank(Rank{0, int(devices.size()), devices[0], nullptr});
  course::require_gpu(lead_run.program);
  if (lead_run.profile && devices.size() > 1)
    throw course::Error("--profile times one GPU's step: run it with one GPU");
  detail::RunStart start = detail::start_run(config, data, lead_run, devices);
  HostBarrier barrier(int(devices.size()));
  std::vector<CounterReport> reports(devices.size());
  const std::string device_line = "devices: " + std::to_string(devices.size()) + " x " +
                                  course::device_summary(devices[0]) + "; " + course::cuda_versions() + "; NCCL " +
                                  nccl_version();
  run_ranks(devices, [&](const Rank& rank) {
    detail::RankSide side;
    side.rank = rank.rank, side.ranks = rank.ranks;
    side.barrier = &barrier, side.reports = &reports;
    side.device_line = device_line;
    detail::train_rank(config, data, run_of_rank(rank), start, side);
  });
  return start.log->summary();
}

}  // namespace framework
