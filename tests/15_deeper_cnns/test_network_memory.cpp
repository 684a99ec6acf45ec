// Lesson 15 (given code): what a DeeperHostNetwork will hold by lesson 11's count for a layer list
// (fast_cpu::layer_list_bytes, the number train_deeper --device cpu refuses a run with before
// anything is allocated) against the peak
// resident memory of training steps and evaluations at the trainer's batches, measured.
#include <memory>
#include <vector>

#include "course/rng.hpp"
#include "course_test.hpp"
#include "deeper_host_network.hpp"
#include "fast_host_network.hpp"
#include "resident_memory.hpp"

namespace {

struct MemoryCase {
  const char* model;
  int batch, threads;
};

}  // namespace

TEST_CASE("fast_cpu::layer_list_bytes for a DeeperHostNetwork: not below the peak training steps and evaluations reach",
          "[15-network_memory]") {
  // conv8x8x1p8 and the block's conv9x9x8p4 (648 taps) run on im2col: their workspaces at the
  // evaluation's batch of 256 are most of what the network holds.
  for (const MemoryCase& c : {MemoryCase{"conv8x8x1p8,relu,pool2,dense10", 16, 1},
                              MemoryCase{"conv3x3x8p1,relu,res(conv9x9x8p4,relu,conv1x1x8),pool2,dense10", 32, 2},
                              MemoryCase{"dense16384,relu,dense10", 64, 2}}) {
    CAPTURE(c.model, c.batch, c.threads);
    const host_training::ModelSpec spec = host_training::model_by_name(c.model);
    const std::vector<host_training::LayerPlan> plan = host_training::plan_layers(spec);
    const int eval = host_training::kEvalBatch;
    const uint64_t estimate = fast_cpu::layer_list_bytes(plan, spec.classes, c.batch, eval, c.threads);

    course::Rng rng(15, 0);
    std::vector<float> x(static_cast<size_t>(eval) * 28 * 28);
    for (float& v : x) v = rng.uniform(0.0f, 1.0f);
    std::vector<int> labels(static_cast<size_t>(eval));
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = int(i % 10);
    std::vector<float> logits(static_cast<size_t>(eval) * 10);

    const uint64_t before = course::test::status_bytes("VmRSS:");
    REQUIRE(before > 0);
    REQUIRE(course::test::start_peak());
    {
      auto net = std::make_unique<deeper_cnns::DeeperHostNetwork>(spec, host_training::init_parameters(spec, 1),
                                                                  c.threads);
      // Training batches, an evaluation batch, then a training batch again (the buffers stay grown).
      net->forward_backward(x.data(), labels.data(), c.batch);
      net->forward(x.data(), eval, logits.data());
      net->forward_backward(x.data(), labels.data(), c.batch / 2 + 1);
      net->forward(x.data(), 37, logits.data());
    }
    const uint64_t peak = course::test::status_bytes("VmHWM:"), used = peak > before ? peak - before : 0;
    INFO("estimate " << estimate / 1e6 << " MB, measured peak " << used / 1e6 << " MB above the start");
    // The trainers add host_training::allocator_allowance to it: what resident memory holds beside
    // the buffers (the allocator's freed pieces and bookkeeping, pages of code and stack).
    CHECK(used <= estimate + host_training::allocator_allowance(estimate));
    CHECK(estimate <= 2 * used + (uint64_t(32) << 20));  // and not a figure from nowhere
  }
}
