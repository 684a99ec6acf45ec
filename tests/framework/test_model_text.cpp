// The course framework: networks written as text (model_text.cpp) and the shapes line the trainers print.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "course_test.hpp"
#include "framework/model.hpp"

using namespace framework;

namespace {

bool same_layers(const ModelSpec& a, const ModelSpec& b) {
  if (a.layers.size() != b.layers.size()) return false;
  for (size_t i = 0; i < a.layers.size(); ++i) {
    const LayerSpec &x = a.layers[i], &y = b.layers[i];
    if (x.kind != y.kind || x.out != y.out || x.kernel != y.kernel || x.stride != y.stride || x.pad != y.pad ||
        (x.kind == LayerKind::maxpool && x.window != y.window) || x.rate != y.rate)
      return false;
  }
  return true;
}

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
  // Lesson 02's network runs conv, relu, maxpool and dense only: the others are refused, by name.
  CHECK_FALSE(runs_in_lesson02(LayerKind::sigmoid));
  CHECK(runs_in_lesson02(LayerKind::maxpool));
  try {
    require_lesson02_layers(m, "HostNetwork");
    FAIL("require_lesson02_layers accepted a sigmoid layer");
  } catch (const course::Error& e) {
    CHECK(std::string(e.what()) ==
          "HostNetwork: layer 2 'sigmoid' is not a layer of this trainer (it runs conv, relu, pool and dense); "
          "train_beyond trains every kind");
  }
  CHECK_NOTHROW(require_lesson02_layers(model_a(), "x"));
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
                       Bad{"relu,,dense10", "layer 2 '': unknown layer"},
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
  for (int i = 0; i < 200000; ++i) text += "relu,";
  text += "relu\nbad\x1b[2J,dense10";
  std::string message;
  try {
    framework::model_from_text(text);
  } catch (const course::Error& e) {
    message = e.what();
  }
  INFO(message.substr(0, 300));
  CHECK(message.find("layer 200001 'relu\\nbad\\x1b[2J'") != std::string::npos);
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
