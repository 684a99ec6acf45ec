#pragma once
// A small command-line parser for the lesson programs. Bad input throws
// course::Error naming the flag and what is allowed, e.g.
//   "--epochs must be an integer in [1, 1000], got '0'"
//   "unknown flag --epoch (did you mean --epochs?)".
#include <map>
#include <string>
#include <vector>

namespace course {

class ArgParser {
 public:
  ArgParser(std::string program, std::string description);

  void add_flag(const std::string& name, const std::string& help);
  void add_int(const std::string& name, long long def, long long min, long long max,
               const std::string& help);
  void add_float(const std::string& name, double def, double min, double max, const std::string& help);
  void add_string(const std::string& name, const std::string& def, const std::string& help);
  void add_choice(const std::string& name, const std::string& def, std::vector<std::string> choices,
                  const std::string& help);

  // Parses argv. Returns false when --help/-h was given (help is printed; exit 0).
  bool parse(int argc, char** argv);

  bool flag(const std::string& name) const;
  long long get_int(const std::string& name) const;
  double get_float(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;  // strings and choices
  bool given(const std::string& name) const;  // set on the command line (not the default)

  std::string help() const;

 private:
  enum class Kind { flag, integer, real, text, choice };
  struct Option {
    Kind kind;
    std::string help, value;
    std::string default_value;               // what help() shows, also after parse()
    double min = 0, max = 0;                 // range of a real
    long long int_min = 0, int_max = 0;      // range of an integer, exact (not rounded to double)
    long long int_value = 0;                 // the parsed value of an integer (value is its text)
    double real_value = 0;                   // the parsed value of a real
    std::vector<std::string> choices;
    bool given = false;
  };
  const Option& find(const std::string& name, Kind kind) const;
  void set(const std::string& name, Option& opt, const std::string& text);
  std::string unknown_flag_message(const std::string& arg) const;
  std::string program_, description_;
  std::vector<std::string> order_;
  std::map<std::string, Option> options_;
};

}  // namespace course
