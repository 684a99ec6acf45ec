#pragma once
// The course framework: a network described as data. Every trainer of the course reads its
// --model here, so the host and the GPU trainers build the same network, with the same sizes,
// from the same initial weights. Not a lesson's exercise: it sits beneath the lessons (it uses
// only common/), and each lesson's code reaches it through its own namespace.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace framework {

// ---- models as data -----------------------------------------------------------------------
// conv: `out` channels, kernel x kernel, stride, pad.  maxpool: window x window, moved by stride
// (no padding; set stride = window for the usual non-overlapping pool).  dense: `out` units; it
// flattens its NCHW input (a no-op in memory: every example's C*H*W values are contiguous).
// sigmoid, tanh and dropout (which zeroes a `rate` fraction while training) keep their input's
// shape.
// batch_norm (per channel: gamma and beta learnt, running statistics kept) keeps its input's shape;
// global_avg_pool makes C x H x W into C values, each channel's mean; residual runs its `body` and
// adds its input (or, when the body changes the shape, a 1x1 projection of it followed by batch
// norm).
// lstm: a recurrent layer of `out` units (nn.LSTM's). Its network reads sequences: each row is one
// step of one sequence (its C*H*W values), the rows time-major (every sequence's step 0, then every
// step 1, ...), and every layer but the LSTM treats a row as an example. It gives `out` values a
// row (that step's h), so a dense layer after it is a head on every step.
enum class LayerKind { conv, relu, maxpool, dense, sigmoid, tanh, dropout, batch_norm, global_avg_pool, residual, lstm };
struct LayerSpec {
  LayerKind kind;
  int out = 0;
  int kernel = 0;
  int stride = 1;
  int pad = 0;
  int window = 2;
  float rate = 0.f;             // dropout: the fraction of values dropped while training, 0 <= rate < 1
  std::vector<LayerSpec> body{};  // residual: the layers of the block's main path (no residual among them)
};
struct ModelSpec {
  std::string name;
  int in_channels = 1, height = 28, width = 28, classes = 10;
  std::vector<LayerSpec> layers;
};

// Which layer kinds a network runs: the kinds, and how a message lists them ("conv, relu, pool and
// dense"). The model language above has every kind; a network runs some of them, and the lesson
// that builds it says which: every network runs basic_layers(); a lesson that adds kinds makes a
// larger set of its own with more_layers.
struct LayerKinds {
  std::vector<LayerKind> kinds;
  std::string text;
  bool runs(LayerKind kind) const;
};
const LayerKinds& basic_layers();  // conv, relu, maxpool and dense
LayerKinds more_layers(const LayerKinds& base, const std::vector<LayerKind>& more, std::string text);
// Throws course::Error when `spec` has a layer outside `runs`, naming the layer (counting from 1)
// and what this trainer runs; `who` starts the message (e.g. "--model" or "HostNetwork").
void require_layers(const ModelSpec& spec, const LayerKinds& runs, const std::string& who);
// That message for layer `index` (from 0) of a network that runs `runs`.
std::string refusal(const std::string& who, size_t index, const LayerSpec& layer, const LayerKinds& runs);

// Shorthands for building specs.
LayerSpec conv_layer(int out, int kernel, int pad = 0, int stride = 1);
LayerSpec relu_layer();
LayerSpec maxpool_layer(int window = 2, int stride = 2);
LayerSpec dense_layer(int out);
LayerSpec sigmoid_layer();
LayerSpec tanh_layer();
LayerSpec dropout_layer(float rate);
LayerSpec batch_norm_layer();
LayerSpec global_avg_pool_layer();
LayerSpec residual_layer(std::vector<LayerSpec> body);
LayerSpec lstm_layer(int units);

ModelSpec small_cnn();  // conv 3x3x10 pad 1 -> relu -> maxpool 2 -> dense 100 -> relu -> dense 10
ModelSpec model_a();    // conv 5x5x32 pad 2 -> relu -> maxpool 2 -> conv 5x5x64 pad 2 -> relu -> maxpool 2
                        // -> dense 512 -> relu -> dense 10
// The network of lesson 11's scaling study: conv 3x3 with `filters` filters, no padding -> relu ->
// maxpool 2 -> dense 10 (on 28 x 28 images: 26 x 26 x filters, 13 x 13 x filters, 169 * filters -> 10).
// Named "scaling-<filters>"; 1 <= filters <= kMaxScalingFilters, else course::Error.
constexpr int kMaxScalingFilters = 4096;
ModelSpec scaling_cnn(int filters);
// A named model ("small", "a", "scaling-<filters>", e.g. "scaling-256"), a layer list
// (model_from_text) or "@<file>" with one; throws course::Error otherwise.
ModelSpec model_by_name(const std::string& name);
// A trainer's --model as model_by_name reads it: a plain name ("mnist_cnn": no '/', '@', ',' or '.')
// whose file <models_dir>/<name>.txt exists becomes "@<models_dir>/<name>.txt"; anything else stays.
std::string model_in_folder(const std::string& name, const std::string& models_dir);
// How the trainers' first line names the model of --model `flag`: a description file by its name
// without the folder and ".txt" ("resnet20"); a layer list by its text, its first 100 characters
// when longer (the "layers:" line shows every layer).
std::string model_title(const std::string& flag, const ModelSpec& spec);

// ---- models as text (model_text.cpp) ---------------------------------------------------------
// A network written as its layers, separated by commas: conv<k>x<k>x<channels>[p<pad>][s<stride>],
// relu, pool<window>[s<stride>], dense<units>, sigmoid, tanh, dropout<rate>, bn, globalavg,
// lstm<units> and res(<layers>) (a residual block: its body's layers inside the brackets, no res among them); e.g. "conv5x5x32p2,relu,pool2,dense10" or
// "conv3x3x16p1,bn,relu,res(conv3x3x16p1,bn,relu,conv3x3x16p1,bn),relu,globalavg,dense10" (spaces,
// tabs and line breaks around a layer are ignored). "@<file>": the layers from a text file,
// separated by commas or lines (a line break next to a comma or a bracket is no second separator),
// '#' starting a comment. The model's name is its canonical text (model_text). Throws
// course::Error naming the layer (counting from 1, as every message about a layer does; 3.2 is
// layer 2 of block 3's body) and what a layer looks like. The sizes are checked later, by
// plan_layers, once the input's size is known.
ModelSpec model_from_text(const std::string& description);
// The longest network a layer list may name (its blocks' layers counted), and the largest @file:
// far more than any network of the course (ResNet-110 has about 330 layers), so that a list that
// cannot be a network is refused before it is parsed or read.
constexpr size_t kMaxLayers = 10000;
constexpr uint64_t kMaxDescriptionBytes = uint64_t(1) << 20;
bool looks_like_layer_list(const std::string& text);  // a comma, or a layer's first word
std::string layer_text(const LayerSpec& layer);       // "conv5x5x32p2", "relu", "pool2", "res(conv3x3x8p1,bn)"
std::string model_text(const ModelSpec& spec);        // the layers' texts joined by commas
// "1x28x28 -conv5x5x32p2-> 32x28x28 -relu-> -pool2-> 32x14x14 -dense10-> 10": the shape after
// every layer, for the line the trainers print before they start. Throws like plan_layers.
std::string plan_summary(const ModelSpec& spec);
// For the --model flag of every trainer: what it accepts.
extern const char* const kModelFlagHelp;

// One layer with its sizes worked out: input C x H x W -> output C x H x W (per example).
struct LayerPlan {
  LayerSpec spec;
  int in_c = 0, in_h = 0, in_w = 0;
  int out_c = 0, out_h = 0, out_w = 0;
  // conv and dense: index of the weight in the parameter list, its bias is weight + 1; batch_norm:
  // index of gamma, beta is weight + 1; lstm: index of w_ih, then w_hh, b_ih, b_hh; -1 for the others.
  int weight = -1;
  // residual: the body's layers, and the shortcut's: none (the input itself) or, when the body
  // changes the shape, a 1x1 conv with the stride that gives the body's size, then batch norm.
  // The block's parameters are its body's, then its shortcut's.
  std::vector<LayerPlan> body, shortcut;
  size_t in_size() const { return size_t(in_c) * in_h * in_w; }
  size_t out_size() const { return size_t(out_c) * out_h * out_w; }
};
// The most values one tensor of a network may hold (an example's input or output of a layer, a
// weight): the layers index them with an int.
constexpr int64_t kMaxTensorValues = 2147483647;
// The layers of `spec` with their sizes. Throws course::Error when a size does not work out
// (e.g. a kernel larger than its padded input), when a tensor would hold more than
// kMaxTensorValues values, or the last layer does not give `classes` values.
std::vector<LayerPlan> plan_layers(const ModelSpec& spec);
// Every layer of `plan`, blocks opened: a residual block, then its body's layers and its shortcut's,
// in the order their parameters come.
std::vector<const LayerPlan*> all_layers(const std::vector<LayerPlan>& plan);
// The layers' names by kind, counted from 1 over the top-level list: conv1, relu1, pool1, fc1,
// sigmoid1, dropout1, bn1, avgpool1, res1, lstm1 (the names the profiles and tables print).
std::vector<std::string> layer_names(const std::vector<LayerPlan>& plan);

// About what training these layers at `batch` holds in memory, in bytes: every parameter four times
// (value, gradient, two optimizer moments) and, per example, the input and each layer's output three
// times (output, its gradient, a mask or argmax). An estimate from above, for refusing a run the
// machine cannot hold before anything is allocated.
uint64_t training_bytes(const std::vector<LayerPlan>& plan, int batch);
// The memory this machine has for a new allocation now (course::memory_available: MemAvailable of
// /proc/meminfo, else its physical memory), in bytes; 0 when it cannot tell.
uint64_t available_host_bytes();
// Throws course::Error "<what> needs about N GiB ..., more than the M GiB <where> has free; ..."
// when `bytes` exceeds `available` (nothing is checked when available is 0: it could not be told).
// where: "this machine", "the GPU".
void require_memory(uint64_t bytes, uint64_t available, const std::string& what, const std::string& where);

// PyTorch layouts: conv weight O x I x kh x kw, dense weight out x in, bias [out]; batch norm's
// gamma and beta [channels]; an LSTM of H units on I inputs: nn.LSTM's w_ih [4H x I], w_hh [4H x H],
// b_ih [4H], b_hh [4H] (the gates' rows in the order i, f, g, o). Names: "conv1.weight",
// "conv1.bias", ..., "fc1.weight", "fc1.bias", "bn1.weight" (gamma), "bn1.bias" (beta),
// "lstm1.weight_ih_l0", "lstm1.weight_hh_l0", "lstm1.bias_ih_l0", "lstm1.bias_hh_l0", ... (counted
// per kind, blocks opened as all_layers).
struct Parameter {
  std::string name;
  std::vector<int> shape;
  std::vector<float> value, grad;
};

// Kaiming-uniform weights U(-b, b) with b = sqrt(6 / fan_in) (fan_in = I*kh*kw for conv, in for
// dense), biases 0, batch norm's gamma 1 and beta 0; an LSTM's four tensors, its biases too,
// U(-1/sqrt(H), 1/sqrt(H)) as nn.LSTM starts them. Values are drawn in parameter order, element by
// element, from ONE course::Rng(seed, 0) with Rng::uniform; zero biases and batch norm draw nothing.
std::vector<Parameter> init_parameters(const ModelSpec& spec, uint64_t seed);
// What a training pass changes beside the parameters, as --save writes it: every batch norm's
// running mean and variance, named as PyTorch names them ("bn1.running_mean", "bn1.running_var",
// [channels] each, numbered as init_parameters numbers "bn1.weight"), in all_layers' order, the mean
// first. `values`: the statistics in that order (mean then variance of each batch norm, as a
// network's buffers hold them); empty: PyTorch's start, mean 0 and variance 1. Throws course::Error
// when `values` is neither empty nor of their size. Empty for a network without batch norm.
std::vector<Parameter> running_statistics(const ModelSpec& spec, const std::vector<float>& values = {});
// The tensors init_parameters makes, their names and shapes only (no values, no gradients): what a
// check of given parameters compares with, without a second copy of them.
std::vector<Parameter> parameter_shapes(const ModelSpec& spec);
// How many values the parameters of these layers hold, all of them together.
uint64_t parameter_values(const std::vector<LayerPlan>& plan);
// Every network built from given parameters checks them here: throws course::Error naming the first
// misfit unless `params` are the tensors init_parameters makes for `spec` (their number, order, shapes
// and sizes; values aside).
void require_parameters_fit(const ModelSpec& spec, const std::vector<Parameter>& params);

}  // namespace framework
