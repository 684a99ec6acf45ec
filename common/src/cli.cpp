#include "course/cli.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "course/error.hpp"
#include "course/number_text.hpp"

namespace course {

ArgParser::ArgParser(std::string program, std::string description)
    : program_(std::move(program)), description_(std::move(description)) {}

namespace {

// A whole decimal number, optionally signed, that fits a long long: "12", "+7", "-0", "007";
// not "12abc", " 12", "0x10", "1e3" or "" (strtoll alone would take the first two).
bool parse_integer(const std::string& text, long long& value) {
  const size_t first_digit = !text.empty() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  if (text.size() == first_digit || text.find_first_not_of("0123456789", first_digit) != std::string::npos)
    return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && *end == '\0';
}

// A decimal or hexadecimal floating-point number with nothing around it. A value too small to
// be a normal double is still that value; one too large for a double is refused.
bool parse_real(const std::string& text, double& value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtod(text.c_str(), &end);
  if (*end != '\0') return false;
  return errno == 0 || (errno == ERANGE && std::fabs(value) != HUGE_VAL);
}

std::string integer_range(long long min, long long max) {
  return "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

// Edit distance with transpositions (optimal string alignment): the fewest single-character
// insertions, deletions, substitutions and swaps of neighbours that turn a into b
// ("--epoch" -> "--epochs" and "--hlep" -> "--help" are both 1).
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}
}  // namespace

void ArgParser::add_flag(const std::string& name, const std::string& help) {
  order_.push_back(name);
  Option o{};
  o.kind = Kind::flag, o.help = help, o.value = "0";
  o.default_value = o.value;
  options_[name] = o;
}
void ArgParser::add_int(const std::string& name, long long def, long long min, long long max, const std::string& help) {
  order_.push_back(name);
  Option o{};
  o.kind = Kind::integer, o.help = help, o.value = std::to_string(def);
  o.int_value = def;
  o.int_min = min, o.int_max = max;
  o.default_value = o.value;
  options_[name] = o;
}
void ArgParser::add_float(const std::string& name, double def, double min, double max, const std::string& help) {
  order_.push_back(name);
  Option o{};
  o.kind = Kind::real, o.help = help, o.value = shortest_text(def);
  o.real_value = def;
  o.min = min, o.max = max;
  o.default_value = o.value;
  options_[name] = o;
}
void ArgParser::add_string(const std::string& name, const std::string& def, const std::string& help) {
  order_.push_back(name);
  Option o{};
  o.kind = Kind::text, o.help = help, o.value = def;
  o.default_value = o.value;
  options_[name] = o;
}
void ArgParser::add_choice(const std::string& name, const std::string& def, std::vector<std::string> choices,
                           const std::string& help) {
  order_.push_back(name);
  Option o{};
  o.kind = Kind::choice, o.help = help, o.value = def;
  o.choices = std::move(choices);
  o.default_value = o.value;
  options_[name] = o;
}

void ArgParser::set(const std::string& name, Option& opt, const std::string& text) {
  switch (opt.kind) {
    case Kind::flag:
      break;
    case Kind::integer: {
      // Parsed and compared as integers: a double would round 2^62 + 1 to 2^62 and let it pass.
      long long v = 0;
      if (!parse_integer(text, v) || v < opt.int_min || v > opt.int_max)
        throw Error(name + " must be an integer in " + integer_range(opt.int_min, opt.int_max) + ", got '" + shown(text) +
                    "'");
      opt.int_value = v;
      break;
    }
    case Kind::real: {
      double v = 0;
      if (!parse_real(text, v) || !(v >= opt.min && v <= opt.max))
        throw Error(name + " must be a number in [" + shortest_text(opt.min) + ", " + shortest_text(opt.max) +
                    "], got '" + shown(text) + "'");
      opt.real_value = v;
      break;
    }
    case Kind::text:
      if (text.empty()) throw Error(name + " needs a value");
      break;
    case Kind::choice: {
      bool ok = false;
      std::string allowed;
      for (const auto& c : opt.choices) {
        ok = ok || c == text;
        allowed += (allowed.empty() ? "" : "|") + c;
      }
      if (!ok) throw Error(name + " must be one of " + allowed + ", got '" + shown(text) + "'");
      break;
    }
  }
  opt.value = opt.kind == Kind::flag ? "1" : text;
  opt.given = true;
}

bool ArgParser::parse(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", help().c_str());
      return false;
    }
    std::string value;
    bool has_value = false;
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
      if (arg == "--help") throw Error("--help takes no value");
    }
    auto it = options_.find(arg);
    if (it == options_.end()) throw Error(unknown_flag_message(arg));
    Option& opt = it->second;
    if (opt.kind == Kind::flag) {
      if (has_value) throw Error(arg + " takes no value");
      set(arg, opt, "1");
      continue;
    }
    if (!has_value) {
      if (i + 1 >= argc) throw Error(arg + " needs a value (see " + program_ + " --help)");
      value = argv[++i];
    }
    set(arg, opt, value);
  }
  return true;
}

// One line for an argument that is no known flag: the closest flag by edit distance when it
// is close enough to be a typo (or the only flag the argument starts), else a pointer to --help.
std::string ArgParser::unknown_flag_message(const std::string& arg) const {
  const std::string see_help = " (see " + program_ + " --help)";
  if (arg.rfind("-", 0) != 0) return "unexpected argument '" + shown(arg) + "': every option is a --flag" + see_help;
  std::vector<std::string> names = order_;
  names.push_back("--help");
  std::string best;
  size_t best_distance = std::string::npos;
  for (const std::string& name : names) {
    const size_t d = edit_distance(arg, name);
    if (d < best_distance) best = name, best_distance = d;  // ties: the first declared wins
  }
  // A typo changes a few characters: allow one edit per 4 letters of the flag, at least one.
  const size_t letters = best.size() > 2 ? best.size() - 2 : 0;
  bool close = best_distance <= std::max<size_t>(1, letters / 4);
  if (!close && arg.size() > 3) {  // "--opt" for "--optimizer": a unique prefix is close too
    std::string only;
    int matches = 0;
    for (const std::string& name : names)
      if (name.rfind(arg, 0) == 0) only = name, ++matches;
    if (matches == 1) best = only, close = true;
  }
  if (close) return "unknown flag " + shown(arg) + " (did you mean " + best + "?)";
  return "unknown flag " + shown(arg) + see_help;
}

const ArgParser::Option& ArgParser::find(const std::string& name, Kind kind) const {
  auto it = options_.find(name);
  if (it == options_.end()) throw Error("ArgParser: no option " + name);
  const bool text_like = kind == Kind::text && it->second.kind == Kind::choice;
  if (it->second.kind != kind && !text_like) throw Error("ArgParser: " + name + " read as the wrong type");
  return it->second;
}

bool ArgParser::flag(const std::string& name) const { return find(name, Kind::flag).value == "1"; }
long long ArgParser::get_int(const std::string& name) const { return find(name, Kind::integer).int_value; }
double ArgParser::get_float(const std::string& name) const { return find(name, Kind::real).real_value; }
const std::string& ArgParser::get_string(const std::string& name) const { return find(name, Kind::text).value; }
bool ArgParser::given(const std::string& name) const {
  auto it = options_.find(name);
  return it != options_.end() && it->second.given;
}

std::string ArgParser::help() const {
  std::ostringstream s;
  s << "usage: " << program_ << " [options]\n" << description_ << "\n\noptions:\n";
  for (const auto& name : order_) {
    const Option& o = options_.at(name);
    std::string left = "  " + name;
    switch (o.kind) {
      case Kind::flag: break;
      case Kind::integer: left += " N"; break;
      case Kind::real: left += " X"; break;
      case Kind::text: left += " TEXT"; break;
      case Kind::choice: {
        std::string c;
        for (const auto& x : o.choices) c += (c.empty() ? "" : "|") + x;
        left += " " + c;
        break;
      }
    }
    if (left.size() < 26) left.resize(26, ' ');
    else left += "\n" + std::string(26, ' ');
    s << left << o.help;
    if (o.kind == Kind::integer)
      s << " " << integer_range(o.int_min, o.int_max) << ", default " << o.default_value;
    else if (o.kind == Kind::real)
      s << " [" << shortest_text(o.min) << ", " << shortest_text(o.max) << "], default " << o.default_value;
    else if (o.kind != Kind::flag && !o.default_value.empty())
      s << " (default " << o.default_value << ")";
    s << "\n";
  }
  s << "  --help                  this text\n";
  return s.str();
}

}  // namespace course
