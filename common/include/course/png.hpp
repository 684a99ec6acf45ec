#pragma once
// Pictures the lessons write (PNG through stb_image_write): digit grids, filter
// grids, heat maps, with a tiny built-in font for labels.
#include <cstdint>
#include <string>
#include <vector>

namespace course {

struct Rgb {
  uint8_t r, g, b;
};

struct Image {
  Image() = default;
  Image(int width, int height, Rgb background = {255, 255, 255});
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;  // RGB, row-major
  void set(int x, int y, Rgb c);
  Rgb get(int x, int y) const;
  void fill_rect(int x, int y, int w, int h, Rgb c);
  // Paste `src` with its top-left corner at (x, y), clipped to this image.
  void paste(const Image& src, int x, int y);
  Image scaled(int factor) const;  // nearest neighbour
  Image every(int step) const;     // every step-th pixel of every step-th row (a smaller copy)
};

// The most pixels a picture shows of one image, map or filter a side: a larger one is drawn with
// every n-th pixel (tile_step), at most kMaxTiles of them, and the picture's title says so. A picture
// of a network on huge inputs stays a picture, not an allocation the machine cannot hold.
inline constexpr int kMaxTileSide = 128;
inline constexpr int kMaxTiles = 64;
// The step that fits `size` pixels into kMaxTileSide (1 when it fits).
int tile_step(int size);
// The largest picture the course draws, in pixels: a larger Image is refused with course::Error.
inline constexpr long long kMaxImagePixels = 64ll << 20;

// Writes the image all or nothing (course/atomic_file.hpp); creates the parent folder; throws
// course::Error naming the file and the reason on failure, leaving an older file there unchanged.
void write_png(const std::string& path, const Image& image);
// The bytes of the image's PNG file (RGB, 8 bits per channel).
std::vector<uint8_t> encode_png(const Image& image);

// Grey image of one h x w plane; values clamped to [lo, hi] then mapped to 0..255.
Image gray_image(const float* plane, int h, int w, float lo = 0.0f, float hi = 1.0f);
// One example of a data set as it looks: channels x h x w values in [0, 1] (clamped; NaN black);
// 3 channels: colour (red, green, blue planes, as CIFAR-10 stores them); any other count: the
// first channel in grey (MNIST's one).
Image example_image(const float* chw, int channels, int h, int w);
// count planes of h x w (e.g. MNIST digits in [0, 1]) in a grid of `cols` columns.
Image digit_grid(const float* planes, int count, int h, int w, int cols, int scale = 3);
// Conv weights out x in x kh x kw: one tile per (out, in) pair on a blue (negative) - white (0)
// - red (positive) scale. peak > 0: one scale for all, -peak blue .. +peak red (values past it
// clamp); peak <= 0: each tile scaled to its own largest |w|.
Image filter_grid(const float* weights, int out_channels, int in_channels, int kh, int kw,
                  int scale = 8, float peak = 0.0f);
// The diverging colour of v / peak (-1 blue, 0 white, +1 red; clamped; NaN black).
Rgb diverging_color(float v, float peak);
// A rows x cols matrix (confusion matrix, activations) as coloured cells scaled from
// 0 to the largest value; with numbers printed in the cells when annotate is true.
Image heatmap(const float* values, int rows, int cols, int cell = 24, bool annotate = false);

// Panels: the pictures the training programs write share one look, light text on dark grey.
inline constexpr Rgb kPanelBackground{40, 40, 40};
inline constexpr Rgb kPanelInk{230, 230, 230};
// Tiles left to right in rows of `cols` (each cell as large as the largest tile), `pad` pixels
// around every tile, on the panel background.
Image tile_grid(const std::vector<Image>& tiles, int cols, int pad = 6);
// The body with a title line above it (scale-2 font).
Image titled(const Image& body, const std::string& title);
// The parts one below the other, left-aligned.
Image stacked(const std::vector<Image>& parts);
// One tile per output channel of conv weights out x in x kh x kw (its input channels side by
// side, as filter_grid draws them, with the same `peak` rule), in rows of `cols`.
Image filter_bank(const float* weights, int out_channels, int in_channels, int kh, int kw, int cols,
                  float peak = 0.0f);

// A colour legend for the diverging scale: a bar from -peak (blue) through 0 (white) to +peak
// (red), the three values printed under its ends and middle, and `caption` to its right.
// The bar's place in the returned image:
inline constexpr int kLegendBarX = 8, kLegendBarY = 6, kLegendBarWidth = 256, kLegendBarHeight = 14;
// and the top of the three numbers (scale-2 font) under it.
inline constexpr int kLegendLabelsY = kLegendBarY + kLegendBarHeight + 6;
Image color_legend(float peak, const std::string& caption);
// Short text for a value on a legend: 2 significant digits, a sign on positive values ("+0.47").
std::string legend_number(float v, bool with_plus);

// The picture of a conv layer's weights out x in x kh x kw: `title` (name the layer), one tile
// per output channel with its index above it, all on ONE scale symmetric around 0 (peak = the
// largest |w| of the layer, so tiles compare with each other), and color_legend(peak) below.
Image filter_panel(const float* weights, int out_channels, int in_channels, int kh, int kw, int cols,
                   const std::string& title);
// The title the training programs give it, e.g. "CONV1.WEIGHT: 10 FILTERS 3X3, 1 INPUT CHANNEL".
std::string filter_panel_title(const std::string& layer, int out_channels, int in_channels, int kh, int kw);

// Small 3x5 pixel font: digits, upper-case letters, space and . , : - _ + / % > < ? ( ) =
// (lower case is drawn as upper case). scale multiplies the glyph size.
void draw_text(Image& image, int x, int y, const std::string& text, Rgb color, int scale = 1);
int text_width(const std::string& text, int scale = 1);

}  // namespace course
