// CSV helpers (csv.hpp).
#include "course/csv.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "course/error.hpp"
#include "course/input_file.hpp"
#include "course/number_text.hpp"

namespace course {

namespace {
// A CSV file is text: a NUL byte inside it is a damaged or binary file. C's number parsers stop at a
// NUL, so "12<NUL>9999" would read as 12 if the byte were let through to them.
void refuse_nul_bytes(const std::string& text, const std::string& path) {
  const size_t at = text.find('\0');
  if (at == std::string::npos) return;
  const size_t line_start = text.rfind('\n', at);
  const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  const size_t column = at - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
  throw Error(path + ":" + std::to_string(line) + ": a NUL byte at character " + std::to_string(column) +
              ": not a text file (a CSV file holds text only)");
}
}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') fields.back() += c;
      else if (i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
      else quoted = false;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '"' && fields.back().empty()) {
      quoted = true;
    } else {
      fields.back() += c;
    }
  }
  if (quoted) throw Error("a quoted field is not closed");
  return fields;
}

long parse_csv_integer(const std::string& text, const std::string& column, long min, long max) {
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const long v = digits ? std::strtol(text.c_str(), nullptr, 10) : 0;
  if (!digits || errno != 0 || v < min || v > max)
    throw Error(column + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got '" +
                shown(text) + "'");
  return v;
}

double parse_csv_number(const std::string& text, const std::string& column, double min, double max,
                        bool min_excluded) {
  char* end = nullptr;
  errno = 0;
  const double v = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
  // Whole: strtod stopped at the text's end, not at a NUL byte inside it.
  const bool whole = !text.empty() && end == text.c_str() + text.size() &&
                     !std::isspace(static_cast<unsigned char>(text[0]));
  const bool in_range = std::isfinite(v) && (min_excluded ? v > min : v >= min) && v <= max;
  if (!whole || errno == ERANGE || !in_range)
    throw Error(column + " must be a number " + (min_excluded ? "> " : ">= ") + shortest_text(min) +
                (max < 1e300 ? " and <= " + shortest_text(max) : std::string()) + ", got '" + shown(text) + "'");
  return v;
}

void for_each_csv_row(const std::string& text, const std::string& path, const std::string& header,
                      const std::string& what,
                      const std::function<void(const std::vector<std::string>& fields, int line)>& row) {
  refuse_nul_bytes(text, path);
  std::istringstream in(text);
  std::string line;
  int line_number = 0;
  const size_t columns = split_csv_line(header).size();
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file saved with Windows line ends
    const std::string where = path + ":" + std::to_string(line_number) + ": ";
    if (line_number == 1) {
      if (line != header) throw Error(where + "not " + what + ": the first line must be '" + header + "'");
      continue;
    }
    if (line.empty()) continue;
    try {
      const std::vector<std::string> fields = split_csv_line(line);
      if (fields.size() != columns)
        throw Error(std::to_string(fields.size()) + " fields, the header has " + std::to_string(columns));
      row(fields, line_number);
    } catch (const Error& e) {
      throw Error(where + e.what());
    }
  }
  if (line_number == 0) throw Error(path + ": the file is empty (no header line)");
}

std::string read_text_file(const std::string& path, const std::string& kind, const std::string& when_missing) {
  regular_file_size(path, kind, when_missing);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open the file for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(path + ": the file could not be read to its end");
  const std::string whole = text.str();
  refuse_nul_bytes(whole, path);  // before any reader splits it: its header too is text
  return whole;
}

}  // namespace course
