// Lesson 08 (given code): metrics.csv, the pictures and the .npy files.
#include "outputs.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "course/error.hpp"
#include "course/npy.hpp"
#include "course/png.hpp"

namespace mnist_gpu {

namespace {
const course::Rgb kInk{230, 230, 230};
const course::Rgb kBackground{40, 40, 40};

// A picture with a title line above it.
course::Image titled(const course::Image& body, const std::string& title) {
  const int scale = 2, margin = 8, title_h = 5 * scale + 2 * margin;
  course::Image out(std::max(body.width, course::text_width(title, scale) + 2 * margin), body.height + title_h,
                    kBackground);
  course::draw_text(out, margin, margin, title, kInk, scale);
  out.paste(body, 0, title_h);
  return out;
}

// Stacks pictures vertically.
course::Image stacked(const std::vector<course::Image>& parts) {
  int w = 0, h = 0;
  for (const auto& p : parts) w = std::max(w, p.width), h += p.height;
  course::Image out(w, h, kBackground);
  int y = 0;
  for (const auto& p : parts) out.paste(p, 0, y), y += p.height;
  return out;
}

std::string shape_text(int c, int h, int w) {
  return std::to_string(c) + " MAPS " + std::to_string(h) + "X" + std::to_string(w);
}
}  // namespace

MetricsCsv::MetricsCsv(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  std::ofstream out(path_);
  if (!out) throw course::Error(path_ + ": cannot be opened for writing");
  out << "epoch,train_loss,train_accuracy,test_loss,test_accuracy,seconds\n";
}

void MetricsCsv::add(int epoch, double train_loss, double train_accuracy, double test_loss, double test_accuracy,
                     double seconds) {
  if (path_.empty()) return;
  std::ofstream out(path_, std::ios::app);
  char row[160];
  std::snprintf(row, sizeof row, "%d,%.6f,%.6f,%.6f,%.6f,%.4f\n", epoch, train_loss, train_accuracy, test_loss,
                test_accuracy, seconds);
  out << row;
  if (!out) throw course::Error(path_ + ": write failed");
}

void write_filters_png(const std::string& path, const GpuNetwork& net) {
  const ParameterStore& params = net.parameters();
  if (params.tensors() == 0 || params.shape(0).size() != 4) return;  // no conv layer first
  const std::vector<int>& s = params.shape(0);                       // conv1.weight: O x I x k x k
  const std::vector<float> w = [&] {
    std::vector<float> v(params.size(0));
    CUDA_CHECK(cudaMemcpy(v.data(), params.value(0), v.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return v;
  }();
  // One tile per output channel (its input channels side by side), 8 tiles per row.
  const int out_c = s[0], in_c = s[1], kh = s[2], kw = s[3], per_filter = in_c * kh * kw;
  const int scale = std::max(4, 48 / kh), cols = std::min(out_c, 8), pad = 6;
  const course::Image first = course::filter_grid(w.data(), 1, in_c, kh, kw, scale);
  course::Image grid(cols * (first.width + pad) + pad, ((out_c + cols - 1) / cols) * (first.height + pad) + pad,
                     kBackground);
  for (int o = 0; o < out_c; ++o)
    grid.paste(course::filter_grid(w.data() + size_t(o) * per_filter, 1, in_c, kh, kw, scale),
               pad + (o % cols) * (first.width + pad), pad + (o / cols) * (first.height + pad));
  course::write_png(path, titled(grid, params.name(0) + " (" + std::to_string(s[0]) + " FILTERS)"));
}

void write_feature_maps_png(const std::string& path, GpuNetwork& net, const course::Dataset& test,
                            const DeviceDataset& test_on_device, int example) {
  if (example < 0 || example >= test.count()) return;
  const int h = test.images.dim(2), w = test.images.dim(3);
  const size_t per_example = size_t(test_on_device.per_example);
  net.forward(test_on_device.images.data() + size_t(example) * per_example, 1);

  std::vector<course::Image> parts;
  parts.push_back(titled(course::gray_image(test.images.data() + size_t(example) * per_example, h, w).scaled(4),
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
    const int cols = std::min(p.out_c, 16), scale = std::max(1, 56 / std::max(p.out_h, 1)), pad = 4;
    const int tile_w = p.out_w * scale + pad, tile_h = p.out_h * scale + pad;
    course::Image grid(cols * tile_w + pad, ((p.out_c + cols - 1) / cols) * tile_h + pad, kBackground);
    for (int c = 0; c < p.out_c; ++c) {
      const float* plane = maps.data() + size_t(c) * p.out_h * p.out_w;
      // Each map on its own scale, 0 .. its largest value (ReLU outputs are >= 0).
      const float hi = std::max(*std::max_element(plane, plane + size_t(p.out_h) * p.out_w), 1e-6f);
      grid.paste(course::gray_image(plane, p.out_h, p.out_w, 0.0f, hi).scaled(scale), pad + (c % cols) * tile_w,
                 pad + (c / cols) * tile_h);
    }
    parts.push_back(titled(grid, layers[i]->name() + " " + layers[shown]->name() + ": " +
                                     shape_text(p.out_c, p.out_h, p.out_w)));
  }
  course::write_png(path, stacked(parts));
}

void save_npy(const std::string& dir, const GpuNetwork& net, const GpuEvaluation& eval, int classes) {
  std::filesystem::create_directories(dir);
  for (const host_training::Parameter& p : net.parameters().download()) {
    std::vector<size_t> shape(p.shape.begin(), p.shape.end());
    course::write_npy(dir + "/" + p.name + ".npy", p.value.data(), shape);
  }
  const size_t count = eval.logits.size() / size_t(classes);
  course::write_npy(dir + "/test_logits.npy", eval.logits.data(), {count, size_t(classes)});
}

}  // namespace mnist_gpu
