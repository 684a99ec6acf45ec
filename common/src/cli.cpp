#include "course/cli.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "course/error.hpp"

namespace course {

ArgParser::ArgParser(std::string program, std::string description)
    : program_(std::move(program)), description_(std::move(description)) {}

namespace {
std::string number_text(double v) {
  // Whole numbers in full ("10000000", not "1e+07"): integer ranges print exactly.
  if (v > -1e15 && v < 1e15 && v == std::floor(v))
    return std::to_string(static_cast<long long>(v));
  // Otherwise the shortest text that reads back as exactly v: a default of 0.0123456789
  // must not turn into 0.0123457 when the program reads it.
  std::string text;
  for (int digits = 6; digits <= 17; ++digits) {
    std::ostringstream s;
    s << std::setprecision(digits) << v;
    text = s.str();
    if (std::strtod(text.c_str(), nullptr) == v) break;
  }
  return text;
}
}  // namespace

void ArgParser::add_flag(const std::string& name, const std::string& help) {
  order_.push_back(name);
  Option o{};
  o.kind = Kind::flag, o.help = help, o.value = "0";
  options_[name] = o;
}
void ArgParser::add_int(const std::string& name, long long def, long long min, long long max, const std::string& help) {
  order_.push_back(name);
  Option o{};
  o.kind = Kind::integer, o.help = help, o.value = std::to_string(def);
  o.min = static_cast<double>(min), o.max = static_cast<double>(max);
  options_[name] = o;
}
void ArgParser::add_float(const std::string& name, double def, double min, double max, const std::string& help) {
  order_.push_back(name);
  Option o{};
  o.kind = Kind::real, o.help = help, o.value = number_text(def);
  o.min = min, o.max = max;
  options_[name] = o;
}
void ArgParser::add_string(const std::string& name, const std::string& def, const std::string& help) {
  order_.push_back(name);
  Option o{};
  o.kind = Kind::text, o.help = help, o.value = def;
  options_[name] = o;
}
void ArgParser::add_choice(const std::string& name, const std::string& def, std::vector<std::string> choices,
                           const std::string& help) {
  order_.push_back(name);
  Option o{};
  o.kind = Kind::choice, o.help = help, o.value = def;
  o.choices = std::move(choices);
  options_[name] = o;
}

void ArgParser::set(const std::string& name, Option& opt, const std::string& text) {
  switch (opt.kind) {
    case Kind::flag:
      break;
    case Kind::integer: {
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end || errno || v < opt.min || v > opt.max)
        throw Error(name + " must be an integer in [" + number_text(opt.min) + ", " + number_text(opt.max) +
                    "], got '" + text + "'");
      break;
    }
    case Kind::real: {
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end || errno || !(v >= opt.min && v <= opt.max))
        throw Error(name + " must be a number in [" + number_text(opt.min) + ", " + number_text(opt.max) +
                    "], got '" + text + "'");
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
      if (!ok) throw Error(name + " must be one of " + allowed + ", got '" + text + "'");
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
    }
    auto it = options_.find(arg);
    if (it == options_.end()) throw Error("unknown option '" + arg + "' (see " + program_ + " --help)");
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

const ArgParser::Option& ArgParser::find(const std::string& name, Kind kind) const {
  auto it = options_.find(name);
  if (it == options_.end()) throw Error("ArgParser: no option " + name);
  const bool text_like = kind == Kind::text && it->second.kind == Kind::choice;
  if (it->second.kind != kind && !text_like) throw Error("ArgParser: " + name + " read as the wrong type");
  return it->second;
}

bool ArgParser::flag(const std::string& name) const { return find(name, Kind::flag).value == "1"; }
long long ArgParser::get_int(const std::string& name) const { return std::stoll(find(name, Kind::integer).value); }
double ArgParser::get_float(const std::string& name) const { return std::stod(find(name, Kind::real).value); }
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
    if (o.kind == Kind::integer || o.kind == Kind::real)
      s << " [" << number_text(o.min) << ", " << number_text(o.max) << "], default " << o.value;
    else if (o.kind != Kind::flag && !o.value.empty())
      s << " (default " << o.value << ")";
    s << "\n";
  }
  s << "  --help                  this text\n";
  return s.str();
}

}  // namespace course
