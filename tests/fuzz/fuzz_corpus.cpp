// Writes the seed corpus of the fuzz targets: valid files made by the course's own writers and
// hand-made edge cases (each close to a rule of its parser), so that no binary file has to be
// stored in the repository. Usage: fuzz_corpus <folder>; writes <folder>/{idx,npy,cli,scaling_csv,cifar,allreduce_csv,parallel_scaling_csv,
// model_text}/*.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "course/cifar.hpp"
#include "course/error.hpp"
#include "course/idx.hpp"
#include "course/npy.hpp"
#include "allreduce_sweep.hpp"
#include "scaling_model.hpp"
#include "scaling_results.hpp"

namespace {
using Bytes = std::vector<uint8_t>;
namespace fs = std::filesystem;

void save(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw course::Error(path.string() + ": cannot be written");
}
void save(const fs::path& path, const std::string& text) { save(path, Bytes(text.begin(), text.end())); }

// A string literal whole, NUL bytes inside it too.
template <size_t N>
std::string text_of(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

Bytes load(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// ---- IDX --------------------------------------------------------------------------------
Bytes idx(uint8_t type, const std::vector<uint32_t>& dims, size_t data_bytes, uint8_t fill = 7) {
  Bytes b = {0, 0, type, static_cast<uint8_t>(dims.size())};
  for (uint32_t d : dims)
    for (int shift = 24; shift >= 0; shift -= 8) b.push_back(static_cast<uint8_t>(d >> shift));
  for (size_t i = 0; i < data_bytes; ++i) b.push_back(static_cast<uint8_t>(fill + i));
  return b;
}

Bytes written_idx(const fs::path& scratch, const std::vector<int>& dims, uint8_t max_value) {
  size_t n = 1;
  for (int d : dims) n *= static_cast<size_t>(d);
  Bytes data(n);
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<uint8_t>((i * 37) % (max_value + 1u));
  course::write_idx(scratch.string(), dims, data);
  return load(scratch);
}

// fuzz_idx also reads its input as a data set: [limit, split low, split high, images, labels].
Bytes dataset(uint8_t limit, const Bytes& images, const Bytes& labels) {
  Bytes b = {limit, static_cast<uint8_t>(images.size() & 0xff), static_cast<uint8_t>(images.size() >> 8)};
  b.insert(b.end(), images.begin(), images.end());
  b.insert(b.end(), labels.begin(), labels.end());
  return b;
}

void idx_corpus(const fs::path& dir, const fs::path& scratch) {
  const Bytes images = written_idx(scratch, {3, 4, 5}, 255), labels = written_idx(scratch, {3}, 9);
  save(dir / "valid-images", images);
  save(dir / "valid-labels", labels);
  save(dir / "valid-rank2", written_idx(scratch, {2, 7}, 255));
  save(dir / "valid-rank4", written_idx(scratch, {1, 2, 1, 3}, 255));
  save(dir / "dataset", dataset(0, images, labels));
  save(dir / "dataset-limit", dataset(2, images, labels));
  save(dir / "dataset-bad-label", dataset(0, images, written_idx(scratch, {3}, 200)));
  save(dir / "dataset-count-mismatch", dataset(0, images, written_idx(scratch, {2}, 9)));
  save(dir / "empty", Bytes{});
  save(dir / "short-header", Bytes{0, 0, 8});
  save(dir / "gzip", Bytes{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3});
  save(dir / "html", std::string("<html>not found</html>"));
  save(dir / "type-float", idx(0x0d, {4}, 16));
  save(dir / "rank0", idx(0x08, {}, 0));
  save(dir / "rank5", idx(0x08, {1, 1, 1, 1, 1}, 1));
  save(dir / "dimension-0", idx(0x08, {5, 0, 3}, 0));
  save(dir / "cut-in-dims", Bytes{0, 0, 8, 3, 0, 0, 0, 3, 0, 0});
  save(dir / "truncated", idx(0x08, {3, 5, 7}, 104));
  save(dir / "too-long", idx(0x08, {10}, 11));
  save(dir / "overflow", idx(0x08, {1u << 28, 1u << 28, 1u << 28, 1u << 28}, 8));
  save(dir / "implausible", idx(0x08, {(1u << 28) + 1}, 8));
}

// ---- .npy -------------------------------------------------------------------------------
// A .npy file by hand: version 1.0, `dict` padded like NumPy's header, `data_bytes` of data.
Bytes npy(const std::string& dict, size_t data_bytes, uint8_t major = 1) {
  std::string header = dict;
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string file("\x93NUMPY", 6);
  file += static_cast<char>(major);
  file += '\0';
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  file += header;
  file.append(data_bytes, '\0');
  return Bytes(file.begin(), file.end());
}

std::string float_dict(const std::string& shape) {
  return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
}

void npy_corpus(const fs::path& dir, const fs::path& scratch) {
  const std::vector<float> values = {0.5f, -1.0f, 3.25f, 1e-3f, 7.0f, -0.0f};
  int n = 0;
  for (const std::vector<size_t>& shape : {std::vector<size_t>{}, std::vector<size_t>{6}, std::vector<size_t>{2, 3},
                                           std::vector<size_t>{3, 1, 2}, std::vector<size_t>{0, 3}}) {
    course::write_npy(scratch.string(), values.data(), shape);
    save(dir / ("valid-" + std::to_string(n++)), load(scratch));
  }
  const int32_t ints[2] = {1, -2};
  course::write_npy(scratch.string(), ints, {2});
  save(dir / "int32", load(scratch));
  save(dir / "double-quotes", npy("{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":(2,3)}", 24));
  save(dir / "key-order", npy("{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}", 8));
  save(dir / "fortran", npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8));
  save(dir / "big-endian", npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), 'x': '<f4'}", 8));
  save(dir / "shape-word", npy(float_dict("(abc,)"), 0));
  save(dir / "shape-negative", npy(float_dict("(-1,)"), 0));
  save(dir / "shape-int", npy(float_dict("(4)"), 16));
  save(dir / "shape-huge", npy(float_dict("(99999999999999999999999,)"), 0));
  save(dir / "shape-overflow", npy(float_dict("(4611686018427387904, 4)"), 0));
  Bytes promise = npy(float_dict("(100000000,)"), 0);
  promise.resize(138, 0);
  save(dir / "promises-400MB", promise);
  save(dir / "trailing", npy(float_dict("(3,)"), 13));
  save(dir / "duplicate-key", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (1,)}", 4));
  save(dir / "missing-key", npy("{'descr': '<f4', 'fortran_order': False}", 0));
  save(dir / "unclosed", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", 8));
  save(dir / "version2", npy(float_dict("(2,)"), 8, 2));
  Bytes cut = npy(float_dict("(2,)"), 8);
  cut.resize(40);
  save(dir / "cut-in-header", cut);
  save(dir / "magic-only", std::string("\x93NUMPY", 6));
}

// ---- command line -----------------------------------------------------------------------
// Arguments after the program name, separated by NUL bytes (what fuzz_cli splits on).
std::string args(const std::vector<std::string>& list) {
  std::string out;
  for (size_t i = 0; i < list.size(); ++i) out += (i ? std::string(1, '\0') : "") + list[i];
  return out;
}

void cli_corpus(const fs::path& dir) {
  const std::vector<std::vector<std::string>> cases = {
      {"--epochs", "3", "--lr=0.5", "--quick"},
      {"--optimizer", "adam", "--out=/tmp/a=b", "--cpu-only"},
      {"--seed", "4611686018427387904", "--offset=-9223372036854775808"},
      {"--seed=4611686018427387905"},
      {"--seed", "99999999999999999999999999"},
      {"--epochs=12abc"},
      {"--epochs= 12"},
      {"--seed=-0", "--offset=+7"},
      {"--epochs="},
      {"--lr=1e-320", "--scale=-1e300"},
      {"--lr=1e999"},
      {"--lr=nan"},
      {"--scale=0x1p-3"},
      {"--optimizer=rmsprop"},
      {"--epoch", "3"},
      {"--optimiser=adam"},
      {"--optim", "sgd"},
      {"--hlep"},
      {"--help=1"},
      {"--help"},
      {"-h"},
      {"--quick=1"},
      {"data.idx"},
      {"--out"},
      {"--"},
      {""},
  };
  int n = 0;
  for (const auto& c : cases) save(dir / ("args-" + std::to_string(n++)), args(c));
}

// ---- lesson 11's scaling-study CSV --------------------------------------------------------
void scaling_csv_corpus(const fs::path& dir) {
  scaling_study::Result cpu;
  cpu.system = "cpu-fast-1", cpu.machine = "AMD EPYC, \"2 cores\"", cpu.threads = 1, cpu.filters = 32;
  cpu.batch = 1000, cpu.images_timed = 6000, cpu.seconds_timed = 0.7, cpu.test_images = 10000;
  cpu.test_accuracy = 0.9, cpu.setup = "lesson 11's layers";
  scaling_study::set_epoch_figure(cpu);
  scaling_study::Result gpu = cpu;
  gpu.system = "gpu-fastest", gpu.machine = "NVIDIA H100 80GB HBM3", gpu.threads = 0, gpu.images_timed = 60000;
  gpu.test_accuracy = -1, gpu.setup = "";
  scaling_study::set_epoch_figure(gpu);
  const std::string valid = scaling_study::results_csv({cpu, gpu});
  save(dir / "valid", valid);
  save(dir / "header-only", scaling_study::results_csv({}));
  const std::string header = valid.substr(0, valid.find('\n') + 1);
  save(dir / "bad-number", header + "cpu-naive,x,1,32,100,6000,1e999,nan,yes,10,0.5,\n");
  save(dir / "few-fields", header + "cpu-naive,x,1,32\n");
  save(dir / "quote-open", header + "cpu-naive,\"x,1,32,100,6000,1,10,yes,10,0.5,\n");
  save(dir / "twice", valid + valid.substr(header.size()));
  // A NUL byte inside a number (threads "1<NUL>9999"), and in the header: C's parsers stop at it.
  std::string nul = valid;
  nul.insert(nul.find(",1,32,") + 2, text_of("\0" "9999"));
  save(dir / "nul-in-number", nul);
  save(dir / "nul-in-header", std::string(header).insert(6, 1, '\0') + valid.substr(header.size()));
}

// ---- CIFAR-10 batch files -----------------------------------------------------------------
// Records with the given labels; pixel bytes vary within and across records and planes.
Bytes cifar_records(const std::vector<uint8_t>& labels) {
  Bytes b;
  for (size_t r = 0; r < labels.size(); ++r) {
    b.push_back(labels[r]);
    for (size_t i = 0; i < course::kCifarImageBytes; ++i)
      b.push_back(static_cast<uint8_t>((i * 7 + r * 91 + i / 1024 * 50) & 0xff));
  }
  return b;
}

// fuzz_cifar reads its input whole, then from byte 1 on with byte 0 as a signed limit.
Bytes with_limit(int8_t limit, const Bytes& records) {
  Bytes b = {static_cast<uint8_t>(limit)};
  b.insert(b.end(), records.begin(), records.end());
  return b;
}

void cifar_corpus(const fs::path& dir) {
  const Bytes two = cifar_records({3, 8});
  save(dir / "valid-two-records", two);
  save(dir / "valid-one-record", cifar_records({0}));
  save(dir / "valid-label-9", cifar_records({9, 9, 1}));
  Bytes cut = two;
  cut.resize(two.size() - 1000);  // a download cut inside the second record
  save(dir / "cut-record", cut);
  save(dir / "label-10", cifar_records({4, 10}));
  save(dir / "label-255", cifar_records({255}));
  save(dir / "empty", Bytes{});
  save(dir / "limit-1-of-two", with_limit(1, two));
  save(dir / "limit-5-of-two", with_limit(5, two));
  save(dir / "limit-negative", with_limit(-1, cifar_records({2})));
  save(dir / "limit-hides-label-10", with_limit(1, cifar_records({4, 10})));
  // The start of a batch of the Python version (a pickle), which is not a list of records.
  const char pickle[] = "\x80\x02}q\x00(X\x05\x00\x00\x00" "batch_label";
  save(dir / "python-pickle", std::string(pickle, sizeof pickle - 1));
}

// ---- lesson 13's all-reduce sweep ---------------------------------------------------------
void allreduce_csv_corpus(const fs::path& dir) {
  data_parallel::AllReduceSweep sweep;
  sweep.ranks = 2;
  for (double bytes = 4096; bytes <= 268435456; bytes *= 16) sweep.points.push_back({bytes, 18e-6 + bytes / 260e9});
  const std::string valid = data_parallel::allreduce_csv(sweep);
  save(dir / "valid", valid);
  save(dir / "header-only", data_parallel::allreduce_csv({2, {}}));
  const std::string header = valid.substr(0, valid.find('\n') + 1);
  save(dir / "one-size", header + "2,4096,20.1,0.2,0.2\n");
  save(dir / "ranks-change", header + "2,4096,20.1,0.2,0.2\n4,65536,22.0,3.0,4.5\n");
  save(dir / "times-fall", header + "2,4096,900,0,0\n2,1048576,300,3.5,3.5\n2,67108864,20,3355,3355\n");
  save(dir / "sub-nanosecond", header + "2,4096,0.0001,1,1\n2,8192,20,1,1\n");
  save(dir / "windows-line-ends", "ranks,bytes,microseconds,algbw_gb_per_s,busbw_gb_per_s\r\n2,4096,20,0.2,0.2\r\n2,8192,21,0.4,0.4\r\n");
  save(dir / "old-header", "bytes,microseconds,algbw_gb_per_s,busbw_gb_per_s\n4096,14.9,0.3,0.3\n");
  // A NUL byte inside a number ("12<NUL>9999" must not read as 12), at a line's end, in the header.
  save(dir / "nul-in-number", header + text_of("2,4096,12\0" "9999,1,1\n2,1048576,20,1,1\n"));
  save(dir / "nul-at-line-end", header + text_of("2,4096,12,1,1\0\n2,1048576,20,1,1\n"));
  save(dir / "nul-in-header", text_of("ranks\0,bytes,microseconds,algbw_gb_per_s,busbw_gb_per_s\n2,4096,12,1,1\n"));
}

// ---- lesson 13's scaling study ------------------------------------------------------------
void parallel_scaling_csv_corpus(const fs::path& dir) {
  const std::string header = std::string(data_parallel::kScalingHeader) + "\n";
  save(dir / "valid", header + "mlp,669706,32,2,0.102695,0.059701,0.090750,0.094371,536006.2,705231.0,678173.0,1.2652,0.70,0.083802,0.083802\n"
                               "a,1663370,1024,2,74.12,2.861392,3.147531,3.0,0,0,0,0,,,\n");
  save(dir / "one-gpu", header + "a,1663370,128,1,9.265,0.286139,,,0,,,,,,\n");
  save(dir / "mixed-ranks", header + "a,1663370,128,1,9.265,0.286139,,,0,,,,,,\na,1663370,128,2,9.265,0.28,0.5,0.4,0,0,0,0,,,\n");
  save(dir / "zero-time", header + "a,1663370,128,2,9.265,0,0.5,0.4,0,0,0,0,,,\n");
  save(dir / "empty-network", header + ",1663370,128,2,9.265,0.3,0.5,0.4,0,0,0,0,,,\n");
  save(dir / "header-only", header);
  // A NUL byte inside a number: C's parsers would stop at it and read what comes before.
  save(dir / "nul-in-number", header + text_of("a,1663370,128,2,9.265,0.28\0" "9,0.5,0.4,0,0,0,0,,,\n"));
}
}  // namespace

// The layer-list parser: the first byte picks the text (0), an @file (1) or a model name (2).
void model_text_corpus(const fs::path& dir) {
  const char* lists[] = {"conv5x5x8p2,relu,pool2,dense10", "conv3x3x16p1s2,relu,pool2s1,dense64,relu,dense10",
                         "dense100,sigmoid,dropout0.25,tanh,dense10", " conv5x5x6 , relu ,pool2,dense10",
                         "relu,,dense10", "dense10,", "conv3x3x8p1p1",
                         "conv3x3x8p1,bn,relu,res(conv3x3x8p1,bn,relu,conv3x3x8p1,bn),relu,globalavg,dense10",
                         "res(conv3x3x16p1s2,bn,relu,conv3x3x16p1,bn),relu,globalavg,dense10", "res(relu,res(bn))",
                         "res(conv3x3x8p1", "res()x,dense10"};
  int n = 0;
  for (const char* list : lists) save(dir / ("text-" + std::to_string(n++)), std::string(1, '\0') + list);
  save(dir / "file-lines", std::string(1, '\1') + "# a network\nconv5x5x8p2  # first\nrelu\npool2\n\ndense10\n");
  save(dir / "file-commas", std::string(1, '\1') + "conv3x3x8,relu,\npool2,dense10");
  // Line breaks next to commas and brackets: whitespace on the command line, one separator in a file.
  save(dir / "text-line-breaks", std::string(1, '\0') + "conv3x3x10p1,relu,pool2\n,dense100,relu,\r\ndense10\n");
  save(dir / "text-two-layers-one-line-break", std::string(1, '\0') + "relu\ndense10");
  save(dir / "file-comma-first", std::string(1, '\1') + "conv3x3x8p1\n,relu\n,pool2\n,dense10\n");
  save(dir / "file-block-lines", std::string(1, '\1') + "conv3x3x8p1,res(\nconv3x3x8p1,bn\n,relu\n),globalavg\ndense10\n");
  for (const char* name : {"small", "a", "scaling-8", "lenet5", "mlp"}) save(dir / (std::string("name-") + name), std::string(1, '\2') + name);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus folder>\n", argv[0]);
    return 2;
  }
  try {
    const fs::path root = argv[1];
    for (const char* target :
         {"idx", "npy", "cli", "scaling_csv", "cifar", "allreduce_csv", "parallel_scaling_csv", "model_text"}) {
      fs::remove_all(root / target);
      fs::create_directories(root / target);
    }
    const fs::path scratch = root / "scratch-file";
    idx_corpus(root / "idx", scratch);
    npy_corpus(root / "npy", scratch);
    cli_corpus(root / "cli");
    scaling_csv_corpus(root / "scaling_csv");
    cifar_corpus(root / "cifar");
    allreduce_csv_corpus(root / "allreduce_csv");
    parallel_scaling_csv_corpus(root / "parallel_scaling_csv");
    model_text_corpus(root / "model_text");
    fs::remove(scratch);
    std::printf("seed corpus written to %s/{idx,npy,cli,scaling_csv,cifar,allreduce_csv,parallel_scaling_csv,model_text}\n",
                root.string().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
