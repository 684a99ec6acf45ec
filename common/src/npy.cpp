#include "course/npy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "course/atomic_file.hpp"
#include "course/error.hpp"
#include "course/input_file.hpp"

namespace course {

namespace {
template <typename T>
void write_npy_impl(const std::string& path, const T* data, const std::vector<size_t>& shape,
                    const char* descr) {
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  size_t count = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    header += std::to_string(shape[i]) + (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
    count *= shape[i];
  }
  header += "), }";
  // Magic (6) + version (2) + length (2) + header + '\n' is padded to a multiple of 64.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';

  // All or nothing: a failure leaves an older file under `path` as it was (course/atomic_file.hpp).
  create_parent_folder(path);
  AtomicFile out(path);
  const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write("\x93NUMPY\x01\x00", 8);
  out.write(len, 2);
  out.write(header);
  out.write(data, count * sizeof(T));
  out.commit();
}
}  // namespace

void write_npy(const std::string& path, const float* data, const std::vector<size_t>& shape) {
  write_npy_impl(path, data, shape, "<f4");
}
void write_npy(const std::string& path, const uint8_t* data, const std::vector<size_t>& shape) {
  write_npy_impl(path, data, shape, "|u1");
}
void write_npy(const std::string& path, const int32_t* data, const std::vector<size_t>& shape) {
  write_npy_impl(path, data, shape, "<i4");
}

namespace {
// A .npy file (version 1.0): magic "\x93NUMPY", version 1 0, the header's length as 2 bytes
// little-endian, the header (a Python dict literal), then the data.
constexpr size_t kPreambleBytes = 10;
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;

[[noreturn]] void fail(const std::string& name, const std::string& problem) { throw Error(name + ": " + problem); }

// Text from the file, quoted for a one-line message: no control characters, not too long.
std::string shown(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, 40)) out += (c >= ' ' && c <= '~') ? c : '?';
  return "'" + out + (text.size() > 40 ? "...'" : "'");
}

std::string plural(uint64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// A shape as NumPy writes it: (), (5,), (2, 3).
std::string shape_text(const std::vector<size_t>& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<size_t> shape;
};

// Reads the header dictionary the way NumPy does (a Python literal), not by searching the
// text: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } with exactly these three
// keys in any order, either kind of quote, any spacing, an optional trailing comma.
class HeaderParser {
 public:
  HeaderParser(const std::string& name, const char* text, size_t size) : name_(name), text_(text, size) {}

  NpyHeader parse() {
    NpyHeader header;
    bool has_descr = false, has_order = false, has_shape = false;
    skip_spaces();
    if (!accept('{')) fail(name_, "the header is not a dictionary ({'descr': ..., 'shape': ...})");
    for (;;) {
      skip_spaces();
      if (accept('}')) break;
      if (at_end()) cut_short();
      const std::string key = string_literal("a key of the header dictionary");
      skip_spaces();
      if (!accept(':')) fail(name_, "the header has no ':' after the key " + shown(key));
      skip_spaces();
      if (key == "descr") {
        once(has_descr, key);
        header.descr = string_literal("the value of 'descr'");
      } else if (key == "fortran_order") {
        once(has_order, key);
        header.fortran_order = boolean_literal();
      } else if (key == "shape") {
        once(has_shape, key);
        header.shape = shape_tuple();
      } else {
        fail(name_, "unexpected key " + shown(key) + " in the header (only 'descr', 'fortran_order', 'shape')");
      }
      skip_spaces();
      if (accept(',')) continue;
      if (accept('}')) break;
      if (at_end()) cut_short();
      fail(name_, "the header dictionary has " + shown(std::string(1, text_[pos_])) + " where ',' or '}' belongs");
    }
    skip_spaces();  // NumPy pads the header with spaces and ends it with '\n'
    if (!at_end()) fail(name_, "unexpected text after the header dictionary: " + shown(text_.substr(pos_)));
    if (!has_descr) fail(name_, "the header has no 'descr' (the data type)");
    if (!has_order) fail(name_, "the header has no 'fortran_order'");
    if (!has_shape) fail(name_, "the header has no 'shape'");
    return header;
  }

 private:
  bool at_end() const { return pos_ >= text_.size(); }
  bool accept(char c) {
    if (at_end() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  void skip_spaces() {
    while (!at_end() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  static bool ends_size(char c) {
    return c == ',' || c == ')' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
  }
  [[noreturn]] void cut_short() const { fail(name_, "the header ends inside its dictionary (no closing '}')"); }
  void once(bool& seen, const std::string& key) const {
    if (seen) fail(name_, "the header has the key '" + key + "' twice");
    seen = true;
  }
  // 'text' or "text", without escapes (NumPy never writes any).
  std::string string_literal(const char* what) {
    if (at_end()) cut_short();
    const char quote = text_[pos_];
    if (quote != '\'' && quote != '"') fail(name_, std::string(what) + " is not a quoted string");
    const size_t close = text_.find(quote, pos_ + 1);
    if (close == std::string::npos) fail(name_, "the header has a string with no closing quote");
    std::string value = text_.substr(pos_ + 1, close - pos_ - 1);
    if (value.find_first_of("\\\n") != std::string::npos)
      fail(name_, "the header has a string with a backslash or line break: " + shown(value));
    pos_ = close + 1;
    return value;
  }
  bool boolean_literal() {
    for (const char* word : {"True", "False"}) {
      const size_t n = std::strlen(word);
      if (text_.compare(pos_, n, word) == 0) {
        pos_ += n;
        return word[0] == 'T';
      }
    }
    fail(name_, "'fortran_order' must be True or False, got " + shown(text_.substr(pos_, text_.find_first_of(",}", pos_) - pos_)));
  }
  // A tuple of sizes: (), (5,), (2, 3) or (2, 3,). (5) is the number 5, not a tuple.
  std::vector<size_t> shape_tuple() {
    if (!accept('(')) fail(name_, "'shape' must be a tuple of sizes such as (2, 3)");
    std::vector<size_t> shape;
    skip_spaces();
    if (accept(')')) return shape;
    for (;;) {
      shape.push_back(size());
      skip_spaces();
      if (accept(',')) {
        skip_spaces();
        if (accept(')')) return shape;
        continue;
      }
      if (accept(')')) {
        if (shape.size() == 1)
          fail(name_, "'shape' (" + std::to_string(shape[0]) + ") is a number, not a tuple: write (" +
                          std::to_string(shape[0]) + ",)");
        return shape;
      }
      if (at_end()) cut_short();
      fail(name_, "'shape' has " + shown(std::string(1, text_[pos_])) + " where ',' or ')' belongs");
    }
  }
  // A whole number 0 or more, checked for overflow digit by digit.
  size_t size() {
    const size_t begin = pos_;
    while (!at_end() && !ends_size(text_[pos_])) ++pos_;
    const std::string item = text_.substr(begin, pos_ - begin);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos)
      fail(name_, "'shape' holds " + shown(item) + ", not a size (a whole number, 0 or more)");
    size_t value = 0;
    for (char digit : item) {
      const size_t d = static_cast<size_t>(digit - '0');
      if (value > (SIZE_MAX - d) / 10) fail(name_, "'shape' holds the size " + shown(item) + ", which is too large");
      value = value * 10 + d;
    }
    return value;
  }

  const std::string& name_;
  const std::string text_;
  size_t pos_ = 0;
};

struct NpyLayout {
  std::vector<size_t> shape;
  uint64_t data_offset = 0;  // where the data starts: preamble + header
  uint64_t data_bytes = 0;   // what the shape needs: 4 x the product of its sizes
};

// Checks a float32 .npy file from its first bytes (the preamble and the header, when the file
// is that long) and its total size, before anything is allocated for the data: a header that
// promises more data than the file holds is refused here. Shared by the file and memory readers.
NpyLayout npy_layout(const std::string& name, const unsigned char* head, size_t head_size, uint64_t total_size) {
  const size_t magic_seen = std::min(head_size, kMagicBytes);
  if (magic_seen == 0 || std::memcmp(head, kMagic, magic_seen) != 0)
    fail(name, "not a version 1.0 .npy file (it does not start with \\x93NUMPY)");
  if (head_size < kPreambleBytes)
    fail(name, "truncated header: " + plural(total_size, "byte") + ", shorter than the 10-byte preamble");
  if (head[6] != 1 || head[7] != 0)
    fail(name, "not a version 1.0 .npy file (version " + std::to_string(head[6]) + "." + std::to_string(head[7]) + ")");
  const size_t header_bytes = head[8] | (static_cast<size_t>(head[9]) << 8);
  if (head_size < kPreambleBytes + header_bytes)
    fail(name, "truncated header: " + plural(total_size, "byte") + ", the header ends at byte " +
                   std::to_string(kPreambleBytes + header_bytes));
  NpyHeader header =
      HeaderParser(name, reinterpret_cast<const char*>(head) + kPreambleBytes, header_bytes).parse();
  if (header.descr == ">f4")
    fail(name, "data type '>f4' is big-endian float32; only little-endian '<f4' can be read");
  if (header.descr != "<f4") fail(name, "data type " + shown(header.descr) + " is not float32 ('<f4')");
  if (header.fortran_order) fail(name, "Fortran order (fortran_order: True) is not supported");

  NpyLayout layout;
  layout.data_offset = kPreambleBytes + header_bytes;
  uint64_t count = 1;
  for (size_t size : header.shape) {
    if (size != 0 && count > UINT64_MAX / size)
      fail(name, "the shape " + shape_text(header.shape) + " is too large (more than 2^64 elements)");
    count *= size;
  }
  if (count > UINT64_MAX / sizeof(float))
    fail(name, "the shape " + shape_text(header.shape) + " is too large (more than 2^64 bytes)");
  layout.data_bytes = count * sizeof(float);
  const uint64_t available = total_size - layout.data_offset;  // head_size <= total_size
  if (available < layout.data_bytes)
    fail(name, "truncated: " + plural(available, "byte") + " of data, the shape " + shape_text(header.shape) +
                   " needs " + std::to_string(layout.data_bytes));
  if (available > layout.data_bytes)
    fail(name, plural(available - layout.data_bytes, "byte") + " after the data (the shape " +
                   shape_text(header.shape) + " needs " + plural(layout.data_bytes, "byte") + ")");
  layout.shape = std::move(header.shape);
  return layout;
}

}  // namespace

std::vector<float> parse_npy_float(const void* bytes, size_t size, const std::string& name, std::vector<size_t>* shape) {
  const auto* b = static_cast<const unsigned char*>(bytes);
  NpyLayout layout = npy_layout(name, b, size, size);
  std::vector<float> data(layout.data_bytes / sizeof(float));
  if (!data.empty()) std::memcpy(data.data(), b + layout.data_offset, layout.data_bytes);
  if (shape) *shape = std::move(layout.shape);
  return data;
}

std::vector<float> read_npy_float(const std::string& path, std::vector<size_t>* shape) {
  const uint64_t file_size = regular_file_size(path, "a .npy file", "cannot be opened: file not found");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot be opened for reading");
  // The preamble, then as much of the header as it announces and the file holds.
  std::vector<unsigned char> head(static_cast<size_t>(std::min<uint64_t>(file_size, kPreambleBytes)));
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  if (head.size() == kPreambleBytes) {
    const size_t header_bytes = head[8] | (static_cast<size_t>(head[9]) << 8);
    head.resize(kPreambleBytes + static_cast<size_t>(std::min<uint64_t>(header_bytes, file_size - kPreambleBytes)));
    in.read(reinterpret_cast<char*>(head.data() + kPreambleBytes),
            static_cast<std::streamsize>(head.size() - kPreambleBytes));
  }
  if (!in) fail(path, "read error (did the file change while it was read?)");
  NpyLayout layout = npy_layout(path, head.data(), head.size(), file_size);
  std::vector<float> data(layout.data_bytes / sizeof(float));
  in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(layout.data_bytes));
  if (!in) fail(path, "read error (did the file change while it was read?)");
  if (shape) *shape = std::move(layout.shape);
  return data;
}

}  // namespace course
