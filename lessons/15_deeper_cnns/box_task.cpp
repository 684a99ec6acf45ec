// Lesson 15 (given): the box task's canvases, its report and its picture (box_task.hpp).
#include "box_task.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "course/error.hpp"
#include "course/npy.hpp"
#include "course/png.hpp"
#include "course/rng.hpp"

namespace deeper_cnns {

namespace {

constexpr int kDigitSide = 28;

// The digit's 28 x 28 plane resized to side x side: each new pixel samples the old plane at its
// centre, between the four nearest old pixels (bilinear; the edges repeat).
void resize_bilinear(const float* digit, int side, std::vector<float>& out) {
  out.assign(size_t(side) * side, 0.0f);
  const float step = float(kDigitSide) / float(side);
  for (int r = 0; r < side; ++r) {
    const float v = std::clamp((float(r) + 0.5f) * step - 0.5f, 0.0f, float(kDigitSide - 1));
    const int r0 = std::min(int(v), kDigitSide - 2);
    const float fr = v - float(r0);
    for (int c = 0; c < side; ++c) {
      const float u = std::clamp((float(c) + 0.5f) * step - 0.5f, 0.0f, float(kDigitSide - 1));
      const int c0 = std::min(int(u), kDigitSide - 2);
      const float fc = u - float(c0);
      const float* p = digit + r0 * kDigitSide + c0;
      const float top = p[0] + fc * (p[1] - p[0]), bottom = p[kDigitSide] + fc * (p[kDigitSide + 1] - p[kDigitSide]);
      out[size_t(r) * side + c] = top + fr * (bottom - top);
    }
  }
}

void draw_frame(course::Image& image, int x0, int y0, int x1, int y1, course::Rgb color) {
  x0 = std::clamp(x0, 0, image.width - 1), x1 = std::clamp(x1, 0, image.width - 1);
  y0 = std::clamp(y0, 0, image.height - 1), y1 = std::clamp(y1, 0, image.height - 1);
  for (int x = x0; x <= x1; ++x) image.set(x, y0, color), image.set(x, y1, color);
  for (int y = y0; y <= y1; ++y) image.set(x0, y, color), image.set(x1, y, color);
}

}  // namespace

bool valid_box(Box b) { return 0 <= b.x0 && b.x0 < b.x1 && b.x1 <= kCanvas && 0 <= b.y0 && b.y0 < b.y1 && b.y1 <= kCanvas; }

course::Dataset box_canvases(const course::Dataset& digits, uint64_t seed, uint64_t stream) {
  const course::HostTensor& images = digits.images;
  if (digits.count() < 1 || images.dims().size() != 4 || images.dim(1) != 1 || images.dim(2) != kDigitSide ||
      images.dim(3) != kDigitSide)
    throw course::Error("the box task draws 1-channel 28x28 digits (MNIST or Fashion-MNIST) on its canvases");
  const int n = digits.count();
  course::Dataset set;
  set.images = course::HostTensor({n, 1, kCanvas, kCanvas});
  set.labels.resize(size_t(n));
  course::Rng rng(seed, stream);
  std::vector<float> digit;
  for (int i = 0; i < n; ++i) {
    const int side = kMinSide + rng.uniform_int(kMaxSide - kMinSide + 1);
    const int left = rng.uniform_int(kCanvas - side + 1), top = rng.uniform_int(kCanvas - side + 1);
    resize_bilinear(images.data() + size_t(i) * kDigitSide * kDigitSide, side, digit);
    float* canvas = set.images.data() + size_t(i) * kCanvas * kCanvas;
    Box ink{kCanvas, kCanvas, 0, 0};
    for (int r = 0; r < side; ++r)
      for (int c = 0; c < side; ++c) {
        // Whole 1/255 steps: what a byte of the .npy file for PyTorch holds.
        const float v = std::round(std::clamp(digit[size_t(r) * side + c], 0.0f, 1.0f) * 255.0f) / 255.0f;
        const int x = left + c, y = top + r;
        canvas[y * kCanvas + x] = v;
        if (v >= kInk) ink = {std::min(ink.x0, x), std::min(ink.y0, y), std::max(ink.x1, x + 1), std::max(ink.y1, y + 1)};
      }
    if (!valid_box(ink)) ink = {left, top, left + side, top + side};  // no ink: the drawn square
    set.labels[size_t(i)] = pack_box(ink);
  }
  return set;
}

void write_canvases_npy(const std::string& dir, const std::string& split, const course::Dataset& set) {
  const size_t n = size_t(set.count()), plane = size_t(kCanvas) * kCanvas;
  std::vector<uint8_t> bytes(n * plane);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(std::lround(set.images.data()[i] * 255.0f));
  std::vector<int32_t> boxes(n * kBoxOutputs);
  for (size_t i = 0; i < n; ++i) {
    const Box b = unpack_box(set.labels[i]);
    boxes[i * 4 + 0] = b.x0, boxes[i * 4 + 1] = b.y0, boxes[i * 4 + 2] = b.x1, boxes[i * 4 + 3] = b.y1;
  }
  course::write_npy(dir + "/" + split + "_canvases.npy", bytes.data(), {n, size_t(kCanvas), size_t(kCanvas)});
  course::write_npy(dir + "/" + split + "_boxes.npy", boxes.data(), {n, size_t(kBoxOutputs)});
}

BoxReport box_report(const float* outputs, const std::vector<int>& labels) {
  BoxReport r;
  r.count = int(labels.size());
  if (r.count == 0) return r;
  for (size_t i = 0; i < labels.size(); ++i) {
    const float* p = outputs + i * kBoxOutputs;
    float truth[kBoxOutputs];
    box_targets(labels[i], truth);
    const float iou = box_iou(p, truth);
    r.corner_error += corner_error(p, truth, kCanvas);
    r.mean_iou += iou;
    r.hit_rate += iou >= kIouHit;
  }
  r.corner_error /= r.count, r.mean_iou /= r.count, r.hit_rate /= r.count;
  return r;
}

void write_boxes_png(const std::string& path, const course::Dataset& set, const float* outputs, int shown) {
  constexpr int kScale = 2;
  constexpr course::Rgb kTrue{60, 220, 90}, kPredicted{240, 70, 60};
  std::vector<course::Image> tiles;
  for (int i = 0; i < std::min(shown, set.count()); ++i) {
    course::Image tile =
        course::gray_image(set.images.data() + size_t(i) * kCanvas * kCanvas, kCanvas, kCanvas).scaled(kScale);
    const float* p = outputs + size_t(i) * kBoxOutputs;
    const Box t = unpack_box(set.labels[size_t(i)]);
    draw_frame(tile, t.x0 * kScale, t.y0 * kScale, t.x1 * kScale - 1, t.y1 * kScale - 1, kTrue);
    auto at = [&](float v) {  // a fraction of the canvas as a tile pixel (NaN: the edge)
      return std::isfinite(v) ? int(std::lround(std::clamp(v, -1.0f, 2.0f) * kCanvas * kScale)) : 0;
    };
    draw_frame(tile, at(p[0]), at(p[1]), at(p[2]) - 1, at(p[3]) - 1, kPredicted);
    char title[32];
    float truth[kBoxOutputs];
    box_targets(set.labels[size_t(i)], truth);
    std::snprintf(title, sizeof title, "IOU %.2f", double(box_iou(p, truth)));
    tiles.push_back(course::titled(tile, title));
  }
  course::write_png(path, course::titled(course::tile_grid(tiles, 6),
                                         "TEST CANVASES: TRUE BOX GREEN, PREDICTED BOX RED"));
}

}  // namespace deeper_cnns
