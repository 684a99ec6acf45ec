#pragma once
// The course framework: a GPU network that is a list of layers (lesson 08's GpuNetwork, and every
// layer list built on it), and what the framework reads of its layers: the pictures of the first
// layer's weights and of every conv layer's feature maps, and --profile's table, layer by layer.
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>

#include "course/idx.hpp"
#include "framework/device_data.hpp"
#include "framework/device_network.hpp"
#include "framework/device_trainer.hpp"  // DeviceUpdate, StepKernels
#include "framework/model.hpp"
#include "framework/pass_profile.hpp"

namespace framework {

class LayeredNetwork : public DeviceNetwork {
 public:
  virtual const ModelSpec& spec() const = 0;
  virtual size_t layer_count() const = 0;
  virtual const std::string& layer_name(size_t i) const = 0;  // "conv1", as a PassObserver hears it
  virtual const LayerPlan& layer_plan(size_t i) const = 0;
  virtual const float* layer_output(size_t i) const = 0;     // the last forward pass's, on the device
  virtual std::string loss_name() const = 0;                 // as a PassObserver hears it
  // x: batch examples on the device; every layer forward (no loss).
  virtual void forward(const float* x, int batch) = 0;
  // Tells `observer` when each pass of every layer and of the loss starts (nullptr: nobody).
  virtual void set_observer(PassObserver* observer) = 0;
};

// filters.png: the first layer's weights (write_filters_png of run_pictures.hpp), read from the
// device; false (nothing written) when the first layer has none.
bool write_filters_png(const std::string& path, LayeredNetwork& net);
// feature_maps.png: test example `example` and the activations of every conv layer (after its ReLU,
// when one follows) for it, one grey tile per channel. Runs a forward pass of that one example.
void write_feature_maps_png(const std::string& path, LayeredNetwork& net, const course::Dataset& test,
                            const DeviceDataset& test_on_device, int example = 0);

// --profile for a layered network: `steps` training steps (after `warmup`) on full batches of
// `train` (gathered and summed by `kernels`, on the default stream), each layer's forward and
// backward and each layer's update (the optimizer's update_range over its weight and bias) timed,
// then the table printed, titled "model <name>, <what>, batch <batch>" (what: e.g. "conv auto"). The
// weights and the optimizer's state are saved before and put back after, so profiling
// does not change the run.
void profile_layers(std::FILE* out, LayeredNetwork& net, DeviceUpdate& update, const DeviceDataset& train, int batch,
                    int steps, const StepKernels& kernels, const std::string& what, int warmup = 10);

}  // namespace framework
