// The course framework: networks written as text (model_text.cpp) and the shapes line the trainers print.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "course_test.hpp"
#include "framework/model.hpp"
#include "framework/run_files.hpp"

using namespace framework;

namespace {

bool same_layers(const std::vector<LayerSpec>& a, const std::vector<LayerSpec>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const LayerSpec &x = a[i], &y = b[i];
    if (x.kind != y.kind || x.out != y.out || x.kernel != y.kernel || x.stride != y.stride || x.pad != y.pad ||
        (x.kind == LayerKind::maxpool && x.window != y.window) || x.rate != y.rate || !same_layers(x.body, y.body))
      return false;
  }
  return true;
}
bool same_layers(const ModelSpec& a, const ModelSpec& b) { return same_layers(a.layers, b.layers); }

std::string error_of(const std::string& text) {
  try {
    model_by_name(text);
  } catch (const course::Error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("model_from_text: the named models as layer lists, every option, spaces; text round trip",
          "[model_text]") {
  CHECK(same_layers(model_from_text("conv3x3x10p1,relu,pool2,dense100,relu,dense10"), small_cnn()));
  CHECK(same_layers(model_from_text(" conv5x5x32p2, relu ,pool2,conv5x5x64p2,relu,pool2,dense512,relu,dense10 "),
                    model_a()));
  CHECK(same_layers(model_by_name("conv3x3x256,relu,pool2,dense10"), scaling_cnn(256)));

  const ModelSpec m = model_from_text("conv7x7x3s2p3,relu,pool3s2,conv1x1x5,pool2s1,dense7");
  REQUIRE(m.layers.size() == 6);
  CHECK(m.layers[0].kind == LayerKind::conv);
  CHECK(m.layers[0].kernel == 7);
  CHECK(m.layers[0].out == 3);
  CHECK(m.layers[0].stride == 2);
  CHECK(m.layers[0].pad == 3);
  CHECK(m.layers[2].kind == LayerKind::maxpool);
  CHECK(m.layers[2].window == 3);
  CHECK(m.layers[2].stride == 2);
  CHECK(m.layers[4].window == 2);
  CHECK(m.layers[4].stride == 1);
  CHECK(m.layers[5].out == 7);
  // The canonical text: options in a fixed order, defaults left out; it reads back as the same model.
  CHECK(m.name == "conv7x7x3p3s2,relu,pool3s2,conv1x1x5,pool2s1,dense7");
  CHECK(same_layers(model_from_text(m.name), m));
  CHECK(model_text(model_a()) == "conv5x5x32p2,relu,pool2,conv5x5x64p2,relu,pool2,dense512,relu,dense10");
}

TEST_CASE("plan_summary: the shape after every layer", "[model_text]") {
  CHECK(plan_summary(small_cnn()) ==
        "1x28x28 -conv3x3x10p1-> 10x28x28 -relu-> -pool2-> 10x14x14 -dense100-> 100 -relu-> -dense10-> 10");
  ModelSpec colour = model_from_text("conv5x5x6,relu,pool2,conv5x5x16,relu,pool2,dense120,dense10");
  colour.in_channels = 3, colour.height = 32, colour.width = 32;
  CHECK(plan_summary(colour) ==
        "3x32x32 -conv5x5x6-> 6x28x28 -relu-> -pool2-> 6x14x14 -conv5x5x16-> 16x10x10 -relu-> -pool2-> 16x5x5 "
        "-dense120-> 120 -dense10-> 10");
  ModelSpec too_deep = model_from_text("conv5x5x8,pool2,conv5x5x8,pool2,conv5x5x8,dense10");
  CHECK_THROWS_AS(plan_summary(too_deep), course::Error);  // 28 -> 24 -> 12 -> 8 -> 4: no room for a 5x5
}

TEST_CASE("model_from_text: lesson 12's sigmoid, tanh and dropout<rate>; lesson 02's network refuses them",
          "[model_text]") {
  const ModelSpec m = model_from_text("conv5x5x6,sigmoid,pool2,dropout0.25,dense84,tanh,dropout.5,dropout0,dense10");
  REQUIRE(m.layers.size() == 9);
  CHECK(m.layers[1].kind == LayerKind::sigmoid);
  CHECK(m.layers[3].kind == LayerKind::dropout);
  CHECK(m.layers[3].rate == 0.25f);
  CHECK(m.layers[5].kind == LayerKind::tanh);
  CHECK(m.layers[6].rate == 0.5f);
  CHECK(m.layers[7].rate == 0.0f);
  CHECK(m.name == "conv5x5x6,sigmoid,pool2,dropout0.25,dense84,tanh,dropout0.5,dropout0,dense10");
  CHECK(same_layers(model_from_text(m.name), m));
  CHECK(plan_summary(m) == "1x28x28 -conv5x5x6-> 6x24x24 -sigmoid-> -pool2-> 6x12x12 -dropout0.25-> -dense84-> 84 "
                           "-tanh-> -dropout0.5-> -dropout0-> -dense10-> 10");
  CHECK(looks_like_layer_list("sigmoid"));
  CHECK(looks_like_layer_list("dropout0.5"));

  for (const char* bad : {"dropout", "dropout1", "dropout1.0", "dropout0.5.5", "dropout-0.1", "dropout.", "dropoutx",
                          "dropout0.25s2"}) {
    CAPTURE(bad);
    CHECK(error_of(std::string("dense10,") + bad).find("a dropout layer is dropout<rate> with 0 <= rate < 1") !=
          std::string::npos);
  }
  // The basic network runs conv, relu, maxpool and dense only: the others are refused, by name.
  CHECK(basic_layers().runs(LayerKind::maxpool));
  CHECK_FALSE(basic_layers().runs(LayerKind::sigmoid));
  try {
    require_layers(m, basic_layers(), "HostNetwork");
    FAIL("require_layers accepted a sigmoid layer in the basic set");
  } catch (const course::Error& e) {
    CHECK(std::string(e.what()) ==
          "HostNetwork: layer 2 'sigmoid' is not a layer of this trainer (it runs conv, relu, pool and dense); "
          "a later lesson's trainer runs it");
  }
  CHECK_NOTHROW(require_layers(model_a(), basic_layers(), "x"));
  const LayerKinds activations =
      more_layers(basic_layers(), {LayerKind::sigmoid, LayerKind::tanh, LayerKind::dropout, LayerKind::relu}, "more");
  CHECK(activations.kinds.size() == 7);  // relu once
  CHECK(activations.text == "more");
  CHECK_NOTHROW(require_layers(m, activations, "x"));
}

TEST_CASE("model_by_name refuses a bad layer with its index, its text and what a layer looks like",
          "[model_text]") {
  struct Bad {
    const char* text;
    const char* says;
  };
  for (const Bad& b : {Bad{"conv5x5", "layer 1 'conv5x5': a conv is conv<k>x<k>x<channels>"},
                       Bad{"relu,conv5x3x8", "layer 2 'conv5x3x8': the course's convolutions have square kernels"},
                       Bad{"conv3x3x8p", "after conv<k>x<k>x<channels> come only p<pad>"},
                       Bad{"conv3x3x8p1p1", "each once"},
                       Bad{"conv3x3x8q1", "after conv<k>x<k>x<channels> come only"},
                       Bad{"conv3x3x0", "a conv is"},
                       Bad{"conv3x3x99999999", "a conv is"},
                       Bad{"conv99x99x8", "a conv is"},
                       Bad{"pool", "a max-pool is pool<window>"},
                       Bad{"pool2s", "after pool<window> comes only s<stride>"},
                       Bad{"pool2s2x", "after pool<window> comes only s<stride>"},
                       Bad{"dense", "a dense layer is dense<units>"},
                       Bad{"dense0", "a dense layer is dense<units>"},
                       Bad{"dense10,sigmoidal", "layer 2 'sigmoidal': unknown layer"},
                       Bad{"relu,,dense10", "layer 2 '': no layer here"},
                       Bad{"relu,dense10,", "trailing comma"},
                       Bad{"@", "'@' names no file: write @<file> with the path of a network description"},
                       Bad{"mlp", "unknown model 'mlp' (expected small, a, scaling-<filters>"}}) {
    CAPTURE(b.text);
    const std::string message = error_of(b.text);
    CHECK(message.find(b.says) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("model_by_name(\"@file\"): layers on lines or after commas, comments; a missing or empty file",
          "[model_text]") {
  const std::string path = "test_model_text_network.txt";
  {
    std::ofstream out(path);
    out << "# model A, one layer a line\nconv5x5x32p2\nrelu, pool2   # the first block\n\n"
        << "conv5x5x64p2,relu,pool2\ndense512\nrelu\ndense10\n";
  }
  CHECK(same_layers(model_by_name("@" + path), model_a()));
  {
    std::ofstream out(path);
    out << "# nothing but comments\n\n";
  }
  CHECK(error_of("@" + path).find("holds no layers") != std::string::npos);
  std::remove(path.c_str());
  CHECK(error_of("@" + path).find(path + ": file not found") != std::string::npos);
}

TEST_CASE("plan_layers: a tensor too large for an int is refused with its layer, never wrapped", "[model_text]") {
  // 1x28x28: padding 64 makes 156x156, a 1x1 conv to 65536 channels with padding 50 makes
  // 65536 x 256 x 256 = 2^32 values per example (a dense layer after it once saw a [10, 0] weight).
  framework::ModelSpec spec = framework::model_from_text("conv1x1x1p64,conv1x1x65536p50,dense10");
  spec.in_channels = 1, spec.height = 28, spec.width = 28, spec.classes = 10;
  std::string message;
  try {
    framework::plan_layers(spec);
  } catch (const course::Error& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(message.find("layer 2: its output holds 4294967296 values, more than 2147483647") != std::string::npos);
  // A dense layer whose weight would not fit: 50000 x 50000 inputs.
  spec = framework::model_from_text("dense50000,dense50000,dense10");
  spec.in_channels = 1, spec.height = 28, spec.width = 28, spec.classes = 10;
  message.clear();
  try {
    framework::plan_layers(spec);
  } catch (const course::Error& e) {
    message = e.what();
  }
  CHECK(message.find("layer 2: its weight holds 2500000000 values") != std::string::npos);
  // Just inside the limit is planned.
  spec = framework::model_from_text("dense40000,dense10");
  spec.in_channels = 1, spec.height = 28, spec.width = 28, spec.classes = 10;
  CHECK(framework::plan_layers(spec).size() == 2);
}

TEST_CASE("training_bytes counts parameters four times and each example's tensors; require_memory refuses more",
          "[model_text]") {
  // 1x4x4 -> conv3x3x2 (2x2x2) -> dense3: parameters 2*9+2 + 3*8+3 = 47; an example: 16 inputs,
  // 3 * (8 + 3) outputs = 49 values.
  framework::ModelSpec spec = framework::model_from_text("conv3x3x2,dense3");
  spec.in_channels = 1, spec.height = 4, spec.width = 4, spec.classes = 3;
  const auto plan = framework::plan_layers(spec);
  CHECK(framework::training_bytes(plan, 1) == 4 * (4 * 47 + 49));
  CHECK(framework::training_bytes(plan, 10) == 4 * (4 * 47 + 10 * 49));
  CHECK_NOTHROW(framework::require_memory(1000, 1000, "x", "this machine"));
  CHECK_NOTHROW(framework::require_memory(5000, 0, "x", "this machine"));  // could not be told
  std::string message;
  try {
    framework::require_memory(3ull << 30, 1ull << 30, "model 'm' at batch 8", "the GPU");
  } catch (const course::Error& e) {
    message = e.what();
  }
  CHECK(message == "model 'm' at batch 8 needs about 3.0 GiB for its buffers, more than the 1.0 GiB the GPU has free; "
                   "use a smaller --batch or a smaller network");
  CHECK(framework::available_host_bytes() > 0);
}

TEST_CASE("model_from_text: a huge list with one bad layer gives a short one-line message", "[model_text]") {
  std::string text;
  for (int i = 0; i < 9000; ++i) text += "relu,";
  text += "relu\nbad\x1b[2J,dense10";
  std::string message;
  try {
    framework::model_from_text(text);
  } catch (const course::Error& e) {
    message = e.what();
  }
  INFO(message.substr(0, 300));
  CHECK(message.find("layer 9001 'relu\\nbad\\x1b[2J'") != std::string::npos);
  CHECK(message.find('\n') == std::string::npos);
  CHECK(message.find('\x1b') == std::string::npos);
  CHECK(message.size() < 1500);
}

TEST_CASE("parameters that do not fit the model are refused, naming the first misfit", "[model_text]") {
  const ModelSpec spec = model_from_text("conv3x3x4p1, relu, pool2, dense10");  // 28 x 28 input
  COURSE_INPUT_SEED(7);
  const std::vector<Parameter> fit = init_parameters(spec, 7);
  REQUIRE_NOTHROW(require_parameters_fit(spec, fit));
  auto message = [&](const std::vector<Parameter>& params) {
    try {
      require_parameters_fit(spec, params);
    } catch (const course::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::vector<Parameter> fewer(fit.begin(), fit.end() - 1);
  CHECK(message(fewer).find("needs 4 parameters, got 3") != std::string::npos);
  std::vector<Parameter> reshaped = fit;
  reshaped[2].shape = {10, 4 * 14 * 14 + 1};  // fc1.weight one input too many
  CHECK(message(reshaped).find("parameter 2 ('fc1.weight')") != std::string::npos);
  std::vector<Parameter> short_values = fit;
  short_values[1].value.pop_back();  // conv1.bias: its shape right, one value missing
  CHECK(message(short_values).find("parameter 1 ('conv1.bias')") != std::string::npos);
}

TEST_CASE("model_from_text: lesson 15's bn, globalavg and res(...) blocks; their shapes, shortcuts and parameters",
          "[model_text]") {
  ModelSpec m = model_from_text(
      "conv3x3x8p1, bn, relu, res(conv3x3x8p1,bn,relu,conv3x3x8p1,bn), relu, "
      "res(conv3x3x16p1s2,bn,relu,conv3x3x16p1,bn),relu,globalavg,dense10");
  m.in_channels = 3, m.height = 9, m.width = 7;
  REQUIRE(m.layers.size() == 9);
  CHECK(m.layers[1].kind == LayerKind::batch_norm);
  CHECK(m.layers[3].kind == LayerKind::residual);
  REQUIRE(m.layers[3].body.size() == 5);
  CHECK(m.layers[3].body[3].out == 8);
  CHECK(m.layers[7].kind == LayerKind::global_avg_pool);
  CHECK(m.name == "conv3x3x8p1,bn,relu,res(conv3x3x8p1,bn,relu,conv3x3x8p1,bn),relu,"
                  "res(conv3x3x16p1s2,bn,relu,conv3x3x16p1,bn),relu,globalavg,dense10");
  CHECK(same_layers(model_from_text(m.name), m));
  CHECK(looks_like_layer_list("bn"));
  CHECK(looks_like_layer_list("res(conv3x3x8p1)"));

  // 9 x 7 -> stride 2 -> 5 x 4: the second block's shortcut is a 1x1 conv of stride 2, then bn.
  const std::vector<LayerPlan> plan = plan_layers(m);
  CHECK(plan[3].shortcut.empty());  // the same shape: the input itself
  REQUIRE(plan[5].shortcut.size() == 2);
  const LayerPlan& projection = plan[5].shortcut[0];
  CHECK(projection.spec.kind == LayerKind::conv);
  CHECK((projection.spec.kernel == 1 && projection.spec.stride == 2 && projection.spec.pad == 0));
  CHECK((projection.in_c == 8 && projection.in_h == 9 && projection.in_w == 7));
  CHECK((projection.out_c == 16 && projection.out_h == 5 && projection.out_w == 4));
  CHECK(plan[5].shortcut[1].spec.kind == LayerKind::batch_norm);
  CHECK((plan[5].out_c == 16 && plan[5].out_h == 5 && plan[5].out_w == 4));
  CHECK((plan[7].out_c == 16 && plan[7].out_h == 1 && plan[7].out_w == 1));
  CHECK(plan_summary(m) ==
        "3x9x7 -conv3x3x8p1-> 8x9x7 -bn-> -relu-> -res(conv3x3x8p1,bn,relu,conv3x3x8p1,bn)-> 8x9x7 -relu-> "
        "-res(conv3x3x16p1s2,bn,relu,conv3x3x16p1,bn)-> 16x5x4 -relu-> -globalavg-> 16 -dense10-> 10");
  CHECK(layer_names(plan) == std::vector<std::string>{"conv1", "bn1", "relu1", "res1", "relu2", "res2", "relu3",
                                                      "avgpool1", "fc1"});
  // all_layers opens the blocks: a block, its body, then its shortcut.
  const std::vector<const LayerPlan*> every = all_layers(plan);
  REQUIRE(every.size() == 9 + 5 + 5 + 2);
  CHECK(every[4] == &plan[3].body[0]);
  CHECK(every[16] == &plan[5].shortcut[0]);

  // Parameters in that order, PyTorch's names; gamma 1 and beta 0; only weights draw.
  const std::vector<Parameter> params = init_parameters(m, 3);
  std::vector<std::string> names;
  for (const Parameter& p : params) names.push_back(p.name);
  CHECK(names == std::vector<std::string>{"conv1.weight", "conv1.bias", "bn1.weight", "bn1.bias",
                                          "conv2.weight", "conv2.bias", "bn2.weight", "bn2.bias",
                                          "conv3.weight", "conv3.bias", "bn3.weight", "bn3.bias",
                                          "conv4.weight", "conv4.bias", "bn4.weight", "bn4.bias",
                                          "conv5.weight", "conv5.bias", "bn5.weight", "bn5.bias",
                                          "conv6.weight", "conv6.bias", "bn6.weight", "bn6.bias",
                                          "fc1.weight", "fc1.bias"});
  CHECK(plan[5].shortcut[0].weight == 20);  // conv6: the projection, after the block's body
  CHECK(plan[1].weight == 2);
  CHECK(params[2].shape == std::vector<int>{8});
  CHECK(params[2].value == std::vector<float>(8, 1.0f));
  CHECK(params[3].value == std::vector<float>(8, 0.0f));
  CHECK(params[20].shape == std::vector<int>{16, 8, 1, 1});
  CHECK(params[24].shape == std::vector<int>{10, 16});
  // The first weights are drawn as a model without batch norm draws them.
  ModelSpec plain = model_from_text("conv3x3x8p1,relu,globalavg,dense10");
  plain.in_channels = 3, plain.height = 9, plain.width = 7;
  CHECK(init_parameters(plain, 3)[0].value == params[0].value);

  // Batch norm's running statistics for --save: numbered and ordered as its parameters, the mean
  // first; PyTorch's start without values, the network's values in order with them.
  const std::vector<Parameter> fresh = running_statistics(m);
  REQUIRE(fresh.size() == 12);
  CHECK(fresh[0].name == "bn1.running_mean");
  CHECK(fresh[1].name == "bn1.running_var");
  CHECK(fresh[11].name == "bn6.running_var");  // the projection's batch norm, last
  CHECK(fresh[10].shape == std::vector<int>{16});
  CHECK(fresh[0].value == std::vector<float>(8, 0.0f));
  CHECK(fresh[1].value == std::vector<float>(8, 1.0f));
  size_t total = 0;
  for (const Parameter& p : fresh) total += p.value.size();
  std::vector<float> values(total);
  for (size_t i = 0; i < total; ++i) values[i] = 0.5f + float(i);
  const std::vector<Parameter> filled = running_statistics(m, values);
  CHECK(filled[0].value[0] == 0.5f);
  CHECK(filled[1].value[0] == 8.5f);                     // after bn1's 8 means
  CHECK(filled[11].value.back() == values.back());
  values.pop_back();
  CHECK_THROWS_AS(running_statistics(m, values), course::Error);  // one value short
  CHECK(running_statistics(plain).empty());
  CHECK(framework::saved_tensors_text(params) == "26 parameter tensors");
  std::vector<Parameter> all = params;
  all.insert(all.end(), filled.begin(), filled.end());
  CHECK(framework::saved_tensors_text(all) == "26 parameter tensors, 12 running statistics");

  // Lesson 15's layers are refused by a set without them, naming the layer and what the set runs.
  try {
    require_layers(m, more_layers(basic_layers(), {LayerKind::sigmoid}, "conv, relu, pool, dense and sigmoid"),
                   "--model");
    FAIL("require_layers accepted bn in a set without it");
  } catch (const course::Error& e) {
    CHECK(std::string(e.what()) ==
          "--model: layer 2 'bn' is not a layer of this trainer (it runs conv, relu, pool, dense and sigmoid); "
          "a later lesson's trainer runs it");
  }
  CHECK_NOTHROW(require_layers(
      m, more_layers(basic_layers(), {LayerKind::batch_norm, LayerKind::global_avg_pool, LayerKind::residual}, "all"),
      "x"));
  CHECK(error_of("conv3x3x8,globalavg,dense10") == "(accepted)");
}

TEST_CASE("res(...) blocks: a bad body, brackets or a shape no shortcut matches gives one line", "[model_text]") {
  struct Bad {
    const char* text;
    const char* says;
  };
  for (const Bad& b :
       {Bad{"res(conv3x3x8p1,bn", "layer 1 'res(conv3x3x8p1,bn': a '(' without its ')'"},
        Bad{"relu,res(conv3x3x8p1))", "layer 2 'res(conv3x3x8p1)': a ')' without its '('"},
        Bad{"res(conv3x3x8p1)x", "a residual block is res(<layers>) and nothing after its ')'"},
        Bad{"res()", "layer 1.1 '': no layer here"},
        Bad{"res(conv3x3x8p1,,bn)", "layer 1.2 '': no layer here"},
        Bad{"res(relu,res(relu))", "layer 1.2 'res(relu)': a res block's body holds no res block"},
        Bad{"res(relu,conv3x3)", "layer 1.2 'conv3x3': a conv is conv<k>x<k>x<channels>"},
        Bad{"res(bnx)", "layer 1.1 'bnx': unknown layer"},
        Bad{"relu(x)", "layer 1 'relu(x)': unknown layer"},
        Bad{"bn2", "layer 1 'bn2': unknown layer"}}) {
    CAPTURE(b.text);
    const std::string message = error_of(b.text);
    CHECK(message.find(b.says) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
  // Shapes: a block whose body holds dense, or whose size no strided 1x1 conv gives, names the layer.
  auto plan_error = [](const char* text) {
    try {
      plan_layers(model_from_text(text));
    } catch (const course::Error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK(plan_error("res(conv3x3x8p1,dense10),globalavg,dense10").find(
            "layer 1.2: a res block's body holds no res, dense, globalavg or lstm layer") != std::string::npos);
  CHECK(plan_error("res(conv3x3x8),globalavg,dense10").find(
            "layer 1: the body makes 28x28 into 26x26, which no strided 1x1 projection of the input matches") !=
        std::string::npos);
  CHECK(plan_error("res(conv3x3x8p1,conv30x30x8),globalavg,dense10").find("layer 1.2: kernel larger than its input") !=
        std::string::npos);
  CHECK(plan_error("res(conv3x3x8p1s2),globalavg,dense10") == "(accepted)");  // 28 -> 14, a stride-2 projection
  CHECK(plan_error("res(conv3x3x8p1),globalavg,dense10") == "(accepted)");
}

TEST_CASE("model_from_text: line breaks around a layer are whitespace; in an @file a line break next to a comma "
          "or a bracket is no second separator", "[model_text]") {
  // On the command line (a shell's $'...'): the layers as if on one line, and the name on one line.
  const ModelSpec m = model_from_text("conv3x3x10p1,relu,pool2\n,dense100,relu,\r\ndense10\n");
  CHECK(same_layers(m, small_cnn()));
  CHECK(m.name == "conv3x3x10p1,relu,pool2,dense100,relu,dense10");
  CHECK(model_title("conv3x3x10p1,relu,pool2\n,dense100,relu,\r\ndense10\n", m).find('\n') == std::string::npos);
  // Two layers with a line break and no comma between them are one bad layer, and the message says why.
  const std::string joined = error_of("relu\ndense10");
  CHECK(joined.find("layer 1 'relu\\ndense10': unknown layer: a layer holds no space or line break") !=
        std::string::npos);
  CHECK(joined.find('\n') == std::string::npos);

  const std::string path = "test_model_text_breaks.txt";
  {
    std::ofstream out(path);  // a line break before a comma, after one, and inside a block's brackets
    out << "conv3x3x10p1,relu,pool2\n,dense100\nrelu,\ndense10\n";
  }
  const ModelSpec from_file = model_by_name("@" + path);
  CHECK(same_layers(from_file, small_cnn()));
  {
    std::ofstream out(path);
    out << "conv3x3x8p1,bn,relu,res(\n  conv3x3x8p1,bn,relu   # the body\n  ,conv3x3x8p1,bn\n),relu,\nglobalavg\n,dense10\n";
  }
  CHECK(model_by_name("@" + path).name ==
        "conv3x3x8p1,bn,relu,res(conv3x3x8p1,bn,relu,conv3x3x8p1,bn),relu,globalavg,dense10");
  {
    std::ofstream out(path);  // an empty layer is still refused: two commas on one line
    out << "relu,,\ndense10\n";
  }
  CHECK(error_of("@" + path).find("two commas in a row") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("model_from_text: a list longer than any network, or an @file larger than any description, is refused "
          "before it is parsed", "[model_text]") {
  std::string text;
  for (size_t i = 0; i < kMaxLayers; ++i) text += "relu,";
  text += "dense10";
  std::string message = error_of(text);
  CHECK(message.find("of 10001 layers, more than the 10000 a network of this course may have") != std::string::npos);
  CHECK(message.size() < 400);
  text.resize(text.size() - std::string("relu,dense10").size());
  text += "dense10";
  CHECK(model_by_name(text).layers.size() == kMaxLayers);  // the limit itself is a network

  const std::string path = "test_model_text_huge.txt";
  {
    std::ofstream out(path);
    const std::string line(1000, ' ');
    for (uint64_t written = 0; written <= kMaxDescriptionBytes; written += line.size() + 1) out << line << "\n";
    out << "relu,dense10\n";
  }
  message = error_of("@" + path);
  CHECK(message.find(path + ": ") == 0);
  CHECK(message.find("bytes, more than the 1048576 a network description may hold") != std::string::npos);
  {
    std::ofstream out(path);  // small enough to read, too many layers to be a network: named by its file
    for (size_t i = 0; i < kMaxLayers + 5; ++i) out << "relu\n";
  }
  message = error_of("@" + path);
  CHECK(message.find(path + ": a network of 10005 layers, more than the 10000") == 0);
  std::remove(path.c_str());
}

TEST_CASE("parameter_shapes: init_parameters' names and shapes without values; parameter_values counts them",
          "[model_text]") {
  ModelSpec spec = model_from_text("conv3x3x8p1,bn,relu,res(conv3x3x8p1s2,bn),globalavg,dense10");
  spec.in_channels = 3, spec.height = 9, spec.width = 9;
  const std::vector<Parameter> full = init_parameters(spec, 3), shapes = parameter_shapes(spec);
  REQUIRE(shapes.size() == full.size());
  uint64_t values = 0;
  for (size_t i = 0; i < full.size(); ++i) {
    CHECK(shapes[i].name == full[i].name);
    CHECK(shapes[i].shape == full[i].shape);
    CHECK(shapes[i].value.empty());
    CHECK(shapes[i].grad.empty());
    values += full[i].value.size();
  }
  CHECK(parameter_values(plan_layers(spec)) == values);
}

TEST_CASE("model_from_text: lstm<units>; its plan, nn.LSTM's parameters and their start; bad LSTMs refused",
          "[model_text]") {
  ModelSpec spec = model_from_text("lstm7, relu ,dense2");
  REQUIRE(spec.layers.size() == 3);
  CHECK(spec.layers[0].kind == LayerKind::lstm);
  CHECK(spec.layers[0].out == 7);
  CHECK(model_text(spec) == "lstm7,relu,dense2");
  CHECK(looks_like_layer_list("lstm51"));
  spec.in_channels = 3, spec.height = 1, spec.width = 1, spec.classes = 2;  // 3 values a step
  CHECK(plan_summary(spec) == "3 -lstm7-> 7 -relu-> -dense2-> 2");
  const std::vector<LayerPlan> plan = plan_layers(spec);
  CHECK(plan[0].in_size() == 3);
  CHECK(plan[0].out_size() == 7);
  CHECK(plan[0].weight == 0);
  CHECK(plan[2].weight == 4);  // after the LSTM's four tensors
  CHECK(layer_names(plan) == std::vector<std::string>{"lstm1", "relu1", "fc1"});

  const std::vector<Parameter> params = init_parameters(spec, 11);
  REQUIRE(params.size() == 6);
  const char* names[] = {"lstm1.weight_ih_l0", "lstm1.weight_hh_l0", "lstm1.bias_ih_l0", "lstm1.bias_hh_l0",
                         "fc1.weight", "fc1.bias"};
  const std::vector<int> shapes[] = {{28, 3}, {28, 7}, {28}, {28}, {2, 7}, {2}};
  for (size_t i = 0; i < 6; ++i) {
    CHECK(params[i].name == names[i]);
    CHECK(params[i].shape == shapes[i]);
    CHECK(params[i].grad == std::vector<float>(params[i].value.size(), 0.0f));
  }
  // nn.LSTM's start: every tensor, the biases too, uniform in +-1/sqrt(7), spread over the range.
  const float bound = 1.0f / std::sqrt(7.0f);
  for (size_t i = 0; i < 4; ++i) {
    float lo = 1, hi = -1;
    for (float v : params[i].value) lo = std::min(lo, v), hi = std::max(hi, v);
    CHECK(lo >= -bound);
    CHECK(hi <= bound);
    CHECK(hi - lo > bound);  // 28 draws or more: never all on one side
  }
  CHECK(params[2].value != params[3].value);  // two biases, two draws
  CHECK(params[5].value == std::vector<float>(2, 0.0f));  // the head as every dense layer starts
  CHECK(init_parameters(spec, 11)[1].value == params[1].value);  // the seed decides
  CHECK(init_parameters(spec, 12)[1].value != params[1].value);
  // Training holds c and the four gates beside each step's h: 8 values of h's per example, not 3.
  CHECK(training_bytes(plan, 1) == 4 * (4 * parameter_values(plan) + 3 + 8 * 7 + 3 * 7 + 3 * 2));

  const auto says = [](const std::string& message, const std::string& part) {
    INFO(message);
    return message.find(part) != std::string::npos;
  };
  CHECK(says(error_of("lstm0,dense1"), "layer 1 'lstm0': an LSTM is lstm<units> (1-65536), e.g. lstm51"));
  CHECK(says(error_of("lstm,dense1"), "layer 1 'lstm': an LSTM is lstm<units>"));
  CHECK(says(error_of("lstm8x,dense1"), "layer 1 'lstm8x': an LSTM is lstm<units>"));
  std::string in_block = "(accepted)";
  try {
    plan_layers(model_from_text("res(lstm8),dense10"));  // the sizes are checked by plan_layers
  } catch (const course::Error& e) {
    in_block = e.what();
  }
  CHECK(says(in_block, "layer 1.1: a res block's body holds no res, dense, globalavg or lstm layer"));
}
