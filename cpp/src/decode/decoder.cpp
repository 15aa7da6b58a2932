#include "conjunct/decode/decoder.h"

#include <algorithm>
#include <stdexcept>
#include <atomic>
#include <thread>

#include "conjunct/decode/beam.h"
#include "conjunct/decode/carpediem.h"
#include "conjunct/decode/staggered.h"
#include "conjunct/decode/viterbi.h"
#include "conjunct/scratch.h"

namespace conjunct {

namespace {
// decode_batch's per-thread buffers: a sentence's emission table, or the
// column scores staggered decoding reads instead.
struct BatchScratch {
  std::vector<double> E;
  ColumnScores scores;
};
}  // namespace

Method parse_method(const std::string& name) {
  if (name == "viterbi") return Method::viterbi;
  if (name == "staggered") return Method::staggered;
  if (name == "staggered-column") return Method::staggered_column;
  if (name == "carpediem") return Method::carpediem;
  if (name == "beam") return Method::beam;
  if (name == "greedy") return Method::greedy;
  throw std::invalid_argument("unknown decoder '" + name +
                              "' (choose viterbi, staggered, staggered-column, carpediem, beam or greedy)");
}

DecodeStats decode(Method method, const Lattice& lat, int32_t* path, size_t beam_width) {
  switch (method) {
    case Method::viterbi: return viterbi(lat, path);
    case Method::staggered: return staggered(lat, path, Expansion::all_columns);
    case Method::staggered_column: return staggered(lat, path, Expansion::column_wise);
    case Method::carpediem: return carpediem(lat, path);
    case Method::beam: return beam(lat, path, beam_width);
    case Method::greedy: return greedy(lat, path);
  }
  return {};
}

void decode_batch(const ChainModel& model, CsrView tokens, Span<int64_t> sent_ptr, Method method, size_t beam_width,
                  int32_t* paths, double* scores, int32_t* iterations, int n_threads) {
  const size_t n_sent = sent_ptr.size ? sent_ptr.size - 1 : 0;
  const size_t L = model.n_labels();
  const bool lazy = method == Method::staggered || method == Method::staggered_column;
  const Expansion expansion = method == Method::staggered ? Expansion::all_columns : Expansion::column_wise;
  auto work = [&](size_t first, size_t last) {
    // Staggered decoding reads the weights through ColumnScores (only the
    // scores it needs); every other decoder gets the full emission table.
    BatchScratch& scratch = thread_scratch<BatchScratch>();
    std::vector<double>& E = scratch.E;
    ColumnScores& column_scores = scratch.scores;
    const StaggeredOptions options;
    for (size_t i = first; i < last; ++i) {
      const size_t t0 = static_cast<size_t>(sent_ptr[i]), t1 = static_cast<size_t>(sent_ptr[i + 1]);
      DecodeStats st;
      if (lazy) {
        column_scores.from_model(model, tokens, t0, t1);
        st = staggered(column_scores, model.transitions, paths + t0, expansion, options);
      } else {
        if (E.size() < (t1 - t0) * L) E.resize((t1 - t0) * L);
        model.emissions(tokens, t0, t1, E.data());
        const Lattice lat{E.data(), t1 - t0, &model.transitions};
        st = decode(method, lat, paths + t0, beam_width);
      }
      scores[i] = st.score;
      iterations[i] = st.iterations;
    }
  };
  const size_t threads = std::max<size_t>(1, std::min<size_t>(n_threads > 0 ? n_threads : 1, n_sent));
  if (threads == 1) {
    work(0, n_sent);
    return;
  }
  std::vector<std::thread> pool;
  // Interleaved blocks keep long and short sentences spread over the threads.
  const size_t block = 64;
  std::atomic<size_t> next{0};
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (size_t b; (b = next.fetch_add(block)) < n_sent;) work(b, std::min(n_sent, b + block));
    });
  for (auto& th : pool) th.join();
}

}  // namespace conjunct
