// The course framework: what it reads of a layered network (layered_network.hpp).
#include "framework/layered_network.hpp"

#include "device_run.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"
#include "course/png.hpp"
#include "framework/run_pictures.hpp"

namespace framework {

namespace {

std::string maps_text(int c, int h, int w) {
  return std::to_string(c) + " MAPS " + std::to_string(h) + "X" + std::to_string(w);
}

std::string shape_text(int batch, const LayerPlan& p) {
  if (p.out_h == 1 && p.out_w == 1) return "[" + std::to_string(batch) + "," + std::to_string(p.out_c) + "]";
  return "[" + std::to_string(batch) + "," + std::to_string(p.out_c) + "," + std::to_string(p.out_h) + "," +
         std::to_string(p.out_w) + "]";
}

// " LABEL 7" for a class of the network; "" for a label that is not one (a box regression's box).
std::string label_text(int label, int classes) {
  return label >= 0 && label < classes ? " LABEL " + std::to_string(label) : "";
}

}  // namespace

bool write_filters_png(const std::string& path, LayeredNetwork& net) {
  if (net.layer_count() == 0) return false;
  const LayerPlan& first = net.layer_plan(0);
  if (first.weight < 0) return false;
  const ParameterStore& params = net.parameters();
  std::vector<float> w(params.size(size_t(first.weight)));
  CUDA_CHECK(cudaMemcpy(w.data(), params.value(size_t(first.weight)), w.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return write_filters_png(path, first, params.name(size_t(first.weight)), w.data());
}

void write_feature_maps_png(const std::string& path, LayeredNetwork& net, const course::Dataset& test,
                            const DeviceDataset& test_on_device, int example) {
  if (example < 0 || example >= test.count()) return;
  const int h = test.images.dim(2), w = test.images.dim(3);
  const size_t per_example = size_t(test_on_device.per_example);
  net.forward(test_on_device.images.data() + size_t(example) * per_example, 1);

  std::vector<course::Image> parts;
  const int step = course::tile_step(std::max(h, w));  // a huge image: every step-th pixel
  parts.push_back(course::titled(course::example_image(test.images.data() + size_t(example) * per_example,
                                                       test.images.dim(1), h, w)
                                     .every(step)
                                     .scaled(step > 1 ? 1 : 4),
                                 "TEST DIGIT " + std::to_string(example) + label_text(test.labels[size_t(example)],
                                                                                       net.classes())));
  const size_t layers = net.layer_count();
  for (size_t i = 0; i < layers; ++i) {
    if (net.layer_plan(i).spec.kind != LayerKind::conv) continue;
    // Show the map after its ReLU when one follows (what the next layer sees).
    const size_t shown = (i + 1 < layers && net.layer_plan(i + 1).spec.kind == LayerKind::relu) ? i + 1 : i;
    const LayerPlan& p = net.layer_plan(shown);
    std::vector<float> maps(p.out_size());
    CUDA_CHECK(cudaMemcpy(maps.data(), net.layer_output(shown), maps.size() * sizeof(float), cudaMemcpyDeviceToHost));
    // At most course::kMaxTiles maps, each at most course::kMaxTileSide pixels a side (the title says so).
    const int map_step = course::tile_step(std::max(p.out_h, p.out_w)), maps_shown = std::min(p.out_c, course::kMaxTiles);
    const int scale = map_step > 1 ? 1 : std::max(1, 56 / std::max(p.out_h, 1));
    std::vector<course::Image> tiles;
    for (int c = 0; c < maps_shown; ++c) {
      const float* plane = maps.data() + size_t(c) * p.out_h * p.out_w;
      // Each map on its own scale, 0 .. its largest value (ReLU outputs are >= 0).
      const float hi = std::max(*std::max_element(plane, plane + size_t(p.out_h) * p.out_w), 1e-6f);
      tiles.push_back(course::gray_image(plane, p.out_h, p.out_w, 0.0f, hi).every(map_step).scaled(scale));
    }
    std::string note;
    if (maps_shown < p.out_c) note += " (THE FIRST " + std::to_string(maps_shown) + ")";
    if (map_step > 1) note += " (EVERY " + std::to_string(map_step) + "TH PIXEL)";
    parts.push_back(course::titled(course::tile_grid(tiles, 16, 4), net.layer_name(i) + " " + net.layer_name(shown) +
                                                                        ": " + maps_text(p.out_c, p.out_h, p.out_w) +
                                                                        note));
  }
  course::write_png(path, course::stacked(parts));
}

void profile_layers(std::FILE* out, LayeredNetwork& net, DeviceUpdate& update, const DeviceDataset& train, int batch,
                    int steps, const StepKernels& kernels, const std::string& what, int warmup) {
  ParameterStore& params = net.parameters();
  const int n = train.count;
  batch = std::min(batch, n);
  if (batch < 1 || steps < 1) return;

  detail::TrainingSnapshot snapshot(net, update);  // profiling runs real steps: they change both

  course::DeviceBuffer<float> x(size_t(batch) * train.per_example);
  course::DeviceBuffer<int> labels{size_t(batch)};
  std::vector<int> in_order(static_cast<size_t>(n));
  std::iota(in_order.begin(), in_order.end(), 0);
  course::DeviceBuffer<int> order(in_order);
  course::DeviceBuffer<double> loss_sum(1);
  course::DeviceBuffer<int> bad_step(1);
  loss_sum.zero();
  bad_step.upload(std::vector<int>{-1});
  const int batches = n / batch;  // full batches only: every measured step has the same shape

  ProfiledStep step;
  for (size_t i = 0; i < net.layer_count(); ++i) {
    step.layers.push_back(net.layer_name(i));
    step.shapes.push_back(shape_text(batch, net.layer_plan(i)));
    step.has_update.push_back(net.layer_plan(i).weight >= 0);
  }
  step.loss = net.loss_name();
  step.gather_shape = "[" + std::to_string(batch) + "," + std::to_string(train.per_example) + "]";
  step.observe = [&](PassObserver* o) { net.set_observer(o); };
  step.gather = [&](int s) {
    kernels.gather(train, order.data(), (s % batches) * batch, batch, x.data(), labels.data(), nullptr);
  };
  step.forward_backward = [&] { net.forward_backward(x.data(), labels.data(), batch); };
  step.accumulate = [&](int s) {
    kernels.accumulate(net.row_loss(), batch, s + 1, loss_sum.data(), bad_step.data(), nullptr);
  };
  step.begin_update = [&] { update.begin_step(); };
  step.update = [&](size_t i) {  // one launch per layer's parameters (weight and bias are neighbours in the store)
    const size_t w = size_t(net.layer_plan(i).weight);
    const size_t begin = params.offset(w), end = params.offset(w + 1) + params.size(w + 1);
    update.update_range(begin, end - begin);
  };
  step.fused_update = [&] { update.step(nullptr); };
  const PassProfile profile = profile_passes(step, steps, warmup);

  snapshot.restore();
  CUDA_CHECK(cudaDeviceSynchronize());
  print_pass_profile(out, profile, "model " + course::shown(net.spec().name, 100) + ", " + what + ", batch " + std::to_string(batch),
                     params.parameter_count());
}

}  // namespace framework
