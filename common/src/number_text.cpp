#include "course/number_text.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>

namespace course {

std::string shortest_text(double v) {
  if (v > -1e15 && v < 1e15 && v == std::floor(v)) return std::to_string(static_cast<long long>(v));
  std::string text;
  for (int digits = 6; digits <= 17; ++digits) {
    std::ostringstream s;
    s << std::setprecision(digits) << v;
    text = s.str();
    if (std::strtod(text.c_str(), nullptr) == v) break;
  }
  return text;
}

std::string shortest_text(float v) {
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {  // 9 significant digits tell any two floats apart
    std::snprintf(text, sizeof text, "%.*g", digits, double(v));
    if (std::strtof(text, nullptr) == v) break;
  }
  return text;
}

}  // namespace course
