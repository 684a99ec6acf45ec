// PNG pictures: Image drawing, digit/filter grids, heat maps, the font, the written file.
#include "course/png.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "course_test.hpp"
#include "test_files.hpp"

using course::Image;
using course::Rgb;
using course::test::contains;
using course::test::error_message;
using course::test::read_bytes;
using course::test::TempDir;

namespace {
bool same(Rgb a, Rgb b) { return a.r == b.r && a.g == b.g && a.b == b.b; }

size_t count_color(const Image& img, Rgb c) {
  size_t n = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) n += same(img.get(x, y), c);
  return n;
}

uint32_t big_endian(const std::vector<uint8_t>& b, size_t at) {
  return (uint32_t(b[at]) << 24) | (uint32_t(b[at + 1]) << 16) | (uint32_t(b[at + 2]) << 8) | b[at + 3];
}

// Writes img, reads the file back and checks the PNG signature and the IHDR chunk.
void check_png_file(const std::string& path, const Image& img) {
  course::write_png(path, img);
  const auto b = read_bytes(path);
  REQUIRE(b.size() > 33);
  const std::vector<uint8_t> signature = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  CHECK(std::vector<uint8_t>(b.begin(), b.begin() + 8) == signature);
  CHECK(big_endian(b, 8) == 13);  // IHDR data length
  CHECK(std::string(b.begin() + 12, b.begin() + 16) == "IHDR");
  CHECK(big_endian(b, 16) == static_cast<uint32_t>(img.width));
  CHECK(big_endian(b, 20) == static_cast<uint32_t>(img.height));
  CHECK(b[24] == 8);  // bits per channel
  CHECK(b[25] == 2);  // colour type 2: RGB
}

const Rgb kWhite{255, 255, 255}, kBlack{0, 0, 0}, kRed{255, 0, 0}, kBlue{0, 0, 255};
}  // namespace

TEST_CASE("Image set/get, fill_rect and paste clip to the image", "[png]") {
  Image img(5, 3, {10, 20, 30});
  CHECK(img.pixels.size() == 5u * 3 * 3);
  CHECK(same(img.get(4, 2), {10, 20, 30}));
  img.set(4, 2, kRed);
  CHECK(same(img.get(4, 2), kRed));
  CHECK(img.pixels[(2 * 5 + 4) * 3] == 255);  // RGB, row-major
  img.set(5, 0, kBlue);                        // outside: ignored
  img.set(-1, 0, kBlue);
  CHECK(count_color(img, kBlue) == 0);
  CHECK(contains(error_message([&] { img.get(5, 0); }), "outside the 5 x 3 image"));

  img.fill_rect(3, 1, 10, 10, kBlack);  // clipped to x 3..4, y 1..2
  CHECK(count_color(img, kBlack) == 4);
  Image patch(2, 2, kWhite);
  img.paste(patch, -1, -1);  // only (0, 0) lands inside
  CHECK(count_color(img, kWhite) == 1);
  CHECK(same(img.get(0, 0), kWhite));

  const Image big = img.scaled(3);
  CHECK(big.width == 15);
  CHECK(big.height == 9);
  CHECK(same(big.get(2, 2), kWhite));
  CHECK(same(big.get(3, 0), {10, 20, 30}));
  CHECK_THROWS_AS(Image(0, 4), course::Error);
}

TEST_CASE("gray_image maps [lo, hi] to 0..255, clamps, and draws NaN black", "[png]") {
  const std::vector<float> plane = {0.0f, 0.5f, 1.0f, -3.0f, 7.0f, std::nanf("")};
  const Image g = course::gray_image(plane.data(), 2, 3);
  CHECK(g.width == 3);
  CHECK(g.height == 2);
  CHECK(same(g.get(0, 0), {0, 0, 0}));
  CHECK(same(g.get(1, 0), {128, 128, 128}));  // round(127.5)
  CHECK(same(g.get(2, 0), {255, 255, 255}));
  CHECK(same(g.get(0, 1), {0, 0, 0}));
  CHECK(same(g.get(1, 1), {255, 255, 255}));
  CHECK(same(g.get(2, 1), {0, 0, 0}));
  const Image r = course::gray_image(plane.data(), 2, 3, -1.0f, 1.0f);
  CHECK(same(r.get(0, 0), {128, 128, 128}));
}

TEST_CASE("example_image: three planes in colour (red, green, blue), other counts the first plane in grey",
          "[png]") {
  // 2 x 2 pixels a plane; planes red, green, blue.
  const std::vector<float> chw = {1.0f, 0.0f, 0.5f, 2.0f,      // red: 255, 0, 128, clamped 255
                                  0.0f, 1.0f, 0.25f, -1.0f,    // green: 0, 255, 64, clamped 0
                                  0.0f, 0.0f, 1.0f, std::nanf("")};  // blue: 0, 0, 255, NaN black
  const Image c = course::example_image(chw.data(), 3, 2, 2);
  CHECK(c.width == 2);
  CHECK(c.height == 2);
  CHECK(same(c.get(0, 0), {255, 0, 0}));
  CHECK(same(c.get(1, 0), {0, 255, 0}));
  CHECK(same(c.get(0, 1), {128, 64, 255}));
  CHECK(same(c.get(1, 1), {255, 0, 0}));
  for (int channels : {1, 2, 4}) {
    CAPTURE(channels);
    const Image g = course::example_image(chw.data(), channels, 2, 2);  // the red plane, grey
    CHECK(same(g.get(0, 0), {255, 255, 255}));
    CHECK(same(g.get(1, 0), {0, 0, 0}));
    CHECK(same(g.get(0, 1), {128, 128, 128}));
  }
}

TEST_CASE("digit_grid holds every digit at its scale and writes a valid PNG", "[png]") {
  TempDir dir;
  const int count = 5, h = 28, w = 28, cols = 3, scale = 2;
  std::vector<float> planes(static_cast<size_t>(count) * h * w, 1.0f);  // white digits
  const Image grid = course::digit_grid(planes.data(), count, h, w, cols, scale);
  // Every pixel of every digit is white; the background and gaps are not.
  CHECK(count_color(grid, kWhite) == static_cast<size_t>(count) * h * w * scale * scale);
  CHECK(grid.width >= cols * w * scale);
  CHECK(grid.height >= 2 * h * scale);  // 5 digits in 3 columns: 2 rows
  CHECK(grid.height < 3 * h * scale);
  check_png_file(dir.file("pictures/digits.png"), grid);  // also creates the folder
  CHECK_THROWS_AS(course::digit_grid(planes.data(), 0, h, w, cols), course::Error);
}

TEST_CASE("filter_grid shows +max red, -max blue, 0 white, each tile on its own scale", "[png]") {
  TempDir dir;
  const int out = 4, in = 3, k = 5;
  std::vector<float> weights = course::random_uniform(static_cast<size_t>(out) * in * k * k, 21, -0.2f, 0.2f);
  weights[0] = 0.5f;     // tile (0, 0): the largest |w| is positive -> pure red
  weights[1] = -0.5f;    // and its negative -> pure blue
  weights[2] = 0.0f;     // zero -> white
  const Image g = course::filter_grid(weights.data(), out, in, k, k, 4);
  CHECK(g.width >= in * k * 4);
  CHECK(g.height >= out * k * 4);
  // Each tile is scaled to its own peak, so every tile has a pure red or pure blue cell.
  CHECK(count_color(g, kRed) >= 16u);
  CHECK(count_color(g, kBlue) >= 16u);
  CHECK(count_color(g, kWhite) >= 16u);
  const Image smaller = course::filter_grid(weights.data(), out, in, k, k, 2);
  CHECK(smaller.width < g.width);
  check_png_file(dir.file("filters.png"), g);
}

TEST_CASE("heatmap draws cols x rows cells; the largest and smallest differ; NaN is black", "[png]") {
  TempDir dir;
  const std::vector<float> values = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 50};
  const Image h = course::heatmap(values.data(), 3, 4, 10);
  CHECK(h.width == 40);
  CHECK(h.height == 30);
  CHECK_FALSE(same(h.get(5, 5), h.get(35, 25)));  // cell (0,0) = 0 vs cell (2,3) = 50
  CHECK(same(h.get(0, 0), h.get(9, 9)));          // one colour per cell
  const Image annotated = course::heatmap(values.data(), 3, 4, 24, true);
  const Image plain = course::heatmap(values.data(), 3, 4, 24, false);
  CHECK(annotated.pixels != plain.pixels);  // the numbers are drawn
  check_png_file(dir.file("heat.png"), annotated);

  const std::vector<float> with_nan = {1, std::nanf(""), 2, 3};
  const Image n = course::heatmap(with_nan.data(), 2, 2, 8);
  CHECK(same(n.get(12, 4), kBlack));  // not the colour of the largest value
  CHECK_FALSE(same(n.get(12, 12), kBlack));
}

TEST_CASE("draw_text changes pixels only inside its box; text_width matches", "[png]") {
  // The font is 3x5 pixels with 1 pixel between glyphs: n glyphs are 4n - 1 wide.
  CHECK(course::text_width("") == 0);
  CHECK(course::text_width("7") == 3);
  CHECK(course::text_width("ABC") == 11);
  CHECK(course::text_width("ABC", 2) == 22);

  for (int scale : {1, 3}) {
    CAPTURE(scale);
    Image img(100, 30, kWhite);  // wide enough: no glyph cell is clipped
    const int x0 = 4, y0 = 6;
    const std::string text = "EPOCH 9";
    course::draw_text(img, x0, y0, text, kBlack, scale);
    size_t ink = 0;
    for (int y = 0; y < img.height; ++y)
      for (int x = 0; x < img.width; ++x)
        if (same(img.get(x, y), kBlack)) {
          ++ink;
          REQUIRE(x >= x0);
          REQUIRE(x < x0 + course::text_width(text, scale));
          REQUIRE(y >= y0);
          REQUIRE(y < y0 + 5 * scale);
        }
    CHECK(ink > 0);
    CHECK(ink % static_cast<size_t>(scale * scale) == 0);  // whole scaled font pixels
  }

  Image lower(40, 10, kWhite), upper(40, 10, kWhite), unknown(40, 10, kWhite), question(40, 10, kWhite);
  course::draw_text(lower, 1, 1, "loss", kBlack);
  course::draw_text(upper, 1, 1, "LOSS", kBlack);
  CHECK(lower.pixels == upper.pixels);  // lower case is drawn as upper case
  course::draw_text(unknown, 1, 1, "#", kBlack);
  course::draw_text(question, 1, 1, "?", kBlack);
  CHECK(unknown.pixels == question.pixels);  // unknown characters are drawn as '?'
  Image edge(10, 10, kWhite);
  course::draw_text(edge, 8, 8, "88", kBlack);  // runs off the image: clipped, no crash
  CHECK(count_color(edge, kBlack) > 0);
}

TEST_CASE("tile_grid places tiles row by row in equal cells; titled and stacked add above and below", "[png]") {
  // Tiles of different sizes and colours: each must appear whole at its cell's top-left corner.
  const Rgb colors[5] = {kRed, kBlue, kWhite, {0, 200, 0}, {200, 0, 200}};
  std::vector<Image> tiles;
  for (int i = 0; i < 5; ++i) tiles.emplace_back(3 + i, 7 - i, colors[i]);  // widest 7, tallest 7
  const int pad = 2, cell_w = 7, cell_h = 7;
  const Image grid = course::tile_grid(tiles, 3, pad);
  CHECK(grid.width == 3 * (cell_w + pad) + pad);
  CHECK(grid.height == 2 * (cell_h + pad) + pad);
  for (int i = 0; i < 5; ++i) {
    CAPTURE(i);
    const int x = pad + (i % 3) * (cell_w + pad), y = pad + (i / 3) * (cell_h + pad);
    CHECK(same(grid.get(x, y), colors[i]));
    CHECK(same(grid.get(x + tiles[size_t(i)].width - 1, y + tiles[size_t(i)].height - 1), colors[i]));
    CHECK(count_color(grid, colors[i]) == size_t(tiles[size_t(i)].width) * size_t(tiles[size_t(i)].height));
  }
  CHECK(same(grid.get(0, 0), course::kPanelBackground));
  CHECK(course::tile_grid(tiles, 10).width == 5 * (cell_w + 6) + 6);  // more columns than tiles: one row
  CHECK_THROWS_AS(course::tile_grid({}, 3), course::Error);
  CHECK_THROWS_AS(course::tile_grid(tiles, 0), course::Error);

  const Image body(50, 20, kRed);
  const Image t = course::titled(body, "LOSS");
  CHECK(t.width == 50);  // the title is narrower than the body
  CHECK(t.height > 20);
  CHECK(same(t.get(0, t.height - 20), kRed));  // the body sits at the bottom
  CHECK(count_color(t, kRed) == 50 * 20);
  CHECK(count_color(t, course::kPanelInk) > 0);  // the title is drawn
  CHECK(course::titled(Image(4, 4), "A LONG TITLE").width > 4);

  const Image s = course::stacked({Image(5, 3, kRed), Image(9, 4, kBlue)});
  CHECK(s.width == 9);
  CHECK(s.height == 7);
  CHECK(same(s.get(4, 2), kRed));
  CHECK(same(s.get(8, 2), course::kPanelBackground));
  CHECK(same(s.get(8, 6), kBlue));
}

TEST_CASE("filter_bank draws one filter_grid tile per output channel", "[png]") {
  const int out = 5, in = 2, k = 3;
  std::vector<float> weights = course::random_uniform(static_cast<size_t>(out) * in * k * k, 22, -1.0f, 1.0f);
  const Image bank = course::filter_bank(weights.data(), out, in, k, k, 4);
  const int scale = 48 / k;
  const Image one = course::filter_grid(weights.data() + 4 * in * k * k, 1, in, k, k, scale);
  // Output channel 4 is the first tile of the second row; its tile must match filter_grid exactly.
  const int x0 = 6, y0 = 6 + one.height + 6;
  for (int y = 0; y < one.height; ++y)
    for (int x = 0; x < one.width; ++x) REQUIRE(same(bank.get(x0 + x, y0 + y), one.get(x, y)));
  CHECK(bank.width == 4 * (one.width + 6) + 6);
  CHECK(bank.height == 2 * (one.height + 6) + 6);
}

TEST_CASE("write_png writes encode_png's bytes; reports a path it cannot write", "[png]") {
  TempDir dir;
  const Image img = course::digit_grid(std::vector<float>(3 * 4 * 5, 0.5f).data(), 3, 4, 5, 2);
  course::write_png(dir.file("sub/picture.png"), img);  // the folder is created
  CHECK(read_bytes(dir.file("sub/picture.png")) == course::encode_png(img));

  course::test::write_bytes(dir.file("a-file"), {1, 2, 3});
  const std::string path = dir.file("a-file/picture.png");  // its parent is a file
  const std::string message = error_message([&] { course::write_png(path, Image(2, 2)); });
  CHECK(contains(message, path));
  CHECK(contains(message, "the folder " + dir.file("a-file") + " cannot be created"));
}

namespace {
// The pixels of `text` as draw_text draws it alone, for comparing with a region of a picture.
Image text_alone(const std::string& text, int scale) {
  Image img(course::text_width(text, scale), 5 * scale, course::kPanelBackground);
  course::draw_text(img, 0, 0, text, course::kPanelInk, scale);
  return img;
}
// True when `part` appears in `img` with its top-left corner at (x0, y0).
bool region_equals(const Image& img, int x0, int y0, const Image& part) {
  if (x0 < 0 || y0 < 0 || x0 + part.width > img.width || y0 + part.height > img.height) return false;
  for (int y = 0; y < part.height; ++y)
    for (int x = 0; x < part.width; ++x)
      if (!same(img.get(x0 + x, y0 + y), part.get(x, y))) return false;
  return true;
}
}  // namespace

TEST_CASE("legend_number: two significant digits, a sign on positive values", "[png]") {
  CHECK(course::legend_number(-0.4712f, false) == "-0.47");
  CHECK(course::legend_number(0.4712f, true) == "+0.47");
  CHECK(course::legend_number(0.0f, true) == "0");
  CHECK(course::legend_number(1234.5f, true) == "+1.2e+03");  // the font has E and +
}

TEST_CASE("color_legend: a blue - white - red bar with -peak, 0 and +peak printed under it", "[png]") {
  const Image legend = course::color_legend(0.4712f, "WEIGHT");
  REQUIRE(legend.width >= course::kLegendBarX + course::kLegendBarWidth + course::text_width("WEIGHT", 2));
  REQUIRE(legend.height >= course::kLegendLabelsY + 10);
  const int bar_y = course::kLegendBarY + course::kLegendBarHeight / 2;
  const int left = course::kLegendBarX, right = course::kLegendBarX + course::kLegendBarWidth - 1;
  // The ends: nearly pure blue (-peak) and red (+peak); the middle: nearly white (0).
  const Rgb l = legend.get(left, bar_y), r = legend.get(right, bar_y);
  CHECK((l.b == 255 && l.r <= 2 && l.g <= 2));
  CHECK((r.r == 255 && r.g <= 2 && r.b <= 2));
  for (int x : {left + 127, left + 128}) {
    const Rgb m = legend.get(x, bar_y);
    CHECK((m.r >= 250 && m.g >= 250 && m.b >= 250));
  }
  // Blue fades to white over the left half, white turns to red over the right half.
  for (int x = left + 1; x <= right; ++x) {
    const Rgb a = legend.get(x - 1, bar_y), b = legend.get(x, bar_y);
    if (x < left + 128) {
      REQUIRE((b.b == 255 && b.r == b.g && b.r >= a.r));
    } else if (x > left + 128) {
      REQUIRE((b.r == 255 && b.g == b.b && b.g <= a.g));
    }
  }
  // The numbers: -0.47 under the left end, 0 under the middle, +0.47 ending under the right end.
  const int labels_y = course::kLegendLabelsY;
  CHECK(region_equals(legend, left, labels_y, text_alone("-0.47", 2)));
  CHECK(region_equals(legend, left + 128 - course::text_width("0", 2) / 2, labels_y, text_alone("0", 2)));
  CHECK(region_equals(legend, right + 1 - course::text_width("+0.47", 2), labels_y, text_alone("+0.47", 2)));
  // Another peak: the same bar, other numbers.
  const Image other = course::color_legend(2.5f, "WEIGHT");
  CHECK(same(other.get(left, bar_y), l));
  CHECK(region_equals(other, left, labels_y, text_alone("-2.5", 2)));
  CHECK_FALSE(region_equals(other, left, labels_y, text_alone("-0.47", 2)));
}

TEST_CASE("filter_panel: title, indexed filters on ONE scale, and the legend of that scale", "[png]") {
  TempDir dir;
  const int out = 3, in = 1, k = 3;
  std::vector<float> weights = course::random_uniform(static_cast<size_t>(out) * in * k * k, 23, -0.1f, 0.1f);
  weights[4] = 0.8f;       // filter 0's centre: the layer's largest |w|, positive
  weights[9 + 2] = -0.8f;  // filter 1: the same size, negative
  // filter 2 holds only values below 0.1 in size: on the shared scale it stays pale.
  const std::string title = "CONV1.WEIGHT: 3 FILTERS 3X3";
  const Image panel = course::filter_panel(weights.data(), out, in, k, k, 3, title);
  check_png_file(dir.file("filters.png"), panel);

  // One scale for all: exactly one pure red cell (0.8) and one pure blue cell (-0.8), each
  // scale x scale pixels. Scaling each filter to its own peak would colour filter 2 fully too.
  const int scale = 48 / k;
  CHECK(count_color(panel, kRed) == size_t(scale * scale));
  CHECK(count_color(panel, kBlue) == size_t(scale * scale));

  // The title on top, as titled() draws it (scale 2, 8 pixels in).
  CHECK(region_equals(panel, 8, 8, text_alone(title, 2)));
  // Each filter's index above its tile: the grid starts under the 26-pixel title line, tiles
  // are 52 pixels wide (3 cells of 16 and 2-pixel borders) with 6 pixels between them.
  const int title_h = 26, tile_w = k * scale + 4;
  for (int o = 0; o < out; ++o) {
    INFO("filter " << o);
    CHECK(region_equals(panel, 6 + o * (tile_w + 6), title_h + 6, text_alone(std::to_string(o), 2)));
  }
  // The legend at the bottom-left, for the layer's largest |w| = 0.8.
  const Image legend = course::color_legend(0.8f, "WEIGHT: BLUE < 0 < RED");
  REQUIRE(panel.height > legend.height);
  CHECK(region_equals(panel, 0, panel.height - legend.height, legend));
  CHECK(region_equals(panel, course::kLegendBarX, panel.height - legend.height + course::kLegendLabelsY,
                      text_alone("-0.8", 2)));
  CHECK(course::filter_panel_title("conv1.weight", 10, 1, 3, 3) == "conv1.weight: 10 FILTERS 3X3, 1 INPUT CHANNEL");
  CHECK(course::filter_panel_title("conv2.weight", 64, 32, 5, 5) == "conv2.weight: 64 FILTERS 5X5, 32 INPUT CHANNELS");
}

TEST_CASE("filter_grid with a shared peak: values past it clamp, small ones stay pale", "[png]") {
  const std::vector<float> weights = {2.0f, -0.05f, 0.05f, -3.0f};  // one 2x2 filter
  const Image g = course::filter_grid(weights.data(), 1, 1, 2, 2, 1, 1.0f);
  // Cells at (2 + x, 2 + y) with scale 1 and the 2-pixel border.
  CHECK(same(g.get(2, 2), kRed));   // 2.0 clamps to +1
  CHECK(same(g.get(3, 3), kBlue));  // -3.0 clamps to -1
  const Rgb pale_blue = g.get(3, 2), pale_red = g.get(2, 3);
  CHECK((pale_blue.b == 255 && pale_blue.r >= 240));
  CHECK((pale_red.r == 255 && pale_red.g >= 240));
  CHECK(same(course::diverging_color(-0.5f, 0.5f), kBlue));
}

TEST_CASE("huge images, maps and filters are drawn with every n-th pixel; a picture past the cap is refused",
          "[png]") {
  CHECK(course::tile_step(1) == 1);
  CHECK(course::tile_step(course::kMaxTileSide) == 1);
  CHECK(course::tile_step(course::kMaxTileSide + 1) == 2);
  CHECK(course::tile_step(20000) == 157);  // ceil(20000 / 128)

  course::Image img(10, 3);
  img.set(0, 0, {1, 2, 3}), img.set(4, 0, {4, 5, 6}), img.set(8, 2, {7, 8, 9});
  const course::Image small = img.every(4);
  CHECK((small.width == 3 && small.height == 1));
  CHECK(small.get(1, 0).r == 4);
  CHECK(small.get(2, 0).r == 1 * 0 + 255);  // (8, 0): the background
  CHECK(img.every(1).width == 10);

  // A dense first layer on 1 x 20000 inputs: 200 units, each a 1 x 20000 "image".
  std::vector<float> w(size_t(200) * 20000);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i % 7) - 3);
  const course::Image panel = course::filter_panel(w.data(), 200, 1, 1, 20000, 8, "FC1.WEIGHT");
  CHECK(panel.width < 8 * 4 * course::kMaxTileSide + 400);
  CHECK(panel.height < 2000);

  std::string message;
  try {
    course::Image too_large(1 << 20, 1 << 10);
  } catch (const course::Error& e) {
    message = e.what();
  }
  CHECK(message.find("a picture of 1048576 x 1024 pixels is larger than") != std::string::npos);
}
