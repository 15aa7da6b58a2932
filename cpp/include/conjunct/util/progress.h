// A coarse progress and interrupt hook for long loops (kernel expansion, fstrie
// building). tick() is a counter increment; every 4,096 ticks it reads the
// clock, and at most every `interval` seconds it calls report(done), which
// returns false to stop (tick then throws Interrupted). The bindings' report
// takes the GIL, checks for Ctrl-C and moves a progress bar; C++ callers may
// pass none.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <utility>

namespace conjunct {

struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

class Progress {
 public:
  using Report = std::function<bool(int64_t done)>;

  Progress() = default;
  explicit Progress(Report report, double interval_seconds = 0.1)
      : report_(std::move(report)),
        interval_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_seconds))),
        last_(Clock::now()) {}

  void tick(int64_t n = 1) {
    done_ += n;
    if (!report_ || ++since_check_ < kCheckEvery) return;
    since_check_ = 0;
    const auto now = Clock::now();
    if (now - last_ < interval_) return;
    last_ = now;
    if (!report_(done_)) throw Interrupted();
  }

  int64_t done() const { return done_; }

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr int64_t kCheckEvery = 4096;
  Report report_;
  Clock::duration interval_{};
  Clock::time_point last_{};
  int64_t done_ = 0;
  int64_t since_check_ = 0;
};

// The Progress of the long call running on this thread, or null: the bindings
// set it around a call (ProgressScope), and the loops deep inside it
// (kernel expansion, fstrie building) tick it without it being passed down.
inline Progress*& current_progress() {
  thread_local Progress* current = nullptr;
  return current;
}

class ProgressScope {
 public:
  explicit ProgressScope(Progress* p) : previous_(current_progress()) { current_progress() = p; }
  ~ProgressScope() { current_progress() = previous_; }
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

 private:
  Progress* previous_;
};

}  // namespace conjunct
