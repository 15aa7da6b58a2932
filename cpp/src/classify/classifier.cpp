#include "conjunct/scratch.h"
#include "conjunct/classify/classifier.h"

#include <algorithm>
#include <thread>

namespace conjunct {

namespace {
struct MappedScratch {
  MappedIds mapped;
};
struct MarginScratch {
  std::vector<double> m;
};
}  // namespace

void Classifier::margins(Span<int32_t> columns, double* out) const {
  MappedIds& mapped = thread_scratch<MappedScratch>().mapped;
  const size_t n = map_.apply(columns, mapped);
  margins_internal(Span<int32_t>(mapped.ids.data(), n), out);
}

int64_t Classifier::decide_internal(Span<int32_t> x, const Decision& decision, bool) const {
  std::vector<double>& m = thread_scratch<MarginScratch>().m;
  m.resize(n_outputs_);
  margins_internal(x, m.data());
  return decision.decide(m.data());
}

int64_t Classifier::predict(Span<int32_t> columns, const Decision& decision, bool early_exit) const {
  MappedIds& mapped = thread_scratch<MappedScratch>().mapped;
  const size_t n = map_.apply(columns, mapped);
  return decide_internal(Span<int32_t>(mapped.ids.data(), n), decision, early_exit);
}

int64_t Classifier::decide_allowed_internal(Span<int32_t> x, const Decision& decision, const uint8_t* allowed,
                                            bool) const {
  std::vector<double>& m = thread_scratch<MarginScratch>().m;
  m.resize(n_outputs_);
  margins_internal(x, m.data());
  return best_allowed(m.data(), decision, allowed);
}

int64_t Classifier::predict_allowed(Span<int32_t> columns, const Decision& decision, const uint8_t* allowed,
                                    bool early_exit) const {
  const int64_t only = only_allowed(decision, allowed);
  if (only != -2) return only;
  MappedIds& mapped = thread_scratch<MappedScratch>().mapped;
  const size_t n = map_.apply(columns, mapped);
  return decide_allowed_internal(Span<int32_t>(mapped.ids.data(), n), decision, allowed, early_exit);
}

namespace {

// Runs fn(begin, end) over [0, n) split into n_threads contiguous chunks.
template <class Fn>
void parallel_rows(size_t n, int n_threads, const Fn& fn) {
  const size_t threads = std::min<size_t>(n_threads > 1 ? static_cast<size_t>(n_threads) : 1, n);
  if (threads <= 1) {
    fn(size_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  const size_t chunk = (n + threads - 1) / threads;
  for (size_t t = 0; t < threads; ++t) {
    const size_t begin = t * chunk, end = std::min(n, begin + chunk);
    if (begin < end) pool.emplace_back([&fn, begin, end] { fn(begin, end); });
  }
  for (auto& th : pool) th.join();
}

}  // namespace

void Classifier::predict_batch(const CsrView& X, const Decision& decision, bool early_exit, int64_t* out,
                               int n_threads) const {
  parallel_rows(X.rows(), n_threads, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) out[i] = predict(X.row(i), decision, early_exit);
  });
}

void Classifier::margins_batch(const CsrView& X, double* out, int n_threads) const {
  parallel_rows(X.rows(), n_threads, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) margins(X.row(i), out + i * n_outputs_);
  });
}

}  // namespace conjunct
