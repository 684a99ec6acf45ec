#pragma once
// The host memory a program may still take, and sizes as a message shows them: what a loader
// checks before a large allocation, and what "out of host memory" reports.
#include <cstdint>
#include <string>

namespace course {

// MemAvailable of /proc/meminfo (the memory the machine can give without swapping), else all of
// its memory; 0 when neither can be read.
uint64_t memory_available();

// memory_available(), capped by the address-space limit (ulimit -v) when one is set; 0 when neither
// can be read (then nothing is refused on its account).
uint64_t host_memory_available();

// "512 bytes", "3.8 MiB", "12.0 GiB".
std::string byte_size_text(uint64_t bytes);

}  // namespace course
