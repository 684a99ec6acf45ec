// The course framework: the models as data, their layer sizes and their initial weights
// (framework/model.hpp).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "course/error.hpp"
#include "course/host_memory.hpp"
#include "course/rng.hpp"
#include "course/tensor.hpp"
#include "framework/model.hpp"

namespace framework {

LayerSpec conv_layer(int out, int kernel, int pad, int stride) {
  LayerSpec l{LayerKind::conv};
  l.out = out, l.kernel = kernel, l.pad = pad, l.stride = stride;
  return l;
}
LayerSpec relu_layer() { return LayerSpec{LayerKind::relu}; }
LayerSpec maxpool_layer(int window, int stride) {
  LayerSpec l{LayerKind::maxpool};
  l.window = window, l.stride = stride;
  return l;
}
LayerSpec dense_layer(int out) {
  LayerSpec l{LayerKind::dense};
  l.out = out;
  return l;
}

LayerSpec sigmoid_layer() { return LayerSpec{LayerKind::sigmoid}; }
LayerSpec tanh_layer() { return LayerSpec{LayerKind::tanh}; }
LayerSpec dropout_layer(float rate) {
  LayerSpec l{LayerKind::dropout};
  l.rate = rate;
  return l;
}

LayerSpec lstm_layer(int units) {
  LayerSpec l{LayerKind::lstm};
  l.out = units;
  return l;
}
LayerSpec batch_norm_layer() { return LayerSpec{LayerKind::batch_norm}; }
LayerSpec global_avg_pool_layer() { return LayerSpec{LayerKind::global_avg_pool}; }
LayerSpec residual_layer(std::vector<LayerSpec> body) {
  LayerSpec l{LayerKind::residual};
  l.body = std::move(body);
  return l;
}

bool LayerKinds::runs(LayerKind kind) const { return std::find(kinds.begin(), kinds.end(), kind) != kinds.end(); }

const LayerKinds& basic_layers() {
  static const LayerKinds basic{{LayerKind::conv, LayerKind::relu, LayerKind::maxpool, LayerKind::dense},
                                "conv, relu, pool and dense"};
  return basic;
}

LayerKinds more_layers(const LayerKinds& base, const std::vector<LayerKind>& more, std::string text) {
  LayerKinds all{base.kinds, std::move(text)};
  for (LayerKind kind : more)
    if (!all.runs(kind)) all.kinds.push_back(kind);
  return all;
}

std::string refusal(const std::string& who, size_t index, const LayerSpec& layer, const LayerKinds& runs) {
  return who + ": layer " + std::to_string(index + 1) + " '" + layer_text(layer) +
         "' is not a layer of this trainer (it runs " + runs.text + "); a later lesson's trainer runs it";
}

void require_layers(const ModelSpec& spec, const LayerKinds& runs, const std::string& who) {
  for (size_t i = 0; i < spec.layers.size(); ++i)
    if (!runs.runs(spec.layers[i].kind)) throw course::Error(refusal(who, i, spec.layers[i], runs));
}

ModelSpec small_cnn() {
  ModelSpec m;
  m.name = "small";
  m.layers = {conv_layer(10, 3, 1), relu_layer(), maxpool_layer(2, 2), dense_layer(100), relu_layer(),
              dense_layer(10)};
  return m;
}

ModelSpec model_a() {
  ModelSpec m;
  m.name = "a";
  m.layers = {conv_layer(32, 5, 2), relu_layer(), maxpool_layer(2, 2), conv_layer(64, 5, 2), relu_layer(),
              maxpool_layer(2, 2),  dense_layer(512), relu_layer(), dense_layer(10)};
  return m;
}

ModelSpec scaling_cnn(int filters) {
  if (filters < 1 || filters > kMaxScalingFilters)
    throw course::Error("the scaling CNN needs 1 to " + std::to_string(kMaxScalingFilters) + " filters, got " +
                        std::to_string(filters));
  ModelSpec m;
  m.name = "scaling-" + std::to_string(filters);
  m.layers = {conv_layer(filters, 3), relu_layer(), maxpool_layer(2, 2), dense_layer(10)};
  return m;
}

const char* const kModelFlagHelp =
    "small, a, scaling-<filters> (e.g. scaling-256), a layer list such as conv3x3x10p1,relu,pool2,dense100,relu,"
    "dense10, or @file with one";

std::string model_in_folder(const std::string& name, const std::string& models_dir) {
  const std::string path = models_dir + "/" + name + ".txt";
  return name.find_first_of("/@,.") == std::string::npos && std::ifstream(path).good() ? "@" + path : name;
}

std::string model_title(const std::string& flag, const ModelSpec& spec) {
  if (!flag.empty() && flag[0] == '@') {
    std::string file = flag.substr(flag.find_last_of('/') == std::string::npos ? 1 : flag.find_last_of('/') + 1);
    if (file.size() > 4 && file.compare(file.size() - 4, 4, ".txt") == 0) file.resize(file.size() - 4);
    if (!file.empty()) return course::shown(file, 100);
  }
  return course::shown(spec.name, 100);
}

ModelSpec model_by_name(const std::string& name) {
  if (name == "small") return small_cnn();
  if (name == "a") return model_a();
  const std::string scaling = "scaling-";
  if (name.rfind(scaling, 0) == 0) {
    // Digits only, and few enough to fit an int: "scaling-+8", "scaling-08x" and "scaling-" are refused.
    const std::string digits = name.substr(scaling.size());
    if (!digits.empty() && digits.size() <= 9 && digits.find_first_not_of("0123456789") == std::string::npos)
      return scaling_cnn(std::stoi(digits));
  }
  if (!name.empty() && (name[0] == '@' || looks_like_layer_list(name))) return model_from_text(name);
  throw course::Error("unknown model '" + course::shown(name) + "' (expected " + kModelFlagHelp + ")");
}

namespace {

// Plans `layers` on an input of c x h x w, numbering parameters from `params`. `where` names the list
// in messages: "" for the model's own, "3." for block 3's body.
class Planner {
 public:
  explicit Planner(const ModelSpec& spec) : spec_(spec) {}

  std::vector<LayerPlan> plan(const std::vector<LayerSpec>& layers, int64_t& c, int64_t& h, int64_t& w,
                              const std::string& where) {
    std::vector<LayerPlan> plans;
    for (size_t i = 0; i < layers.size(); ++i)
      plans.push_back(plan_one(layers[i], c, h, w, where + std::to_string(i + 1)));
    return plans;
  }
  [[noreturn]] void bad(const std::string& layer, const std::string& why) const {
    throw course::Error("model '" + course::shown(spec_.name, 80) + "', layer " + layer + ": " + why);
  }
  void fits(const std::string& layer, int64_t values, const char* what) const {
    if (values > kMaxTensorValues)
      bad(layer, std::string(what) + " " + std::to_string(values) + " values, more than " +
                     std::to_string(kMaxTensorValues) + " (a tensor of this course is indexed by an int)");
  }

 private:
  LayerPlan plan_one(const LayerSpec& l, int64_t& c, int64_t& h, int64_t& w, const std::string& at) {
    LayerPlan p;
    p.spec = l;
    p.in_c = int(c), p.in_h = int(h), p.in_w = int(w);
    switch (l.kind) {
      case LayerKind::conv:
        if (l.out <= 0 || l.kernel <= 0 || l.stride <= 0 || l.pad < 0) bad(at, "bad conv sizes");
        if (h + 2 * int64_t(l.pad) < l.kernel || w + 2 * int64_t(l.pad) < l.kernel)
          bad(at, "kernel larger than its input");
        fits(at, int64_t(l.out) * c * l.kernel * l.kernel, "its weight holds");
        h = (h + 2 * int64_t(l.pad) - l.kernel) / l.stride + 1, w = (w + 2 * int64_t(l.pad) - l.kernel) / l.stride + 1;
        c = l.out;
        p.weight = params_, params_ += 2;
        break;
      case LayerKind::relu:
      case LayerKind::sigmoid:
      case LayerKind::tanh:
        break;
      case LayerKind::maxpool:
        if (l.window <= 0 || l.stride <= 0) bad(at, "bad max-pool sizes");
        if (h < l.window || w < l.window) bad(at, "pool window larger than its input");
        h = (h - l.window) / l.stride + 1, w = (w - l.window) / l.stride + 1;
        break;
      case LayerKind::dense:
        if (l.out <= 0) bad(at, "dense layer needs out > 0");
        fits(at, int64_t(l.out) * c * h * w, "its weight holds");
        c = l.out, h = 1, w = 1;
        p.weight = params_, params_ += 2;
        break;
      case LayerKind::dropout:
        if (!(l.rate >= 0.f && l.rate < 1.f)) bad(at, "dropout needs 0 <= rate < 1");
        break;
      case LayerKind::batch_norm:
        p.weight = params_, params_ += 2;
        break;
      case LayerKind::global_avg_pool:
        h = 1, w = 1;
        break;
      case LayerKind::residual:
        plan_block(p, c, h, w, at);
        break;
      case LayerKind::lstm:  // per row: one step's C*H*W inputs -> its h
        if (l.out <= 0) bad(at, "an LSTM needs units > 0");
        fits(at, 4 * int64_t(l.out) * c * h * w, "its w_ih holds");
        fits(at, 4 * int64_t(l.out) * l.out, "its w_hh holds");
        c = l.out, h = 1, w = 1;
        p.weight = params_, params_ += 4;
        break;
    }
    fits(at, c * h * w, "its output holds");
    p.out_c = int(c), p.out_h = int(h), p.out_w = int(w);
    return p;
  }

  // The body on the block's input; then the shortcut that brings the input to the body's shape.
  void plan_block(LayerPlan& p, int64_t& c, int64_t& h, int64_t& w, const std::string& at) {
    if (p.spec.body.empty()) bad(at, "a res block needs at least one layer in its body");
    for (size_t i = 0; i < p.spec.body.size(); ++i) {
      const LayerKind kind = p.spec.body[i].kind;
      if (kind == LayerKind::residual || kind == LayerKind::dense || kind == LayerKind::global_avg_pool ||
          kind == LayerKind::lstm)
        bad(at + "." + std::to_string(i + 1), "a res block's body holds no res, dense, globalavg or lstm layer");
    }
    const int64_t in_c = c, in_h = h, in_w = w;
    p.body = plan(p.spec.body, c, h, w, at + ".");
    if (c == in_c && h == in_h && w == in_w) return;  // the input itself is the shortcut
    int stride = 0;
    for (int s = 1; s <= 64 && stride == 0; ++s)
      if ((in_h - 1) / s + 1 == h && (in_w - 1) / s + 1 == w) stride = s;
    if (stride == 0)
      bad(at, "the body makes " + std::to_string(in_h) + "x" + std::to_string(in_w) + " into " + std::to_string(h) +
                  "x" + std::to_string(w) + ", which no strided 1x1 projection of the input matches");
    int64_t sc = in_c, sh = in_h, sw = in_w;
    p.shortcut = plan({conv_layer(int(c), 1, 0, stride), batch_norm_layer()}, sc, sh, sw, at + ".shortcut.");
  }

  const ModelSpec& spec_;
  int params_ = 0;
};

void add_layers(const std::vector<LayerPlan>& plan, std::vector<const LayerPlan*>& out) {
  for (const LayerPlan& p : plan) {
    out.push_back(&p);
    add_layers(p.body, out);
    add_layers(p.shortcut, out);
  }
}

}  // namespace

std::vector<LayerPlan> plan_layers(const ModelSpec& spec) {
  if (spec.in_channels <= 0 || spec.height <= 0 || spec.width <= 0 || spec.classes <= 0)
    throw course::Error("model '" + course::shown(spec.name, 80) + "': input sizes and classes must be positive");
  if (spec.layers.empty()) throw course::Error("model '" + course::shown(spec.name, 80) + "' has no layers");
  // Sizes in 64 bits while they are worked out: a shape that does not fit the int the layers index
  // with is refused here, never wrapped.
  int64_t c = spec.in_channels, h = spec.height, w = spec.width;
  Planner planner(spec);
  planner.fits("1", c * h * w, "its input holds");
  std::vector<LayerPlan> plan = planner.plan(spec.layers, c, h, w, "");
  if (plan.back().out_size() != size_t(spec.classes))
    planner.bad(std::to_string(plan.size()), "the last layer gives " + std::to_string(plan.back().out_size()) +
                                                 " values, the model has " + std::to_string(spec.classes) + " classes");
  return plan;
}

std::vector<const LayerPlan*> all_layers(const std::vector<LayerPlan>& plan) {
  std::vector<const LayerPlan*> layers;
  add_layers(plan, layers);
  return layers;
}

std::vector<std::string> layer_names(const std::vector<LayerPlan>& plan) {
  std::vector<std::string> names;
  std::map<LayerKind, int> counts;
  for (const LayerPlan& p : plan) {
    const std::string number = std::to_string(++counts[p.spec.kind]);
    switch (p.spec.kind) {
      case LayerKind::conv: names.push_back("conv" + number); break;
      case LayerKind::relu: names.push_back("relu" + number); break;
      case LayerKind::maxpool: names.push_back("pool" + number); break;
      case LayerKind::dense: names.push_back("fc" + number); break;
      case LayerKind::sigmoid: names.push_back("sigmoid" + number); break;
      case LayerKind::tanh: names.push_back("tanh" + number); break;
      case LayerKind::dropout: names.push_back("dropout" + number); break;
      case LayerKind::batch_norm: names.push_back("bn" + number); break;
      case LayerKind::global_avg_pool: names.push_back("avgpool" + number); break;
      case LayerKind::residual: names.push_back("res" + number); break;
      case LayerKind::lstm: names.push_back("lstm" + number); break;
    }
  }
  return names;
}

uint64_t training_bytes(const std::vector<LayerPlan>& plan, int batch) {
  uint64_t per_example = plan.empty() ? 0 : plan.front().in_size();
  for (const LayerPlan* p : all_layers(plan)) {
    per_example += 3 * uint64_t(p->out_size());
    if (p->spec.kind == LayerKind::lstm) per_example += 5 * uint64_t(p->out_size());  // c and the four gates
  }
  return sizeof(float) * (4 * parameter_values(plan) + uint64_t(std::max(batch, 1)) * per_example);
}

uint64_t available_host_bytes() { return course::memory_available(); }

void require_memory(uint64_t bytes, uint64_t available, const std::string& what, const std::string& where) {
  if (available == 0 || bytes <= available) return;
  char text[160];
  std::snprintf(text, sizeof text, " needs about %.1f GiB for its buffers, more than the %.1f GiB ",
                double(bytes) / (1ull << 30), double(available) / (1ull << 30));
  throw course::Error(what + text + where + " has free; use a smaller --batch or a smaller network");
}

std::vector<Parameter> running_statistics(const ModelSpec& spec, const std::vector<float>& values) {
  std::vector<Parameter> stats;
  const std::vector<LayerPlan> plan = plan_layers(spec);
  size_t total = 0;
  int norms = 0;
  for (const LayerPlan* layer : all_layers(plan)) {
    if (layer->spec.kind != LayerKind::batch_norm) continue;
    const std::string prefix = "bn" + std::to_string(++norms);
    for (const bool mean : {true, false}) {
      Parameter p;
      p.name = prefix + (mean ? ".running_mean" : ".running_var");
      p.shape = {layer->out_c};
      p.value.assign(size_t(layer->out_c), mean ? 0.0f : 1.0f);
      total += p.value.size();
      stats.push_back(std::move(p));
    }
  }
  if (values.empty()) return stats;
  if (values.size() != total)
    throw course::Error("model '" + course::shown(spec.name, 80) + "': its batch norms keep " + std::to_string(total) +
                        " running statistics, the network gave " + std::to_string(values.size()));
  size_t at = 0;
  for (Parameter& p : stats) {
    std::copy(values.begin() + long(at), values.begin() + long(at + p.value.size()), p.value.begin());
    at += p.value.size();
  }
  return stats;
}

namespace {
// Every parameter of these layers, named and shaped, with no values.
std::vector<Parameter> shapes_of(const std::vector<LayerPlan>& plan) {
  std::vector<Parameter> params;
  std::map<LayerKind, int> counts;
  const auto add = [&](const std::string& name, std::vector<int> shape) {
    Parameter p;
    p.name = name, p.shape = std::move(shape);
    params.push_back(std::move(p));
  };
  for (const LayerPlan* layer : all_layers(plan)) {
    const LayerPlan& p = *layer;
    if (p.weight < 0) continue;
    const std::string number = std::to_string(++counts[p.spec.kind]);
    switch (p.spec.kind) {
      case LayerKind::batch_norm:
        add("bn" + number + ".weight", {p.out_c}), add("bn" + number + ".bias", {p.out_c});
        break;
      case LayerKind::conv:
        add("conv" + number + ".weight", {p.out_c, p.in_c, p.spec.kernel, p.spec.kernel});
        add("conv" + number + ".bias", {p.out_c});
        break;
      case LayerKind::lstm: {
        const std::string prefix = "lstm" + number;
        const int gates = 4 * p.out_c;
        add(prefix + ".weight_ih_l0", {gates, int(p.in_size())}), add(prefix + ".weight_hh_l0", {gates, p.out_c});
        add(prefix + ".bias_ih_l0", {gates}), add(prefix + ".bias_hh_l0", {gates});
        break;
      }
      default:  // dense
        add("fc" + number + ".weight", {p.out_c, int(p.in_size())}), add("fc" + number + ".bias", {p.out_c});
        break;
    }
  }
  return params;
}

}  // namespace

std::vector<Parameter> parameter_shapes(const ModelSpec& spec) { return shapes_of(plan_layers(spec)); }

uint64_t parameter_values(const std::vector<LayerPlan>& plan) {
  uint64_t values = 0;
  for (const Parameter& p : shapes_of(plan)) values += course::element_count(p.shape);
  return values;
}

std::vector<Parameter> init_parameters(const ModelSpec& spec, uint64_t seed) {
  const std::vector<LayerPlan> plan = plan_layers(spec);
  std::vector<Parameter> params = shapes_of(plan);
  course::Rng rng(seed, 0);
  const auto draw = [&](Parameter& p, float bound) {
    p.value.resize(course::element_count(p.shape));
    for (float& v : p.value) v = rng.uniform(-bound, bound);
  };
  for (const LayerPlan* layer : all_layers(plan)) {
    if (layer->weight < 0) continue;
    Parameter* own = &params[size_t(layer->weight)];
    switch (layer->spec.kind) {
      case LayerKind::batch_norm:  // gamma 1, beta 0: the layer starts as plain normalisation
        own[0].value.assign(size_t(layer->out_c), 1.0f), own[1].value.assign(size_t(layer->out_c), 0.0f);
        break;
      case LayerKind::lstm:  // nn.LSTM's start: all four tensors, the biases too
        for (int k = 0; k < 4; ++k) draw(own[k], static_cast<float>(1.0 / std::sqrt(double(layer->out_c))));
        break;
      default: {  // conv, dense
        const int fan_in = own[0].shape[1] * (own[0].shape.size() == 4 ? own[0].shape[2] * own[0].shape[3] : 1);
        // Kaiming-uniform (He et al. 2015): keeps the activations' variance steady through ReLUs.
        draw(own[0], static_cast<float>(std::sqrt(6.0 / fan_in)));
        own[1].value.assign(size_t(own[1].shape[0]), 0.0f);
        break;
      }
    }
  }
  for (Parameter& p : params) p.grad.assign(p.value.size(), 0.0f);
  return params;
}

void require_parameters_fit(const ModelSpec& spec, const std::vector<Parameter>& params) {
  const std::vector<Parameter> expected = parameter_shapes(spec);  // shapes only: no second copy of the values
  if (params.size() != expected.size())
    throw course::Error("model '" + course::shown(spec.name, 80) + "' needs " + std::to_string(expected.size()) +
                        " parameters, got " + std::to_string(params.size()));
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].shape != expected[i].shape || params[i].value.size() != course::element_count(expected[i].shape))
      throw course::Error("parameter " + std::to_string(i) + " ('" + params[i].name + "') of model '" +
                          course::shown(spec.name, 80) + "' has the wrong shape (expected '" + expected[i].name + "')");
}

}  // namespace framework
