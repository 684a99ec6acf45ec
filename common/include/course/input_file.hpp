#pragma once
// Files the course reads from the user (IDX, .npy): checked before they are opened.
#include <cstdint>
#include <string>

namespace course {

// The size of the regular file at `path`. Anything else is refused before it is opened, since
// opening a FIFO for reading can wait forever: missing ("<path>: <when_missing>"), a folder
// ("<path>: is a directory, not <kind>"), a device, pipe or socket, or a size that cannot be read.
// kind: e.g. "an IDX file"; when_missing: e.g. "file not found; run data/fetch_mnist.sh".
uint64_t regular_file_size(const std::string& path, const std::string& kind, const std::string& when_missing);

}  // namespace course
