#pragma once
// The course framework: how lessons register their layers, on either backend. For each layer kind a
// lesson adds the function that makes one (a later add for a kind replaces the earlier one: a later
// lesson's faster layer takes the kind over); make() builds a network's list from its plan, asking a
// block's maker for its inner lists, then runs the registered passes over the list in order.
//
// A pass is a named change of the made network (a fusion: "fold each ReLU into the max-pool after
// it"). Makers see one layer and its neighbours' plans; what joins two made layers is a pass, so a
// maker keeps no state from one layer to the next and one set of makers builds any number of networks.
//
//   plan --> make each layer (its kind's maker; a block: its inner lists too) --> pass 1 --> pass 2 --> layers
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "course/error.hpp"
#include "framework/model.hpp"

namespace framework {

// Where the layer being made sits.
struct LayerPlace {
  const std::vector<LayerPlan>* list = nullptr;  // its list (the network's, or a block's inner list)
  size_t index = 0;                              // its index in that list: its neighbours are there
  size_t at = 0;                                 // its place in all_layers' order (0: the network's first)
  std::string name;                              // "conv1"; inside a block "res1.conv1"
  // Whether its input is the network's input (the first layer, or the first of a block's list when
  // the block's input is): nobody reads that gradient.
  bool reads_network_input = false;
  const LayerPlan& plan() const { return (*list)[index]; }
};

// Layer: HostLayer or DeviceLayer; Context: what the layers of one network share (their parameters,
// threads, the largest batch). Context::side names the backend in messages ("host", "GPU").
template <class Layer, class Context>
class LayerMakers {
 public:
  using Layers = std::vector<std::unique_ptr<Layer>>;
  // A block's maker calls it for each of its inner lists: their layers take the places after it.
  using Inner = std::function<Layers(const std::vector<LayerPlan>& list)>;
  using Make = std::function<std::unique_ptr<Layer>(const LayerPlan& plan, const Context& context,
                                                    const LayerPlace& place, const Inner& inner)>;
  using Pass = std::function<void(Layers& layers)>;

  LayerMakers& add(LayerKind kind, Make make) {
    put(makers_, kind, std::move(make));
    return *this;
  }
  // Passes run in the order they were added; a later pass of the same name replaces the earlier one.
  LayerMakers& add_pass(const std::string& name, Pass pass) {
    put(passes_, name, std::move(pass));
    return *this;
  }
  bool makes(LayerKind kind) const { return find(kind) != nullptr; }
  // The maker registered for `kind` (empty where none is): a later lesson's maker may hand the
  // layers it does not run to the one it replaces.
  Make maker(LayerKind kind) const {
    const Make* m = find(kind);
    return m ? *m : Make();
  }
  std::vector<std::string> pass_names() const {
    std::vector<std::string> names;
    for (const auto& entry : passes_) names.push_back(entry.first);
    return names;
  }

  // The network's layers: one for every layer of `plan`, in order, then every pass. `made`, when not
  // null, receives every layer made, inner ones included (a network that keeps some at hand).
  // Throws course::Error for a kind nobody registered or a maker that makes nothing.
  Layers make(const std::vector<LayerPlan>& plan, const Context& context, std::vector<Layer*>* made = nullptr) const {
    size_t place = 0;
    Layers layers = make_list(plan, "", true, context, place, made);
    for (const auto& entry : passes_) entry.second(layers);
    return layers;
  }

 private:
  // The entry of `key` replaced in its place, or a new one at the end.
  template <class Key, class Value>
  static void put(std::vector<std::pair<Key, Value>>& entries, const Key& key, Value value) {
    for (auto& entry : entries)
      if (entry.first == key) {
        entry.second = std::move(value);
        return;
      }
    entries.emplace_back(key, std::move(value));
  }
  const Make* find(LayerKind kind) const {
    for (const auto& [k, m] : makers_)
      if (k == kind) return &m;
    return nullptr;
  }

  // first_reads_input: whether the list's input is the network's input.
  Layers make_list(const std::vector<LayerPlan>& list, const std::string& prefix, bool first_reads_input,
                   const Context& context, size_t& place, std::vector<Layer*>* made) const {
    Layers layers;
    const std::vector<std::string> names = layer_names(list);
    for (size_t i = 0; i < list.size(); ++i) {
      const LayerPlan& p = list[i];
      const LayerPlace where{&list, i, place++, prefix + names[i], first_reads_input && i == 0};
      const Make* maker = find(p.spec.kind);
      if (!maker)
        throw course::Error(std::string("no ") + Context::side + " layer is registered for '" + layer_text(p.spec) +
                            "'");
      const Inner inner = [&](const std::vector<LayerPlan>& l) {
        return make_list(l, where.name + ".", where.reads_network_input, context, place, made);
      };
      layers.push_back((*maker)(p, context, where, inner));
      if (!layers.back())
        throw course::Error(std::string("the ") + Context::side + " layer maker for '" + layer_text(p.spec) +
                            "' made none");
      if (made) made->push_back(layers.back().get());
    }
    return layers;
  }

  std::vector<std::pair<LayerKind, Make>> makers_;
  std::vector<std::pair<std::string, Pass>> passes_;
};

}  // namespace framework
