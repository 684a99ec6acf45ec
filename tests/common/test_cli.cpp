// ArgParser: defaults, both value spellings, and a clear one-line error for every bad input.
#include "course/cli.hpp"

#include <limits>

#include "course_test.hpp"
#include "test_files.hpp"

using course::ArgParser;
using course::test::contains;
using course::test::error_message;

namespace {
ArgParser make_parser() {
  ArgParser p("lesson02_train", "Trains a small CNN.");
  p.add_flag("--quick", "small sizes, few repeats");
  p.add_int("--epochs", 3, 1, 1000, "passes over the data");
  p.add_int("--examples", 60000, 1, 10000000, "training examples");
  p.add_float("--lr", 0.0123456789, 0.0, 1.0, "learning rate");
  p.add_string("--out", "out/run", "output folder");
  p.add_choice("--optimizer", "sgd", {"sgd", "momentum", "adam"}, "update rule");
  return p;
}

// Parses the arguments (program name added); returns parse()'s result.
bool parse(ArgParser& p, std::vector<std::string> args) {
  args.insert(args.begin(), "lesson02_train");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return p.parse(static_cast<int>(argv.size()), argv.data());
}

std::string parse_error(std::vector<std::string> args) {
  ArgParser p = make_parser();
  return error_message([&] { parse(p, std::move(args)); });
}
}  // namespace

TEST_CASE("without arguments every option has its default and is not 'given'", "[cli]") {
  ArgParser p = make_parser();
  REQUIRE(parse(p, {}));
  CHECK_FALSE(p.flag("--quick"));
  CHECK(p.get_int("--epochs") == 3);
  CHECK(p.get_int("--examples") == 60000);
  CHECK(p.get_float("--lr") == 0.0123456789);  // exactly: the default is not rounded to 6 digits
  CHECK(p.get_string("--out") == "out/run");
  CHECK(p.get_string("--optimizer") == "sgd");
  for (const char* name : {"--quick", "--epochs", "--lr", "--out", "--optimizer"}) CHECK_FALSE(p.given(name));
}

TEST_CASE("values are taken as --x=3 and as --x 3", "[cli]") {
  ArgParser p = make_parser();
  REQUIRE(parse(p, {"--epochs=7", "--lr", "0.5", "--quick", "--optimizer", "adam", "--out=/tmp/a=b"}));
  CHECK(p.get_int("--epochs") == 7);
  CHECK(p.get_float("--lr") == 0.5);
  CHECK(p.flag("--quick"));
  CHECK(p.get_string("--optimizer") == "adam");
  CHECK(p.get_string("--out") == "/tmp/a=b");  // only the first '=' splits
  CHECK(p.given("--epochs"));
  CHECK(p.given("--quick"));
  CHECK_FALSE(p.given("--examples"));
  CHECK_FALSE(p.given("--no-such-option"));

  ArgParser q = make_parser();
  REQUIRE(parse(q, {"--epochs", "1", "--epochs", "1000", "--lr=0", "--lr=1e-3"}));  // the last wins
  CHECK(q.get_int("--epochs") == 1000);  // the limits are allowed
  CHECK(q.get_float("--lr") == 1e-3);
}

TEST_CASE("an integer out of range or not an integer names the flag, the range and the value", "[cli]") {
  CHECK(parse_error({"--epochs=0"}) == "--epochs must be an integer in [1, 1000], got '0'");
  CHECK(parse_error({"--epochs", "1001"}) == "--epochs must be an integer in [1, 1000], got '1001'");
  CHECK(parse_error({"--epochs=2.5"}) == "--epochs must be an integer in [1, 1000], got '2.5'");
  CHECK(parse_error({"--epochs=ten"}) == "--epochs must be an integer in [1, 1000], got 'ten'");
  CHECK(parse_error({"--epochs="}) == "--epochs must be an integer in [1, 1000], got ''");
  CHECK(contains(parse_error({"--epochs=99999999999999999999"}), "--epochs must be an integer"));
  // Large limits print in full, not as 1e+07.
  CHECK(parse_error({"--examples=0"}) == "--examples must be an integer in [1, 10000000], got '0'");
}

TEST_CASE("a number out of range or not a number names the flag, the range and the value", "[cli]") {
  CHECK(parse_error({"--lr=2"}) == "--lr must be a number in [0, 1], got '2'");
  CHECK(parse_error({"--lr", "-0.1"}) == "--lr must be a number in [0, 1], got '-0.1'");
  CHECK(parse_error({"--lr=nan"}) == "--lr must be a number in [0, 1], got 'nan'");
  CHECK(parse_error({"--lr=0.1x"}) == "--lr must be a number in [0, 1], got '0.1x'");
}

TEST_CASE("a bad choice lists the allowed values", "[cli]") {
  CHECK(parse_error({"--optimizer=rmsprop"}) == "--optimizer must be one of sgd|momentum|adam, got 'rmsprop'");
  CHECK(parse_error({"--optimizer", "SGD"}) == "--optimizer must be one of sgd|momentum|adam, got 'SGD'");
}

TEST_CASE("unknown options, missing values and values on flags are errors", "[cli]") {
  CHECK(parse_error({"--epoch=3"}) == "unknown flag --epoch (did you mean --epochs?)");
  CHECK(parse_error({"data.idx"}) ==
        "unexpected argument 'data.idx': every option is a --flag (see lesson02_train --help)");
  CHECK(parse_error({"--quick", "--epochs"}) == "--epochs needs a value (see lesson02_train --help)");
  CHECK(parse_error({"--quick=1"}) == "--quick takes no value");
  CHECK(parse_error({"--out="}) == "--out needs a value");
}

TEST_CASE("an unknown flag suggests the closest known flag when it looks like a typo", "[cli]") {
  // One edit away: a letter missing, one too many, two swapped, one wrong.
  CHECK(parse_error({"--epoch", "2"}) == "unknown flag --epoch (did you mean --epochs?)");
  CHECK(parse_error({"--epochss=2"}) == "unknown flag --epochss (did you mean --epochs?)");
  CHECK(parse_error({"--exampels", "5"}) == "unknown flag --exampels (did you mean --examples?)");
  CHECK(parse_error({"--optimiser=adam"}) == "unknown flag --optimiser (did you mean --optimizer?)");
  CHECK(parse_error({"-lr", "0.1"}) == "unknown flag -lr (did you mean --lr?)");   // one dash
  CHECK(parse_error({"--Quick"}) == "unknown flag --Quick (did you mean --quick?)");  // case counts as an edit
  CHECK(parse_error({"--hlep"}) == "unknown flag --hlep (did you mean --help?)");    // --help is a flag too
  // A unique beginning of a flag names it, however many letters are missing.
  CHECK(parse_error({"--optim", "sgd"}) == "unknown flag --optim (did you mean --optimizer?)");
  // Nothing close: no guess, a pointer to --help instead. Still one line.
  const std::string far = parse_error({"--batch-size", "64"});
  CHECK(far == "unknown flag --batch-size (see lesson02_train --help)");
  CHECK(far.find('\n') == std::string::npos);
  CHECK(parse_error({"--e"}) == "unknown flag --e (see lesson02_train --help)");  // --epochs or --examples?
}

TEST_CASE("integer ranges print as integers, however large, and are checked exactly", "[cli]") {
  ArgParser p("train", "Trains.");
  p.add_int("--seed", 1, 0, 1LL << 62, "seed");
  p.add_int("--offset", 0, -(1LL << 62), 5, "offset");
  auto error_for = [&](const std::string& arg) {
    return error_message([&] { parse(p, {arg}); });
  };
  // 2^62 = 4611686018427387904; as a double it would print as 4.611686018427388e+18.
  CHECK(error_for("--seed=-1") == "--seed must be an integer in [0, 4611686018427387904], got '-1'");
  CHECK(error_for("--seed=4611686018427387905") ==
        "--seed must be an integer in [0, 4611686018427387904], got '4611686018427387905'");
  CHECK(error_for("--offset=6") == "--offset must be an integer in [-4611686018427387904, 5], got '6'");
  // The limits themselves are allowed and read back exactly (a double would round 2^62 - 1 up).
  REQUIRE(parse(p, {"--seed=4611686018427387904", "--offset=-4611686018427387904"}));
  CHECK(p.get_int("--seed") == (1LL << 62));
  CHECK(p.get_int("--offset") == -(1LL << 62));
  REQUIRE(parse(p, {"--seed=4611686018427387903"}));
  CHECK(p.get_int("--seed") == (1LL << 62) - 1);
  const std::string help = p.help();
  INFO(help);
  CHECK(contains(help, "seed [0, 4611686018427387904], default 1"));
  CHECK_FALSE(contains(help, "e+18"));
}

TEST_CASE("integers are whole decimal numbers within the range, however they are written", "[cli]") {
  ArgParser p("train", "Trains.");
  p.add_int("--seed", 1, 0, 1LL << 62, "seed");
  p.add_int("--offset", 0, std::numeric_limits<long long>::min(), std::numeric_limits<long long>::max(), "offset");
  auto error_for = [&](std::vector<std::string> args) {
    return error_message([&] { parse(p, std::move(args)); });
  };
  const std::string seed_range = "--seed must be an integer in [0, 4611686018427387904], got ";
  // Above the maximum, in both spellings, and beyond what a long long holds.
  CHECK(error_for({"--seed", "4611686018427387905"}) == seed_range + "'4611686018427387905'");
  CHECK(error_for({"--seed=9223372036854775808"}) == seed_range + "'9223372036854775808'");
  CHECK(error_for({"--seed", "99999999999999999999999999"}) == seed_range + "'99999999999999999999999999'");
  CHECK(error_for({"--seed=-9223372036854775809"}) == seed_range + "'-9223372036854775809'");
  CHECK(contains(error_for({"--offset=9223372036854775808"}), "got '9223372036854775808'"));
  CHECK(contains(error_for({"--offset=-9223372036854775809"}), "got '-9223372036854775809'"));
  // Not a decimal integer: suffixes, spaces, other bases and notations, nothing at all.
  for (const char* bad : {"12abc", "12 ", " 12", "0x10", "1e3", "12.0", "+", "-", "--1", "", " "}) {
    CAPTURE(bad);
    CHECK(error_for({std::string("--seed=") + bad}) == seed_range + "'" + bad + "'");
    CHECK(error_for({"--seed", bad}) == seed_range + "'" + bad + "'");
  }
  // A sign and leading zeros are fine; the value is what counts.
  REQUIRE(parse(p, {"--seed=-0", "--offset=+7"}));
  CHECK(p.get_int("--seed") == 0);
  CHECK(p.get_int("--offset") == 7);
  REQUIRE(parse(p, {"--seed", "007", "--offset=-9223372036854775808"}));
  CHECK(p.get_int("--seed") == 7);
  CHECK(p.get_int("--offset") == std::numeric_limits<long long>::min());
}

TEST_CASE("numbers: no spaces, no overflow; a tiny value in range is kept", "[cli]") {
  CHECK(parse_error({"--lr= 0.5"}) == "--lr must be a number in [0, 1], got ' 0.5'");
  CHECK(parse_error({"--lr", "0.5 "}) == "--lr must be a number in [0, 1], got '0.5 '");
  CHECK(parse_error({"--lr=1e999"}) == "--lr must be a number in [0, 1], got '1e999'");
  CHECK(parse_error({"--lr=-1e999"}) == "--lr must be a number in [0, 1], got '-1e999'");
  CHECK(parse_error({"--lr=inf"}) == "--lr must be a number in [0, 1], got 'inf'");
  ArgParser p = make_parser();
  REQUIRE(parse(p, {"--lr=1e-320"}));  // below DBL_MIN but a number in [0, 1]
  CHECK(p.get_float("--lr") > 0.0);
  CHECK(p.get_float("--lr") < 1e-300);
}

TEST_CASE("control characters in an argument are shown escaped: the error stays one line", "[cli]") {
  CHECK(parse_error({"--o\nx"}) == "unknown flag --o\\nx (see lesson02_train --help)");
  CHECK(parse_error({"--epochs=1\n2"}) == "--epochs must be an integer in [1, 1000], got '1\\n2'");
  CHECK(parse_error({"--lr", "0.5\r"}) == "--lr must be a number in [0, 1], got '0.5\\r'");
  CHECK(parse_error({"--optimizer=sgd\t\x1b[31m"}) ==
        "--optimizer must be one of sgd|momentum|adam, got 'sgd\\t\\x1b[31m'");
  CHECK(parse_error({"data\n.idx"}) ==
        "unexpected argument 'data\\n.idx': every option is a --flag (see lesson02_train --help)");
  // Text that is not ASCII (a UTF-8 file name) is shown as it is.
  CHECK(parse_error({"--optimizer=\xc3\xa9"}) == "--optimizer must be one of sgd|momentum|adam, got '\xc3\xa9'");
}

TEST_CASE("--help with a value is refused like any flag's value", "[cli]") {
  CHECK(parse_error({"--help=1"}) == "--help takes no value");
  CHECK(parse_error({"--help="}) == "--help takes no value");
}

TEST_CASE("--help and -h print the help and return false", "[cli]") {
  for (const char* h : {"--help", "-h"}) {
    ArgParser p = make_parser();
    CHECK_FALSE(parse(p, {"--epochs=2", h, "--bad-option-after-help"}));
  }
  const std::string help = make_parser().help();
  INFO(help);
  CHECK(contains(help, "usage: lesson02_train [options]"));
  CHECK(contains(help, "Trains a small CNN."));
  CHECK(contains(help, "--epochs N"));
  CHECK(contains(help, "passes over the data [1, 1000], default 3"));
  CHECK(contains(help, "--optimizer sgd|momentum|adam"));
  CHECK(contains(help, "(default sgd)"));
  CHECK(contains(help, "--quick"));
  CHECK(contains(help, "--help"));
}

TEST_CASE("reading an option that does not exist, or as the wrong type, is a programming error", "[cli]") {
  const ArgParser p = make_parser();
  CHECK(contains(error_message([&] { p.get_int("--nope"); }), "no option --nope"));
  CHECK(contains(error_message([&] { p.get_int("--lr"); }), "--lr read as the wrong type"));
  CHECK(contains(error_message([&] { p.flag("--epochs"); }), "wrong type"));
  CHECK(contains(error_message([&] { p.get_float("--optimizer"); }), "wrong type"));
}
