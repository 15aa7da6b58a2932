// Exactness of the decoders on random instances, through the public headers
// only: staggered decoding (every column expanded, and column-wise), from
// full emission tables and from feature ids with lazy bounded scores (label
// groups of several sizes) or full rows, and CarpeDiem, must return a path
// whose score equals Viterbi's best; every returned score must be the
// returned path's score under the emission table. Returns non-zero and names
// each failing case.
//
//   g++ -std=c++17 -O2 -Icpp/include cpp/tests/test_decoders.cpp cpp/src/*.cpp -lpthread && ./a.out
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "conjunct/decode/carpediem.h"
#include "conjunct/decode/chain.h"
#include "conjunct/decode/decoder.h"
#include "conjunct/decode/staggered.h"
#include "conjunct/decode/viterbi.h"

using namespace conjunct;

namespace {

int failures = 0;
int checks = 0;

void fail(const std::string& what) {
  if (++failures <= 20) std::printf("FAILED: %s\n", what.c_str());
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

// A random linear-chain model: sparse weight rows (labels strictly
// increasing) of every length, a base feature weighing every label, labels
// whose scores fall with their rank (as frequency-ranked labels do), integer
// values when `ties` (many exactly equal scores).
struct RandomModel {
  std::vector<int64_t> indptr{0};
  std::vector<int32_t> labels;
  std::vector<double> values, trans, start, end;
  ChainModel model;

  RandomModel(std::mt19937& rng, size_t L, size_t F, bool ties, double t_scale, size_t group_size, bool lazy) {
    std::normal_distribution<double> normal;
    std::uniform_int_distribution<int> kind(0, 4);
    auto value = [&](double v) { return ties ? std::round(v) : v; };
    std::vector<size_t> all(L);
    for (size_t y = 0; y < L; ++y) all[y] = y;
    for (size_t f = 0; f < F; ++f) {
      const int k = f == 0 ? 0 : kind(rng);
      size_t size = k == 0 ? L : k == 1 ? std::max<size_t>(1, L / 2) : k == 4 ? 0 : 1 + rng() % 3;
      size = std::min(size, L);
      std::shuffle(all.begin(), all.end(), rng);
      std::vector<size_t> ys(all.begin(), all.begin() + static_cast<long>(size));
      std::sort(ys.begin(), ys.end());
      for (size_t y : ys) {
        const double v = value(2 * normal(rng) - std::log1p(static_cast<double>(y)));
        if (v == 0.0) continue;
        labels.push_back(static_cast<int32_t>(y)), values.push_back(v);
      }
      indptr.push_back(static_cast<int64_t>(labels.size()));
    }
    for (size_t i = 0; i < L * L; ++i) trans.push_back(value(t_scale * normal(rng)));
    for (size_t y = 0; y < L; ++y) start.push_back(value(normal(rng))), end.push_back(value(normal(rng)));
    model.weights = SparseWeights{Span<int64_t>(indptr), Span<int32_t>(labels), Span<double>(values)};
    model.transitions = Transitions(L, trans.data());
    model.start = start, model.end = end;
    model.base = 0;
    model.group_size = group_size;
    model.lazy_scores = lazy;
    model.compile();
  }
};

// Sentences of feature-id tokens: the base feature on most tokens, a few
// others, now and then an id the model does not have; some empty sentences.
struct RandomTokens {
  std::vector<int64_t> indptr{0}, sent_ptr{0};
  std::vector<int32_t> ids;

  RandomTokens(std::mt19937& rng, size_t F, size_t n_sent, size_t max_len) {
    for (size_t s = 0; s < n_sent; ++s) {
      const size_t n = rng() % (max_len + 1);
      for (size_t t = 0; t < n; ++t) {
        if (rng() % 10 < 9) ids.push_back(0);
        for (size_t k = rng() % 5; k-- > 0;) ids.push_back(static_cast<int32_t>(rng() % F));
        if (rng() % 10 == 0) ids.push_back(static_cast<int32_t>(F + rng() % 3));
        indptr.push_back(static_cast<int64_t>(ids.size()));
      }
      sent_ptr.push_back(static_cast<int64_t>(indptr.size() - 1));
    }
  }
  CsrView tokens() const { return CsrView{Span<int64_t>(indptr), Span<int32_t>(ids)}; }
};

void check_model(std::mt19937& rng, size_t L, bool ties, double t_scale, size_t group_size, bool lazy) {
  const size_t F = 3 + rng() % 12;
  RandomModel rm(rng, L, F, ties, t_scale, group_size, lazy);
  RandomTokens rt(rng, F, 12, 9);
  const CsrView tokens = rt.tokens();
  const size_t n_sent = rt.sent_ptr.size() - 1, n_tok = tokens.rows();
  std::vector<int32_t> ref_path(n_tok), path(n_tok), its(n_sent);
  std::vector<double> ref(n_sent), got(n_sent);
  const Span<int64_t> sents(rt.sent_ptr);
  decode_batch(rm.model, tokens, sents, Method::viterbi, 4, ref_path.data(), ref.data(), its.data(), 1);
  const std::string where = "L=" + std::to_string(L) + " F=" + std::to_string(F) + (ties ? " ties" : "") +
                            " t_scale=" + std::to_string(t_scale) + " group_size=" + std::to_string(group_size) +
                            (lazy ? " lazy" : " full rows");
  for (Method how : {Method::staggered, Method::staggered_column, Method::carpediem}) {
    decode_batch(rm.model, tokens, sents, how, 4, path.data(), got.data(), its.data(), 1);
    for (size_t s = 0; s < n_sent; ++s) {
      ++checks;
      const size_t t0 = static_cast<size_t>(rt.sent_ptr[s]), t1 = static_cast<size_t>(rt.sent_ptr[s + 1]);
      if (!close(got[s], ref[s])) {
        fail(where + ": method " + std::to_string(static_cast<int>(how)) + ", sentence " + std::to_string(s) +
             ": score " + std::to_string(got[s]) + " != Viterbi's " + std::to_string(ref[s]));
        continue;
      }
      // The reported score is the returned path's, under the emission table every decoder shares.
      if (t1 == t0) continue;
      std::vector<double> E((t1 - t0) * L);
      rm.model.emissions(tokens, t0, t1, E.data());
      const Lattice lat{E.data(), t1 - t0, &rm.model.transitions};
      if (!close(path_score(lat, path.data() + t0), got[s]))
        fail(where + ": sentence " + std::to_string(s) + ": the path does not score what was reported");
      const int bound = static_cast<int>(rm.model.transitions.n_levels()) + 1;
      if (how == Method::staggered && its[s] > bound)
        fail(where + ": " + std::to_string(its[s]) + " search steps, more than Lemma 2's " + std::to_string(bound));
    }
  }
}

// Staggered decoding on raw emission tables (no model): exact against Viterbi.
void check_tables(std::mt19937& rng, size_t L, bool ties) {
  std::normal_distribution<double> normal;
  auto value = [&](double v) { return ties ? std::round(v) : v; };
  std::vector<double> trans(L * L);
  for (double& t : trans) t = value(2 * normal(rng));
  const Transitions T(L, trans.data());
  for (size_t N : {size_t(1), size_t(2), size_t(7), size_t(20)}) {
    std::vector<double> E(N * L);
    for (size_t i = 0; i < E.size(); ++i) E[i] = value(3 * normal(rng) - 0.5 * std::log1p(static_cast<double>(i % L)));
    const Lattice lat{E.data(), N, &T};
    std::vector<int32_t> ref(N), path(N);
    const double best = viterbi(lat, ref.data()).score;
    for (Expansion ex : {Expansion::all_columns, Expansion::column_wise}) {
      ++checks;
      const DecodeStats st = staggered(lat, path.data(), ex);
      if (!close(st.score, best) || !close(path_score(lat, path.data()), best))
        fail("table L=" + std::to_string(L) + " N=" + std::to_string(N) + (ties ? " ties" : "") +
             ": staggered " + std::to_string(st.score) + " != Viterbi " + std::to_string(best));
    }
  }
}

}  // namespace

int main() {
  std::mt19937 rng(20);
  for (size_t L : {size_t(1), size_t(2), size_t(3), size_t(5), size_t(17), size_t(64), size_t(130), size_t(600)})
    for (bool ties : {false, true}) {
      check_tables(rng, L, ties);
      for (double t_scale : {0.1, 3.0})
        for (size_t group_size : {size_t(1), size_t(8)}) {
          check_model(rng, L, ties, t_scale, group_size, true);
          if (group_size == 8) check_model(rng, L, ties, t_scale, group_size, false);
        }
    }
  check_model(rng, 3000, true, 1.0, 16, true);
  check_model(rng, 3000, false, 1.0, 4, true);
  if (failures) {
    std::printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  std::printf("test_decoders: %d checks passed\n", checks);
  return 0;
}
