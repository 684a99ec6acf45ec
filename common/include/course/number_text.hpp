#pragma once
// Numbers as a person reads them and a program reads them back: the shortest text that parses to
// exactly the same value. One formatter for every --help default, flag range and bound message.
#include <string>

namespace course {

// As a double: whole numbers in full ("10000000", not "1e+07"), else the fewest significant digits
// (6 to 17) whose text reads back as exactly v (a default of 0.0123456789 stays that).
std::string shortest_text(double v);
// As a float: the fewest significant digits (1 to 9) whose text reads back as this float (0.02f
// prints "0.02", not "0.0199999996").
std::string shortest_text(float v);

}  // namespace course
