#pragma once
// CSV files the course writes and reads back (lesson 11's scaling study, lesson 13's all-reduce
// sweep): quoting a field, splitting a line, strict numbers, and reading a whole file row by row
// with every error naming the file and the line.
#include <functional>
#include <string>
#include <vector>

namespace course {

// A field as written: quoted ("a ""b""") only when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& text);
// The fields of one line (quoted fields unquoted). Throws course::Error("a quoted field is not
// closed"); the caller adds the file and line.
std::vector<std::string> split_csv_line(const std::string& line);
// A whole decimal integer in [min, max]: "12"; not "12.0", "1e3", " 12" or "". Else a course::Error
// naming `column` and the range.
long parse_csv_integer(const std::string& text, const std::string& column, long min, long max);
// A finite decimal number in [min, max] (min itself refused when min_excluded), nothing around it.
double parse_csv_number(const std::string& text, const std::string& column, double min, double max,
                        bool min_excluded);

// Every row of `text` after its header line, as fields, to `row` (with its 1-based line number).
// The first line must be `header` exactly ("<path>:1: not <what>: the first line must be ..."); empty
// lines are skipped; a trailing '\r' (Windows line ends) is dropped; a row with another number of
// fields than the header is refused. Any course::Error from `row` comes out as "<path>:<line>: ...".
// An empty text is "<path>: the file is empty (no header line)"; a NUL byte anywhere in it is
// "<path>:<line>: a NUL byte at character <n>: not a text file ..." (a number's parser would stop there).
void for_each_csv_row(const std::string& text, const std::string& path, const std::string& header,
                      const std::string& what,
                      const std::function<void(const std::vector<std::string>& fields, int line)>& row);

// The whole regular file at `path` (course::regular_file_size's checks first: kind and when_missing
// as there); a file that cannot be opened or read to its end, or that holds a NUL byte (it is not
// text), is a course::Error naming it (and the line of the NUL byte).
std::string read_text_file(const std::string& path, const std::string& kind, const std::string& when_missing);

}  // namespace course
