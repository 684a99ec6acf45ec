// Lesson 09's tables (a program above the lessons): the cost table of a training step (step_costs.hpp).
#include "step_costs.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace lesson09 {

double print_step_costs(const host_training::ModelSpec& spec, int batch, const fast_training::Ceilings* ceilings) {
  using fast_training::PassCost;
  const std::vector<host_training::LayerPlan> plans = host_training::plan_layers(spec);
  struct Row {
    std::string name, pass;  // names as lesson 08's --profile: conv1, relu1, pool1, ..., fc1
    PassCost cost;
  };
  std::vector<Row> rows;
  const std::vector<std::string> names = framework::layer_names(plans);
  for (size_t i = 0; i < plans.size(); ++i)
    rows.push_back({names[i], "forward", fast_training::layer_pass_cost(plans[i], batch, false)});
  rows.push_back({"loss", "forward", fast_training::loss_pass_cost(batch, spec.classes, false)});
  rows.push_back({"loss", "backward", fast_training::loss_pass_cost(batch, spec.classes, true)});
  for (size_t i = plans.size(); i-- > 0;)
    rows.push_back({names[i], i == 0 ? "backward (no dx)" : "backward",
                    fast_training::layer_pass_cost(plans[i], batch, true, i != 0)});

  std::printf("| layer | pass | GFLOP | MB | flops/byte | limited by | least time (us) |\n");
  std::printf("|---|---|---:|---:|---:|---|---:|\n");
  PassCost total;
  double least = 0;
  for (const Row& r : rows) {
    const double intensity = r.cost.bytes > 0 ? r.cost.flops / r.cost.bytes : 0;
    const char* limit = "memory";
    std::string time = "-";
    if (ceilings) {
      limit = intensity >= ceilings->ridge() ? "compute" : "memory";
      const double t = fast_training::roofline_seconds(r.cost, *ceilings);
      least += t;
      char text[32];
      std::snprintf(text, sizeof text, "%.1f", t * 1e6);
      time = text;
    } else {
      limit = r.cost.flops > 0 ? "(no GPU)" : "memory";
    }
    std::printf("| %s | %s | %.3f | %.2f | %.1f | %s | %s |\n", r.name.c_str(), r.pass.c_str(), r.cost.flops / 1e9,
                r.cost.bytes / 1e6, intensity, limit, time.c_str());
    total.flops += r.cost.flops;
    total.bytes += r.cost.bytes;
  }
  std::printf("| **step** | all | %.3f | %.2f | %.1f | | %s |\n", total.flops / 1e9, total.bytes / 1e6,
              total.flops / total.bytes, ceilings ? std::to_string(int(least * 1e6 + 0.5)).c_str() : "-");
  return least;
}

}  // namespace lesson09
