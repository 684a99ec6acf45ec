// Lesson 02 (given code): the pictures of a finished training run.
#include "training_pictures.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "course/png.hpp"

namespace host_training {

void write_filters_png(const std::string& path, const HostNetwork& net) {
  const auto& plan = net.plan();
  const auto first_conv = std::find_if(plan.begin(), plan.end(), [](const LayerPlan& p) { return p.spec.kind == LayerKind::conv; });
  if (first_conv == plan.end()) return;
  const LayerPlan& p = *first_conv;
  const Parameter& w = net.parameters()[size_t(p.weight)];
  const int k = p.spec.kernel;
  course::write_png(path, course::filter_panel(w.value.data(), p.out_c, p.in_c, k, k, 10,
                                               course::filter_panel_title(w.name, p.out_c, p.in_c, k, k)));
}

void write_misclassified_png(const std::string& path, const course::Dataset& test, const std::vector<int>& predictions,
                             int limit) {
  std::vector<int> wrong;
  for (int i = 0; i < test.count() && int(wrong.size()) < limit; ++i)
    if (predictions[size_t(i)] != test.labels[size_t(i)]) wrong.push_back(i);
  const int h = test.images.dim(2), w = test.images.dim(3), scale = 3, caption_h = 16;
  const size_t per_example = test.count() ? test.images.size() / size_t(test.count()) : 0;
  std::vector<course::Image> tiles;
  for (const int i : wrong) {
    // The image (in colour when it has three channels) with "label>predicted" under it.
    course::Image tile(w * scale, h * scale + caption_h, course::kPanelBackground);
    tile.paste(course::example_image(test.images.data() + size_t(i) * per_example, test.images.dim(1), h, w)
                   .scaled(scale),
               0, 0);
    const std::string caption = std::to_string(test.labels[size_t(i)]) + ">" + std::to_string(predictions[size_t(i)]);
    course::draw_text(tile, 2, h * scale + 3, caption, {255, 200, 80}, 2);
    tiles.push_back(tile);
  }
  if (tiles.empty()) tiles.emplace_back(w * scale, h * scale + caption_h, course::kPanelBackground);
  course::write_png(path, course::titled(course::tile_grid(tiles, 10, 4),
                                         "MISCLASSIFIED: LABEL>PREDICTED (" + std::to_string(wrong.size()) + " SHOWN)"));
}

void write_confusion_png(const std::string& path, const std::vector<int>& confusion, int classes) {
  std::vector<float> counts(confusion.begin(), confusion.end());
  const int cell = 40, margin = 20;
  const course::Image map = course::heatmap(counts.data(), classes, classes, cell, true);
  course::Image body(map.width + margin, map.height + margin, course::kPanelBackground);
  body.paste(map, margin, margin);
  for (int k = 0; k < classes; ++k) {  // class numbers along both axes
    const std::string label = std::to_string(k);
    course::draw_text(body, margin + k * cell + (cell - course::text_width(label, 2)) / 2, 4, label, course::kPanelInk, 2);
    course::draw_text(body, 4, margin + k * cell + (cell - 10) / 2, label, course::kPanelInk, 2);
  }
  course::write_png(path, course::titled(body, "CONFUSION: ROW = TRUE  COLUMN = PREDICTED"));
}

}  // namespace host_training
