// Lesson 11 (given): parallel_ranges, the thread split that 11.5's convolutions use.
#include <algorithm>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "course/error.hpp"
#include "fast_cpu.hpp"

namespace fast_cpu {

void parallel_ranges(int threads, int count, double flops, const std::function<void(int begin, int end)>& body) {
  if (threads < 1) throw course::Error("parallel_ranges: threads must be >= 1, got " + std::to_string(threads));
  if (count <= 0) return;
  const int by_work = std::max(1, int(std::min(flops / kMinFlopsPerThread, 1e6)));
  const int used = std::min({threads, count, by_work});
  auto begin_of = [&](int t) { return int((long long)(t) * count / used); };
  if (used == 1) {
    body(0, count);
    return;
  }
  std::vector<std::exception_ptr> errors(used);
  auto run = [&](int t) {
    try {
      body(begin_of(t), begin_of(t + 1));
    } catch (...) {
      errors[t] = std::current_exception();  // an exception must not leave its thread
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(used - 1);
  for (int t = 0; t + 1 < used; ++t) pool.emplace_back(run, t);
  run(used - 1);
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace fast_cpu
