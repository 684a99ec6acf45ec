#include "course/host_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "course/error.hpp"

namespace course {

uint64_t memory_available() {
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kib = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, f)) found = std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    std::fclose(f);
    if (found) return uint64_t(kib) * 1024;
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

uint64_t host_memory_available() {
  uint64_t available = memory_available();
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    available = available == 0 ? uint64_t(limit.rlim_cur) : std::min(available, uint64_t(limit.rlim_cur));
  return available;
}

void require_room_for_images(const std::string& name, uint64_t count, const std::string& shape, uint64_t bytes) {
  const uint64_t available = host_memory_available();
  if (available != 0 && bytes > available)
    throw Error(name + ": " + std::to_string(count) + " images of " + shape + " take " + byte_size_text(bytes) +
                " to load, more than the " + byte_size_text(available) +
                " of host memory available: load fewer (a limit such as --train-limit)");
}

std::string byte_size_text(uint64_t bytes) {
  char text[48];
  const double b = static_cast<double>(bytes);
  if (bytes < 1024 * 1024)
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  else if (b < 1024.0 * 1024.0 * 1024.0)
    std::snprintf(text, sizeof text, "%.1f MiB", b / (1024.0 * 1024.0));
  else
    std::snprintf(text, sizeof text, "%.1f GiB", b / (1024.0 * 1024.0 * 1024.0));
  return text;
}

}  // namespace course
