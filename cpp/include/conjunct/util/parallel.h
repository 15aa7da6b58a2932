// Running a call's parts on threads, shared by the classifiers' load-time sums
// and the Japanese pipeline's batches.
#pragma once
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace conjunct {

// body(0) .. body(parts - 1): part 0 on the calling thread, the others on
// threads of their own (on this one when no thread can be had). Every part
// finishes before the first error in part order is rethrown, so a failure
// reads as the one a serial pass would meet first.
template <class Body>
void run_parts(size_t parts, Body&& body) {
  std::vector<std::exception_ptr> error(parts);
  auto run = [&](size_t t) {
    try {
      body(t);
    } catch (...) {
      error[t] = std::current_exception();
    }
  };
  {
    std::vector<std::thread> threads;
    try {
      for (size_t t = 1; t < parts; ++t) threads.emplace_back(run, t);
    } catch (...) {
      for (size_t t = threads.size() + 1; t < parts; ++t) run(t);
    }
    if (parts > 0) run(0);
    for (std::thread& th : threads) th.join();
  }
  for (const std::exception_ptr& e : error)
    if (e) std::rethrow_exception(e);
}

}  // namespace conjunct
