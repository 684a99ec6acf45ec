// A 3x5 pixel font, drawn for this course: each glyph is five rows of three
// bits, top row first, most significant bit on the left.
#include <cctype>
#include <string>

#include "course/png.hpp"

namespace course {

namespace {
struct Glyph {
  char c;
  unsigned char rows[5];
};

constexpr Glyph kGlyphs[] = {
    {'0', {7, 5, 5, 5, 7}}, {'1', {2, 6, 2, 2, 7}}, {'2', {7, 1, 7, 4, 7}}, {'3', {7, 1, 3, 1, 7}},
    {'4', {5, 5, 7, 1, 1}}, {'5', {7, 4, 7, 1, 7}}, {'6', {7, 4, 7, 5, 7}}, {'7', {7, 1, 2, 2, 2}},
    {'8', {7, 5, 7, 5, 7}}, {'9', {7, 5, 7, 1, 7}}, {'A', {2, 5, 7, 5, 5}}, {'B', {6, 5, 6, 5, 6}},
    {'C', {3, 4, 4, 4, 3}}, {'D', {6, 5, 5, 5, 6}}, {'E', {7, 4, 6, 4, 7}}, {'F', {7, 4, 6, 4, 4}},
    {'G', {3, 4, 5, 5, 3}}, {'H', {5, 5, 7, 5, 5}}, {'I', {7, 2, 2, 2, 7}}, {'J', {1, 1, 1, 5, 2}},
    {'K', {5, 5, 6, 5, 5}}, {'L', {4, 4, 4, 4, 7}}, {'M', {5, 7, 7, 5, 5}}, {'N', {6, 5, 5, 5, 5}},
    {'O', {2, 5, 5, 5, 2}}, {'P', {6, 5, 6, 4, 4}}, {'Q', {2, 5, 5, 6, 3}}, {'R', {6, 5, 6, 5, 5}},
    {'S', {3, 4, 2, 1, 6}}, {'T', {7, 2, 2, 2, 2}}, {'U', {5, 5, 5, 5, 7}}, {'V', {5, 5, 5, 5, 2}},
    {'W', {5, 5, 7, 7, 5}}, {'X', {5, 5, 2, 5, 5}}, {'Y', {5, 5, 2, 2, 2}}, {'Z', {7, 1, 2, 4, 7}},
    {' ', {0, 0, 0, 0, 0}}, {'.', {0, 0, 0, 0, 2}}, {':', {0, 2, 0, 2, 0}}, {'-', {0, 0, 7, 0, 0}},
    {'/', {1, 1, 2, 4, 4}}, {'%', {5, 1, 2, 4, 5}}, {'>', {4, 2, 1, 2, 4}}, {'?', {7, 1, 2, 0, 2}},
    {'(', {1, 2, 2, 2, 1}}, {')', {4, 2, 2, 2, 4}}, {'=', {0, 7, 0, 7, 0}}, {'+', {0, 2, 7, 2, 0}},
    {'<', {1, 2, 4, 2, 1}}, {',', {0, 0, 0, 2, 4}}, {'_', {0, 0, 0, 0, 7}},
};

const Glyph* find_glyph(char c) {
  const char up = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& g : kGlyphs)
    if (g.c == up) return &g;
  return nullptr;
}
}  // namespace

int text_width(const std::string& text, int scale) {
  return text.empty() ? 0 : static_cast<int>(text.size()) * 4 * scale - scale;
}

void draw_text(Image& image, int x, int y, const std::string& text, Rgb color, int scale) {
  for (size_t i = 0; i < text.size(); ++i) {
    const Glyph* g = find_glyph(text[i]);
    if (!g) g = find_glyph('?');
    const int gx = x + static_cast<int>(i) * 4 * scale;
    for (int row = 0; row < 5; ++row)
      for (int col = 0; col < 3; ++col)
        if (g->rows[row] & (4 >> col)) image.fill_rect(gx + col * scale, y + row * scale, scale, scale, color);
  }
}

}  // namespace course
