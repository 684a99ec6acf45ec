#include "course/input_file.hpp"

#include <filesystem>

#include "course/error.hpp"

namespace course {

uint64_t regular_file_size(const std::string& path, const std::string& kind, const std::string& when_missing) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) throw Error(shown(path) + ": " + when_missing);
  if (ec) throw Error(shown(path) + ": cannot be read: " + ec.message());
  if (std::filesystem::is_directory(status)) throw Error(shown(path) + ": is a directory, not " + kind);
  if (!std::filesystem::is_regular_file(status))
    throw Error(shown(path) + ": is not a regular file (a device, pipe or socket), not " + kind);
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(shown(path) + ": cannot read its size: " + ec.message());
  return static_cast<uint64_t>(size);
}

}  // namespace course
