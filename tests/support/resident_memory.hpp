#pragma once
// What a test measures a memory estimate against: this process's resident memory and its peak, from
// /proc/self (Linux). A test resets the peak, runs what the estimate is about, and reads the peak.
#include <malloc.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

namespace course::test {

// A field of /proc/self/status in bytes ("VmRSS:", "VmHWM:"), 0 when it cannot be read.
inline uint64_t status_bytes(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(field, 0) == 0) return std::stoull(line.substr(std::strlen(field))) * 1024;
  return 0;
}

// Starts a new peak (VmHWM becomes VmRSS), and makes every large buffer a mapping of its own that is
// given back when freed, so that a measurement starts from the same resident size as the last one
// ended, not from pages an earlier one left to the allocator. False where the peak cannot be reset.
inline bool start_peak() {
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return bool(out);
}

}  // namespace course::test
