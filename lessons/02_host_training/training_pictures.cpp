// Lesson 02 (given code): the pictures of a finished training run.
#include "training_pictures.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "course/png.hpp"

namespace host_training {

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
}  // namespace

void write_filters_png(const std::string& path, const HostNetwork& net) {
  const auto& plan = net.plan();
  const auto first_conv = std::find_if(plan.begin(), plan.end(), [](const LayerPlan& p) { return p.spec.kind == LayerKind::conv; });
  if (first_conv == plan.end()) return;
  const LayerPlan& p = *first_conv;
  const Parameter& w = net.parameters()[size_t(p.weight)];
  const int k = p.spec.kernel, per_filter = p.in_c * k * k;
  const int scale = std::max(4, 48 / k), cols = std::min(p.out_c, 10), pad = 6;
  // One tile per output channel (its input channels side by side), `cols` tiles per row.
  const course::Image first = course::filter_grid(w.value.data(), 1, p.in_c, k, k, scale);
  const int rows = (p.out_c + cols - 1) / cols;
  course::Image grid(cols * (first.width + pad) + pad, rows * (first.height + pad) + pad, kBackground);
  for (int o = 0; o < p.out_c; ++o) {
    const course::Image tile = course::filter_grid(w.value.data() + size_t(o) * per_filter, 1, p.in_c, k, k, scale);
    grid.paste(tile, pad + (o % cols) * (first.width + pad), pad + (o / cols) * (first.height + pad));
  }
  course::write_png(path, titled(grid, "CONV1 FILTERS (" + std::to_string(p.out_c) + ")"));
}

void write_misclassified_png(const std::string& path, const course::Dataset& test, const std::vector<int>& predictions,
                             int limit) {
  std::vector<int> wrong;
  for (int i = 0; i < test.count() && int(wrong.size()) < limit; ++i)
    if (predictions[size_t(i)] != test.labels[size_t(i)]) wrong.push_back(i);
  const int h = test.images.dim(2), w = test.images.dim(3), scale = 3;
  const size_t per_example = test.count() ? test.images.size() / size_t(test.count()) : 0;
  const int cols = 10, pad = 4, caption_h = 16;
  const int tile_w = w * scale + pad, tile_h = h * scale + caption_h + pad;
  const int rows = std::max(1, (int(wrong.size()) + cols - 1) / cols);
  course::Image grid(cols * tile_w + pad, rows * tile_h + pad, kBackground);
  for (size_t j = 0; j < wrong.size(); ++j) {
    const int i = wrong[j];
    const int x = pad + int(j % cols) * tile_w, y = pad + int(j / cols) * tile_h;
    // Only the first channel is drawn: the data sets of this course are grey.
    grid.paste(course::gray_image(test.images.data() + size_t(i) * per_example, h, w).scaled(scale), x, y);
    const std::string caption = std::to_string(test.labels[size_t(i)]) + ">" + std::to_string(predictions[size_t(i)]);
    course::draw_text(grid, x + 2, y + h * scale + 3, caption, {255, 200, 80}, 2);
  }
  course::write_png(path, titled(grid, "MISCLASSIFIED: LABEL>PREDICTED (" + std::to_string(wrong.size()) + " SHOWN)"));
}

void write_confusion_png(const std::string& path, const std::vector<int>& confusion, int classes) {
  std::vector<float> counts(confusion.begin(), confusion.end());
  const int cell = 40, margin = 20;
  const course::Image map = course::heatmap(counts.data(), classes, classes, cell, true);
  course::Image body(map.width + margin, map.height + margin, kBackground);
  body.paste(map, margin, margin);
  for (int k = 0; k < classes; ++k) {  // class numbers along both axes
    const std::string label = std::to_string(k);
    course::draw_text(body, margin + k * cell + (cell - course::text_width(label, 2)) / 2, 4, label, kInk, 2);
    course::draw_text(body, 4, margin + k * cell + (cell - 10) / 2, label, kInk, 2);
  }
  course::write_png(path, titled(body, "CONFUSION: ROW = TRUE  COLUMN = PREDICTED"));
}

}  // namespace host_training
