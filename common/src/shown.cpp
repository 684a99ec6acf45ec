// Text as an error message shows it (course/error.hpp): escaped to one line, capped. No CUDA here,
// so the fuzz targets link it with the parsers.
#include <cstdio>
#include <string>

#include "course/error.hpp"

namespace course {

namespace {
std::string escaped(const std::string& text, size_t max_chars) {
  std::string out;
  size_t shown_chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (shown_chars >= max_chars) {
      out += "... (" + std::to_string(text.size() - i) + " more characters)";
      break;
    }
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else out += static_cast<char>(c);
    ++shown_chars;
  }
  return out;
}
}  // namespace

std::string shown(const std::string& text, size_t max_chars) { return escaped(text, max_chars); }
std::string one_line(const std::string& message, size_t max_chars) { return escaped(message, max_chars); }

}  // namespace course
