// The course framework: networks written as text, e.g. "conv5x5x32p2,relu,pool2,dense10", and the
// one-line picture of a model's shapes that the trainers print before they start.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "course/error.hpp"
#include "course/input_file.hpp"
#include "course/number_text.hpp"
#include "framework/model.hpp"

namespace framework {

namespace {

const char* const kGrammar =
    "layers look like conv5x5x32 (kernel 5x5, 32 channels; p2: pad 2, s2: stride 2), relu, pool2 "
    "(2x2 windows; s1: stride 1), dense10, and where a trainer runs them sigmoid, tanh, dropout0.25 (drops a "
    "quarter while training), bn (batch norm), globalavg (each channel's mean), res(<layers>) (a residual "
    "block, e.g. res(conv3x3x16p1,bn,relu,conv3x3x16p1,bn)) and, for sequences, lstm51 (an LSTM of 51 units)";

// Reads the digits at text[pos...] as an int in [lo, hi]; false when there are none, too many,
// or the value is out of range.
bool read_int(const std::string& text, size_t& pos, int lo, int hi, int& value) {
  const size_t start = pos;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) && pos - start < 7) ++pos;
  if (pos == start || (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])))) return false;
  value = std::stoi(text.substr(start, pos - start));
  return value >= lo && value <= hi;
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// A dropout rate written as digits with at most one '.', e.g. 0.25 or .5, below 1.
bool read_rate(const std::string& text, float& rate) {
  if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789.") != std::string::npos ||
      text.find('.') != text.rfind('.') || text == ".")
    return false;
  rate = std::strtof(text.c_str(), nullptr);
  return rate >= 0.f && rate < 1.f;
}

// One layer from its token, or a sentence saying what is wrong with it.
bool parse_layer(const std::string& token, LayerSpec& layer, std::string& why) {
  size_t pos = 0;
  if (token == "bn") {
    layer = batch_norm_layer();
    return true;
  }
  if (token == "globalavg") {
    layer = global_avg_pool_layer();
    return true;
  }
  if (token == "relu" || token == "sigmoid" || token == "tanh") {
    layer = token == "relu" ? relu_layer() : token == "sigmoid" ? sigmoid_layer() : tanh_layer();
    return true;
  }
  if (starts_with(token, "dropout")) {
    float rate = 0.f;
    if (!read_rate(token.substr(7), rate)) {
      why = "a dropout layer is dropout<rate> with 0 <= rate < 1, e.g. dropout0.25";
      return false;
    }
    layer = dropout_layer(rate);
    return true;
  }
  if (starts_with(token, "conv")) {
    pos = 4;
    int kh = 0, kw = 0, out = 0;
    if (!read_int(token, pos, 1, 64, kh) || pos >= token.size() || token[pos++] != 'x' ||
        !read_int(token, pos, 1, 64, kw) || pos >= token.size() || token[pos++] != 'x' ||
        !read_int(token, pos, 1, 65536, out)) {
      why = "a conv is conv<k>x<k>x<channels> (k 1-64, channels 1-65536), e.g. conv5x5x32";
      return false;
    }
    if (kh != kw) {
      why = "the course's convolutions have square kernels: conv" + std::to_string(kh) + "x" + std::to_string(kh) +
            "x" + std::to_string(out) + " or conv" + std::to_string(kw) + "x" + std::to_string(kw) + "x...";
      return false;
    }
    int pad = 0, stride = 1;
    bool pad_seen = false, stride_seen = false;
    while (pos < token.size()) {
      const char option = token[pos++];
      if (option == 'p' && !pad_seen && read_int(token, pos, 0, 64, pad)) {
        pad_seen = true;
      } else if (option == 's' && !stride_seen && read_int(token, pos, 1, 64, stride)) {
        stride_seen = true;
      } else {
        why = "after conv<k>x<k>x<channels> come only p<pad> (0-64) and s<stride> (1-64), each once";
        return false;
      }
    }
    layer = conv_layer(out, kh, pad, stride);
    return true;
  }
  if (starts_with(token, "pool")) {
    pos = 4;
    int window = 0, stride = 0;
    if (!read_int(token, pos, 1, 64, window)) {
      why = "a max-pool is pool<window> (1-64), e.g. pool2, optionally s<stride>: pool3s2";
      return false;
    }
    stride = window;
    if (pos < token.size() && (token[pos++] != 's' || !read_int(token, pos, 1, 64, stride) || pos != token.size())) {
      why = "after pool<window> comes only s<stride> (1-64)";
      return false;
    }
    layer = maxpool_layer(window, stride);
    return true;
  }
  // dense<units> and lstm<units>: a word, then the units and nothing after them.
  struct Units {
    const char* word;
    int most;
    LayerSpec (*make)(int);
    const char* form;
  };
  for (const Units& u : {Units{"dense", 1 << 20, dense_layer, "a dense layer is dense<units> (1-1048576), e.g. dense10"},
                         Units{"lstm", 1 << 16, lstm_layer, "an LSTM is lstm<units> (1-65536), e.g. lstm51"}}) {
    if (!starts_with(token, u.word)) continue;
    pos = std::string(u.word).size();
    int units = 0;
    if (!read_int(token, pos, 1, u.most, units) || pos != token.size()) {
      why = u.form;
      return false;
    }
    layer = u.make(units);
    return true;
  }
  why = "unknown layer";
  if (token.find_first_of(" \t\r\n") != std::string::npos)
    why += ": a layer holds no space or line break (a comma missing between two layers?)";
  return false;
}

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// Whether a line break at the end of `text` so far (the lines before, joined) stands for a comma:
// not after a comma or an opening bracket, not before a comma or a closing bracket (`next`: the
// next line's first character). So a line break is a separator where a comma could go, and
// whitespace where one already is ("pool2\n,dense10" is one comma, not two).
bool line_break_separates(const std::string& text, char next) {
  if (text.empty()) return false;
  const char last = text.back();
  return last != ',' && last != '(' && next != ',' && next != ')';
}

// A description file: layers separated by commas or new lines; '#' starts a comment. Its size is
// checked before it is read: no network needs more than kMaxDescriptionBytes of text.
std::string read_description_file(const std::string& path) {
  if (path.empty()) throw course::Error("'@' names no file: write @<file> with the path of a network description");
  const uint64_t bytes = course::regular_file_size(path, "a network description", "file not found");
  if (bytes > kMaxDescriptionBytes)
    throw course::Error(course::shown(path) + ": " + std::to_string(bytes) + " bytes, more than the " +
                        std::to_string(kMaxDescriptionBytes) + " a network description may hold (a ResNet-110 "
                        "takes a few KiB): is this the right file?");
  std::ifstream in(path);
  if (!in) throw course::Error(course::shown(path) + ": cannot be opened");
  std::string text, line;
  while (std::getline(in, line)) {
    line = trimmed(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line_break_separates(text, line.front())) text += ',';
    text += line;
  }
  if (text.empty()) throw course::Error(course::shown(path) + ": holds no layers (" + kGrammar + ")");
  return text;
}

}  // namespace

bool looks_like_layer_list(const std::string& text) {
  if (text.find(',') != std::string::npos) return true;
  for (const char* start : {"conv", "relu", "pool", "dense", "sigmoid", "tanh", "dropout", "bn", "globalavg", "lstm", "res("})
    if (starts_with(trimmed(text), start)) return true;
  return false;
}

namespace {

// The layers of `text`, split at the commas outside brackets; `where` counts the layers in
// messages ("" for the model's own list, "3." inside block 3).
std::vector<LayerSpec> parse_list(const std::string& model, const std::string& text, const std::string& where) {
  auto fail = [&](const std::string& layer, const std::string& token, const std::string& why) {
    throw course::Error("network '" + course::shown(model) + "', layer " + layer + " '" + course::shown(token) +
                        "': " + why + " (" + kGrammar + ")");
  };
  std::vector<LayerSpec> layers;
  size_t start = 0;
  while (start <= text.size()) {
    // The token runs to the next comma outside brackets.
    size_t end = start;
    int depth = 0;
    for (; end < text.size() && !(text[end] == ',' && depth == 0); ++end) {
      if (text[end] == '(') ++depth;
      if (text[end] == ')' && --depth < 0) break;
    }
    const std::string token = trimmed(text.substr(start, end - start));
    const std::string at = where + std::to_string(layers.size() + 1);
    if (depth != 0)
      fail(at, token, depth > 0 ? "a '(' without its ')'" : "a ')' without its '('");
    if (token.empty()) fail(at, token, "no layer here: an empty list, two commas in a row or a trailing comma");
    LayerSpec layer{};
    std::string why;
    if (starts_with(token, "res(")) {
      if (token.back() != ')') fail(at, token, "a residual block is res(<layers>) and nothing after its ')'");
      if (!where.empty()) fail(at, token, "a res block's body holds no res block");
      layer = residual_layer(parse_list(model, token.substr(4, token.size() - 5), at + "."));
    } else if (!parse_layer(token, layer, why)) {
      fail(at, token, why);
    }
    layers.push_back(layer);
    start = end + 1;
  }
  return layers;
}

}  // namespace

ModelSpec model_from_text(const std::string& description) {
  const bool file = !description.empty() && description[0] == '@';
  const std::string text = file ? read_description_file(description.substr(1)) : description;
  // Every layer, a block's body's too, follows a comma but the first: counted before any is built,
  // so a list far longer than any network is refused without building it.
  const size_t layers = size_t(std::count(text.begin(), text.end(), ',')) + 1;
  if (layers > kMaxLayers)
    throw course::Error((file ? course::shown(description.substr(1)) + ": a network" : "network '" + course::shown(text, 80) + "'") +
                        " of " + std::to_string(layers) + " layers, more than the " + std::to_string(kMaxLayers) +
                        " a network of this course may have");
  ModelSpec m;
  m.layers = parse_list(text, text, "");
  m.name = model_text(m);
  return m;
}

std::string layer_text(const LayerSpec& l) {
  switch (l.kind) {
    case LayerKind::conv: {
      std::string t = "conv" + std::to_string(l.kernel) + "x" + std::to_string(l.kernel) + "x" + std::to_string(l.out);
      if (l.pad != 0) t += "p" + std::to_string(l.pad);
      if (l.stride != 1) t += "s" + std::to_string(l.stride);
      return t;
    }
    case LayerKind::relu:
      return "relu";
    case LayerKind::maxpool:
      return "pool" + std::to_string(l.window) + (l.stride != l.window ? "s" + std::to_string(l.stride) : "");
    case LayerKind::dense:
      return "dense" + std::to_string(l.out);
    case LayerKind::lstm:
      return "lstm" + std::to_string(l.out);
    case LayerKind::sigmoid:
      return "sigmoid";
    case LayerKind::tanh:
      return "tanh";
    case LayerKind::dropout:
      return "dropout" + course::shortest_text(l.rate);
    case LayerKind::batch_norm:
      return "bn";
    case LayerKind::global_avg_pool:
      return "globalavg";
    case LayerKind::residual: {
      std::string t;
      for (const LayerSpec& b : l.body) t += (t.empty() ? "" : ",") + layer_text(b);
      return "res(" + t + ")";
    }
  }
  return "?";
}

std::string model_text(const ModelSpec& spec) {
  std::string text;
  for (const LayerSpec& l : spec.layers) text += (text.empty() ? "" : ",") + layer_text(l);
  return text;
}

std::string plan_summary(const ModelSpec& spec) {
  const std::vector<LayerPlan> plan = plan_layers(spec);  // throws when the shapes do not work out
  auto shape = [](int c, int h, int w) {
    return h == 1 && w == 1 ? std::to_string(c) : std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w);
  };
  std::string text = shape(spec.in_channels, spec.height, spec.width);
  for (const LayerPlan& p : plan) {
    text += " -" + layer_text(p.spec) + "->";
    // A shape after every layer that changes it (activations and dropout keep it).
    const bool keeps_shape = p.spec.kind == LayerKind::relu || p.spec.kind == LayerKind::sigmoid ||
                             p.spec.kind == LayerKind::tanh || p.spec.kind == LayerKind::dropout ||
                             p.spec.kind == LayerKind::batch_norm;
    if (!keeps_shape) text += " " + shape(p.out_c, p.out_h, p.out_w);
  }
  return text;
}

}  // namespace framework
