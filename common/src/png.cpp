#include "course/png.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "course/arithmetic.hpp"
#include "course/atomic_file.hpp"
#include "course/error.hpp"

#define STB_IMAGE_WRITE_IMPLEMENTATION
// stb's own file writers ignore failed writes: only its in-memory encoder is compiled, and the
// bytes go to disk through AtomicFile, which checks every step.
#define STBI_WRITE_NO_STDIO
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#include "stb_image_write.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

namespace course {

Image::Image(int w, int h, Rgb background) : width(w), height(h) {
  if (w <= 0 || h <= 0) throw Error("Image: size must be positive");
  if (static_cast<long long>(w) * h > kMaxImagePixels)
    throw Error("a picture of " + std::to_string(w) + " x " + std::to_string(h) + " pixels is larger than the " +
                std::to_string(kMaxImagePixels) + " pixels the course draws");
  pixels.assign(static_cast<size_t>(w) * h * 3, 0);
  fill_rect(0, 0, w, h, background);
}

int tile_step(int size) { return size <= kMaxTileSide ? 1 : ceil_div(size, kMaxTileSide); }

Image Image::every(int step) const {
  if (step <= 1) return *this;
  Image out(ceil_div(width, step), ceil_div(height, step));
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) out.set(x, y, get(x * step, y * step));
  return out;
}

void Image::set(int x, int y, Rgb c) {
  if (x < 0 || y < 0 || x >= width || y >= height) return;
  uint8_t* p = &pixels[(static_cast<size_t>(y) * width + x) * 3];
  p[0] = c.r, p[1] = c.g, p[2] = c.b;
}

Rgb Image::get(int x, int y) const {
  if (x < 0 || y < 0 || x >= width || y >= height)
    throw Error("Image::get(" + std::to_string(x) + ", " + std::to_string(y) + ") outside the " +
                std::to_string(width) + " x " + std::to_string(height) + " image");
  const uint8_t* p = &pixels[(static_cast<size_t>(y) * width + x) * 3];
  return {p[0], p[1], p[2]};
}

void Image::fill_rect(int x, int y, int w, int h, Rgb c) {
  for (int yy = std::max(y, 0); yy < std::min(y + h, height); ++yy)
    for (int xx = std::max(x, 0); xx < std::min(x + w, width); ++xx) set(xx, yy, c);
}

void Image::paste(const Image& src, int x, int y) {
  for (int yy = 0; yy < src.height; ++yy)
    for (int xx = 0; xx < src.width; ++xx) set(x + xx, y + yy, src.get(xx, yy));
}

Image Image::scaled(int factor) const {
  Image out(width * factor, height * factor);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) out.set(x, y, get(x / factor, y / factor));
  return out;
}

std::vector<uint8_t> encode_png(const Image& image) {
  std::vector<uint8_t> bytes;
  auto append = [](void* context, void* data, int size) {
    auto* out = static_cast<std::vector<uint8_t>*>(context);
    const auto* first = static_cast<const uint8_t*>(data);
    out->insert(out->end(), first, first + size);
  };
  if (!stbi_write_png_to_func(append, &bytes, image.width, image.height, 3, image.pixels.data(), image.width * 3))
    throw Error("PNG encoding of a " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                " image failed (out of memory?)");
  return bytes;
}

void write_png(const std::string& path, const Image& image) {
  const std::vector<uint8_t> bytes = encode_png(image);  // before touching the disk
  create_parent_folder(path);
  write_file_atomically(path, bytes.data(), bytes.size());
}

Image gray_image(const float* plane, int h, int w, float lo, float hi) {
  Image img(w, h);
  const float span = hi > lo ? hi - lo : 1.0f;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float v = (plane[y * w + x] - lo) / span;
      if (!(v >= 0.0f)) v = 0.0f;  // also maps NaN to black
      if (v > 1.0f) v = 1.0f;
      const auto g = static_cast<uint8_t>(std::lround(v * 255.0f));
      img.set(x, y, {g, g, g});
    }
  return img;
}

Image example_image(const float* chw, int channels, int h, int w) {
  if (channels != 3) return gray_image(chw, h, w);
  Image img(w, h);
  auto level = [](float v) {
    if (!(v >= 0.0f)) v = 0.0f;  // also maps NaN to black
    if (v > 1.0f) v = 1.0f;
    return static_cast<uint8_t>(std::lround(v * 255.0f));
  };
  const size_t plane = size_t(h) * w;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t i = size_t(y) * w + x;
      img.set(x, y, {level(chw[i]), level(chw[plane + i]), level(chw[2 * plane + i])});
    }
  return img;
}

Image digit_grid(const float* planes, int count, int h, int w, int cols, int scale) {
  if (count <= 0 || cols <= 0) throw Error("digit_grid: need at least one image and one column");
  std::vector<Image> tiles;
  for (int i = 0; i < count; ++i) tiles.push_back(gray_image(planes + static_cast<size_t>(i) * h * w, h, w).scaled(scale));
  return tile_grid(tiles, cols, 2);
}

namespace {
// Diverging scale: -1 blue, 0 white, +1 red.
Rgb diverging(float v) {
  if (!(v == v)) return {0, 0, 0};
  v = std::max(-1.0f, std::min(1.0f, v));
  const auto fade = static_cast<uint8_t>(std::lround(255.0f * (1.0f - std::fabs(v))));
  return v >= 0 ? Rgb{255, fade, fade} : Rgb{fade, fade, 255};
}
float largest_magnitude(const float* v, size_t n) {
  float peak = 0.0f;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(v[i])) peak = std::max(peak, std::fabs(v[i]));
  return peak;
}
// Sequential scale from dark blue through teal to yellow (0..1).
Rgb sequential(float t) {
  if (!(t == t)) return {0, 0, 0};  // NaN: black, never mistaken for the largest value
  t = std::max(0.0f, std::min(1.0f, t));
  const float stops[3][3] = {{30, 30, 90}, {30, 150, 140}, {250, 230, 40}};
  const int k = t < 0.5f ? 0 : 1;
  const float u = t < 0.5f ? t * 2 : (t - 0.5f) * 2;
  auto mix = [&](int c) { return static_cast<uint8_t>(std::lround(stops[k][c] + u * (stops[k + 1][c] - stops[k][c]))); };
  return {mix(0), mix(1), mix(2)};
}
}  // namespace

Rgb diverging_color(float v, float peak) { return diverging(peak > 0.0f ? v / peak : v); }

Image filter_grid(const float* weights, int out_channels, int in_channels, int kh, int kw, int scale, float peak) {
  const int pad = 2, step = tile_step(std::max(kh, kw));  // a huge filter: every step-th weight
  const int sh = ceil_div(kh, step), sw = ceil_div(kw, step);
  Image grid(in_channels * (sw * scale + pad) + pad, out_channels * (sh * scale + pad) + pad, {60, 60, 60});
  for (int o = 0; o < out_channels; ++o)
    for (int i = 0; i < in_channels; ++i) {
      const float* f = weights + (static_cast<size_t>(o) * in_channels + i) * kh * kw;
      float tile_peak = peak > 0.0f ? peak : largest_magnitude(f, static_cast<size_t>(kh) * kw);
      if (tile_peak == 0.0f) tile_peak = 1.0f;
      const int x0 = pad + i * (sw * scale + pad), y0 = pad + o * (sh * scale + pad);
      for (int y = 0; y < sh; ++y)
        for (int x = 0; x < sw; ++x)
          grid.fill_rect(x0 + x * scale, y0 + y * scale, scale, scale,
                         diverging(f[size_t(y) * step * kw + size_t(x) * step] / tile_peak));
    }
  return grid;
}

std::string legend_number(float v, bool with_plus) {
  if (v == 0.0f) return "0";
  char text[32];
  std::snprintf(text, sizeof text, with_plus ? "%+.2g" : "%.2g", static_cast<double>(v));
  return text;
}

Image color_legend(float peak, const std::string& caption) {
  if (!(peak > 0.0f)) peak = 1.0f;  // all-zero weights: any symmetric scale shows them white
  const int text_scale = 2, gap = 12, margin = 8;
  const int labels_y = kLegendLabelsY;
  const int width = kLegendBarX + kLegendBarWidth + gap + text_width(caption, text_scale) + margin;
  Image out(width, labels_y + 5 * text_scale + margin, kPanelBackground);
  for (int x = 0; x < kLegendBarWidth; ++x) {
    const float v = (2.0f * (static_cast<float>(x) + 0.5f) / kLegendBarWidth - 1.0f);  // -1 .. +1 across the bar
    out.fill_rect(kLegendBarX + x, kLegendBarY, 1, kLegendBarHeight, diverging(v));
  }
  // Ticks under the two ends and the middle, with the values they stand for.
  const int ticks[3] = {kLegendBarX, kLegendBarX + kLegendBarWidth / 2, kLegendBarX + kLegendBarWidth - 1};
  const std::string labels[3] = {legend_number(-peak, false), "0", legend_number(peak, true)};
  for (int t = 0; t < 3; ++t) {
    out.fill_rect(ticks[t], kLegendBarY + kLegendBarHeight, 1, 3, kPanelInk);
    const int w = text_width(labels[t], text_scale);
    const int x = t == 0 ? kLegendBarX : t == 1 ? ticks[1] - w / 2 : kLegendBarX + kLegendBarWidth - w;
    draw_text(out, x, labels_y, labels[t], kPanelInk, text_scale);
  }
  draw_text(out, kLegendBarX + kLegendBarWidth + gap, kLegendBarY + (kLegendBarHeight - 5 * text_scale) / 2, caption,
            kPanelInk, text_scale);
  return out;
}

Image tile_grid(const std::vector<Image>& tiles, int cols, int pad) {
  if (tiles.empty() || cols <= 0 || pad < 0) throw Error("tile_grid: need at least one tile, one column, pad >= 0");
  cols = std::min(cols, static_cast<int>(tiles.size()));
  int cell_w = 0, cell_h = 0;
  for (const Image& t : tiles) cell_w = std::max(cell_w, t.width), cell_h = std::max(cell_h, t.height);
  const int rows = (static_cast<int>(tiles.size()) + cols - 1) / cols;
  Image grid(cols * (cell_w + pad) + pad, rows * (cell_h + pad) + pad, kPanelBackground);
  for (size_t i = 0; i < tiles.size(); ++i)
    grid.paste(tiles[i], pad + static_cast<int>(i % cols) * (cell_w + pad), pad + static_cast<int>(i / cols) * (cell_h + pad));
  return grid;
}

Image titled(const Image& body, const std::string& title) {
  const int scale = 2, margin = 8, title_h = 5 * scale + 2 * margin;
  Image out(std::max(body.width, text_width(title, scale) + 2 * margin), body.height + title_h, kPanelBackground);
  draw_text(out, margin, margin, title, kPanelInk, scale);
  out.paste(body, 0, title_h);
  return out;
}

Image stacked(const std::vector<Image>& parts) {
  int w = 0, h = 0;
  for (const Image& p : parts) w = std::max(w, p.width), h += p.height;
  if (w == 0 || h == 0) throw Error("stacked: nothing to stack");
  Image out(w, h, kPanelBackground);
  int y = 0;
  for (const Image& p : parts) out.paste(p, 0, y), y += p.height;
  return out;
}

namespace {
// Pixels a weight of a filter tile: about 48 a side for the weights filter_grid shows (every
// tile_step-th of a huge filter), at least 4.
int filter_scale(int kh, int kw) { return std::max(4, 48 / ceil_div(std::max(kh, kw), tile_step(std::max(kh, kw)))); }
}  // namespace

Image filter_bank(const float* weights, int out_channels, int in_channels, int kh, int kw, int cols, float peak) {
  const int scale = filter_scale(kh, kw), per_filter = in_channels * kh * kw;
  std::vector<Image> tiles;
  for (int o = 0; o < out_channels; ++o)
    tiles.push_back(filter_grid(weights + static_cast<size_t>(o) * per_filter, 1, in_channels, kh, kw, scale, peak));
  return tile_grid(tiles, cols);
}

Image filter_panel(const float* weights, int out_channels, int in_channels, int kh, int kw, int cols,
                   const std::string& title) {
  if (out_channels <= 0 || in_channels <= 0 || kh <= 0 || kw <= 0 || cols <= 0)
    throw Error("filter_panel: need at least one filter, one input channel, a kernel and one column");
  const size_t per_filter = static_cast<size_t>(in_channels) * kh * kw;
  float peak = largest_magnitude(weights, per_filter * out_channels);
  if (peak == 0.0f) peak = 1.0f;
  // Each tile: the filter's index (scale-2 font) above its filter_grid on the shared scale; at most
  // kMaxTiles filters of at most kMaxTileSide weights a side (the title says what is left out).
  const int step = tile_step(std::max(kh, kw));
  const int shown = std::min(out_channels, kMaxTiles), shown_in = std::min(in_channels, 16);
  const int scale = filter_scale(kh, kw), label_scale = 2, label_h = 5 * label_scale + 4;
  std::string note;
  if (shown < out_channels) note += " (THE FIRST " + std::to_string(shown) + ")";
  if (shown_in < in_channels) note += " (INPUT CHANNELS 0-" + std::to_string(shown_in - 1) + ")";
  if (step > 1) note += " (EVERY " + std::to_string(step) + "TH WEIGHT)";
  std::vector<Image> tiles;
  for (int o = 0; o < shown; ++o) {
    // The first shown_in input channels of filter o are its first shown_in * kh * kw weights.
    const Image filter = filter_grid(weights + static_cast<size_t>(o) * per_filter, 1, shown_in, kh, kw, scale, peak);
    const std::string index = std::to_string(o);
    Image tile(std::max(filter.width, text_width(index, label_scale)), label_h + filter.height, kPanelBackground);
    draw_text(tile, 0, 0, index, kPanelInk, label_scale);
    tile.paste(filter, 0, label_h);
    tiles.push_back(tile);
  }
  return titled(stacked({tile_grid(tiles, cols), color_legend(peak, "WEIGHT: BLUE < 0 < RED")}), title + note);
}

std::string filter_panel_title(const std::string& layer, int out_channels, int in_channels, int kh, int kw) {
  return layer + ": " + std::to_string(out_channels) + " FILTERS " + std::to_string(kh) + "X" + std::to_string(kw) +
         ", " + std::to_string(in_channels) + (in_channels == 1 ? " INPUT CHANNEL" : " INPUT CHANNELS");
}

Image heatmap(const float* values, int rows, int cols, int cell, bool annotate) {
  float peak = 0.0f;
  for (int i = 0; i < rows * cols; ++i) peak = std::max(peak, values[i]);
  if (peak <= 0.0f) peak = 1.0f;
  Image img(cols * cell, rows * cell);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const float v = values[r * cols + c];
      const float t = v / peak;
      img.fill_rect(c * cell, r * cell, cell, cell, sequential(t));
      if (annotate) {
        char text[16];
        std::snprintf(text, sizeof text, "%g", static_cast<double>(v));
        const int scale = text_width(text, 1) * 2 + 2 <= cell ? 2 : 1;
        const Rgb ink = t > 0.6f ? Rgb{0, 0, 0} : Rgb{255, 255, 255};
        draw_text(img, c * cell + (cell - text_width(text, scale)) / 2, r * cell + (cell - 5 * scale) / 2, text, ink, scale);
      }
    }
  return img;
}

}  // namespace course
