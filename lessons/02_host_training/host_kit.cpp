// Lesson 02 (given code): this lesson's kit for the framework's CPU trainer (host_training.hpp's
// host_kit): the network, the update rules, the epoch's order and batches, the evaluation.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "course/error.hpp"
#include "host_training.hpp"

namespace host_training {

framework::HostKit host_kit() {
  framework::HostKit kit;
  kit.network = [](const ModelSpec& spec, std::vector<Parameter> init) {
    return std::make_unique<HostNetwork>(spec, std::move(init));
  };
  kit.bytes = HostNetwork::bytes_for;
  kit.rules = update_rules();
  kit.epoch_order = epoch_order;
  kit.gather = gather_batch;
  kit.evaluate = evaluate;
  return kit;
}

framework::HostKit host_kit(const NetworkMaker& make, const std::string& what, const NetworkBytes& bytes) {
  framework::HostKit kit = host_kit();
  if (make) kit.network = make;
  kit.network_text = what;
  if (bytes) kit.bytes = bytes;
  return kit;
}

}  // namespace host_training
