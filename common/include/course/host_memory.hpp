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

// Refuses, before they are allocated, `count` images of `shape` ("28x28", "3x32x32") that take
// `bytes` when the host cannot hold them: course::Error "<name>: <count> images of <shape> take
// <size> to load, more than the <available> of host memory available: load fewer (...)". Nothing is
// refused when the memory available cannot be read.
void require_room_for_images(const std::string& name, uint64_t count, const std::string& shape, uint64_t bytes);

// "512 bytes", "3.8 MiB", "12.0 GiB".
std::string byte_size_text(uint64_t bytes);

}  // namespace course
