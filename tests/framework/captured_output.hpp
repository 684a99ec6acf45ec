#pragma once
// What a piece of the framework printed to a temporary file (std::tmpfile), as one string.
#include <cstdio>
#include <string>

namespace framework_test {

inline std::string printed(std::FILE* f) {
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  return text;
}

}  // namespace framework_test
