// Lesson 08 (given code): the pictures and the .npy files.
#include "pictures.hpp"

#include <algorithm>

#include "course/error.hpp"
#include "course/npy.hpp"
#include "course/png.hpp"
#include "framework/run_pictures.hpp"

namespace mnist_gpu {

namespace {
std::string shape_text(int c, int h, int w) {
  return std::to_string(c) + " MAPS " + std::to_string(h) + "X" + std::to_string(w);
}
}  // namespace

bool write_filters_png(const std::string& path, const GpuNetwork& net) {
  // Lesson 02's picture of the first layer's weights, from the device's copy.
  const host_training::LayerPlan first = host_training::plan_layers(net.spec()).front();
  if (first.weight < 0) return false;
  const framework::ParameterStore& params = net.parameters();
  std::vector<float> w(params.size(size_t(first.weight)));
  CUDA_CHECK(cudaMemcpy(w.data(), params.value(size_t(first.weight)), w.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return framework::write_filters_png(path, first, params.name(size_t(first.weight)), w.data());
}

void write_feature_maps_png(const std::string& path, GpuNetwork& net, const course::Dataset& test,
                            const framework::DeviceDataset& test_on_device, int example) {
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
                         "TEST DIGIT " + std::to_string(example) + " LABEL " +
                             std::to_string(test.labels[size_t(example)])));
  auto& layers = net.layers();
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i]->plan().spec.kind != host_training::LayerKind::conv) continue;
    // Show the map after its ReLU when one follows (what the next layer sees).
    const size_t shown = (i + 1 < layers.size() && layers[i + 1]->plan().spec.kind == host_training::LayerKind::relu)
                             ? i + 1 : i;
    const host_training::LayerPlan& p = layers[shown]->plan();
    std::vector<float> maps(p.out_size());
    CUDA_CHECK(cudaMemcpy(maps.data(), layers[shown]->output(), maps.size() * sizeof(float), cudaMemcpyDeviceToHost));
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
    parts.push_back(course::titled(course::tile_grid(tiles, 16, 4), layers[i]->name() + " " + layers[shown]->name() +
                                                                       ": " + shape_text(p.out_c, p.out_h, p.out_w) +
                                                                       note));
  }
  course::write_png(path, course::stacked(parts));
}

}  // namespace mnist_gpu
