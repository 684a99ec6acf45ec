// The course framework: the pictures of a finished run (run_pictures.hpp).
#include "framework/run_pictures.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "course/arithmetic.hpp"
#include "course/png.hpp"

namespace framework {

bool write_filters_png(const std::string& path, const LayerPlan& first, const std::string& name, const float* weights) {
  if (first.spec.kind == LayerKind::conv) {
    const int k = first.spec.kernel;
    course::write_png(path, course::filter_panel(weights, first.out_c, first.in_c, k, k, 10,
                                                 course::filter_panel_title(name, first.out_c, first.in_c, k, k)));
    return true;
  }
  if (first.spec.kind == LayerKind::dense) {  // row u of W [out x C*H*W] is a C x H x W image
    const int units = std::min(first.out_c, 64);
    const std::string title = name + ": UNITS 0-" + std::to_string(units - 1) + " OF " + std::to_string(first.out_c) +
                              ", EACH AS A " + std::to_string(first.in_h) + "X" + std::to_string(first.in_w) +
                              (first.in_c == 1 ? " IMAGE" : " IMAGE OF " + std::to_string(first.in_c) + " CHANNELS");
    course::write_png(path, course::filter_panel(weights, units, first.in_c, first.in_h, first.in_w, 8, title));
    return true;
  }
  return false;
}

std::string file_list(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

void write_misclassified_png(const std::string& path, const course::Dataset& test, const std::vector<int>& predictions,
                             int limit) {
  std::vector<int> wrong;
  for (int i = 0; i < test.count() && int(wrong.size()) < limit; ++i)
    if (predictions[size_t(i)] != test.labels[size_t(i)]) wrong.push_back(i);
  const int h = test.images.dim(2), w = test.images.dim(3), caption_h = 16;
  // Small images three times enlarged; an image larger than course::kMaxTileSide a side shrunk to fit.
  const int step = course::tile_step(std::max(h, w)), scale = step > 1 ? 1 : 3;
  const int tile_w = std::max(course::ceil_div(w, step) * scale, 40), tile_h = course::ceil_div(h, step) * scale;
  const size_t per_example = test.count() ? test.images.size() / size_t(test.count()) : 0;
  std::vector<course::Image> tiles;
  for (const int i : wrong) {
    // The image (in colour when it has three channels) with "label>predicted" under it.
    course::Image tile(tile_w, tile_h + caption_h, course::kPanelBackground);
    tile.paste(course::example_image(test.images.data() + size_t(i) * per_example, test.images.dim(1), h, w)
                   .every(step)
                   .scaled(scale),
               0, 0);
    const std::string caption = std::to_string(test.labels[size_t(i)]) + ">" + std::to_string(predictions[size_t(i)]);
    course::draw_text(tile, 2, tile_h + 3, caption, {255, 200, 80}, 2);
    tiles.push_back(tile);
  }
  if (tiles.empty()) tiles.emplace_back(tile_w, tile_h + caption_h, course::kPanelBackground);
  const std::string note = step > 1 ? " (EVERY " + std::to_string(step) + "TH PIXEL)" : "";
  course::write_png(path, course::titled(course::tile_grid(tiles, 10, 4), "MISCLASSIFIED: LABEL>PREDICTED (" +
                                                                             std::to_string(wrong.size()) + " SHOWN)" +
                                                                             note));
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

}  // namespace framework
