#include "conjunct/tasks/japanese_pipeline.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "conjunct/scratch.h"
#include "conjunct/tagging/tag_batch.h"
#include "conjunct/tasks/yamcha_chunk.h"
#include "conjunct/util/parallel.h"

namespace conjunct {

namespace {

// A thread's buffers, kept from call to call (thread_scratch): a pass over a
// batch reuses the same memory block after block, a first pass included.
struct Work {
  TagScratch tag;
  std::vector<int64_t> sent_ptr, chunk_ptr, chunk_indptr, field_ptr, bunsetsu_ptr;
  std::vector<int32_t> chunk_ids, labels;
  std::vector<double> scores;
  std::vector<int32_t> iterations;
  std::string chunk_text, bunsetsu_text;
};

// Sentences [s0, s1): tags, bunsetsu of every word, heads of every bunsetsu
// (written at the sentence's first word's slot of out.heads, one per
// bunsetsu). Every stage runs over a block of sentences (about
// kTagBlockTokens words) before the next block starts.
void run_block(const JapaneseStages& st, const TokenBatch& words, size_t s0, size_t s1, JapaneseAnalysis& out,
               Work& w) {
  const int64_t T0 = words.sent_ptr[s0], T1 = words.sent_ptr[s1];
  const size_t n_tok = static_cast<size_t>(T1 - T0), n_sent = s1 - s0;
  w.sent_ptr.resize(n_sent + 1);
  for (size_t s = 0; s <= n_sent; ++s) w.sent_ptr[s] = words.sent_ptr[s0 + s] - T0;
  const TokenBatch block{words.text, words.offsets + T0, n_tok, w.sent_ptr.data(), n_sent};
  // The tagger's word attributes, once per distinct word of the range.
  st.tag_features->prepare(block, w.tag.prepared);
  w.scores.resize(n_sent);
  w.iterations.resize(n_sent);
  int32_t* tags = out.tags.data() + T0;
  const Span<int32_t> prev1(st.chunk->prev1().data(), st.chunk->prev1().size());
  const Span<int32_t> prev2(st.chunk->prev2().data(), st.chunk->prev2().size());
  ChunkStats chunk_stats;
  ParseStats parse_stats;
  for (size_t a = 0; a < n_sent;) {
    const size_t e = tag_block_end(block, a, n_sent);
    // 1. The tagger, as PerceptronTagger tags a batch: features, then decoding.
    tag_prepared(*st.tag_features, *st.chain, block, w.tag, a, e, st.method, st.beam_width, tags, w.scores.data(),
                 w.iterations.data());
    // 2. The chunker's tokens: (word, XPOS of its tag); word i of the block is token i - t0.
    const int64_t t0 = w.sent_ptr[a], t1 = w.sent_ptr[e];
    w.chunk_text.clear();
    w.chunk_ptr.assign(1, 0);
    for (int64_t i = t0; i < t1; ++i) {
      const int64_t x = block.offsets[i], y = block.offsets[i + 1];
      w.chunk_text.append(words.text + x, static_cast<size_t>(y - x));
      w.chunk_ptr.push_back(static_cast<int64_t>(w.chunk_text.size()));
      w.chunk_text.append(st.tag_xpos[static_cast<size_t>(tags[i])]);
      w.chunk_ptr.push_back(static_cast<int64_t>(w.chunk_text.size()));
    }
    const ChunkTokens chunk_tokens{w.chunk_text.data(), w.chunk_ptr.data()};
    // 3. The parser's tokens: (form, lemma = form, XPOS), grouped into bunsetsu as the chunker says.
    w.bunsetsu_text.clear();
    w.field_ptr.assign(1, 0);
    for (int64_t i = 0; i < t1 - t0; ++i) {
      const std::string_view form = chunk_tokens.field(i, 0);
      const std::string_view xpos = chunk_tokens.field(i, 1);
      for (const std::string_view v : {form, form, xpos}) {
        w.bunsetsu_text.append(v.data(), v.size());
        w.field_ptr.push_back(static_cast<int64_t>(w.bunsetsu_text.size()));
      }
    }
    w.bunsetsu_ptr.assign(1, 0);
    for (size_t s = a; s < e; ++s) {
      const int64_t b = w.sent_ptr[s] - t0, end = w.sent_ptr[s + 1] - t0;
      const size_t n = static_cast<size_t>(end - b);
      w.chunk_indptr.assign(1, 0);
      w.chunk_ids.clear();
      st.chunk->sentence(chunk_tokens, b, end, w.chunk_indptr, w.chunk_ids);
      ChunkSentenceView view;
      view.tokens = CsrView{Span<int64_t>(w.chunk_indptr.data(), w.chunk_indptr.size()),
                            Span<int32_t>(w.chunk_ids.data(), w.chunk_ids.size())};
      view.prev1 = prev1;
      view.prev2 = prev2;
      w.labels.resize(n);
      yamcha_chunk(*st.chunk_clf, st.chunk_decision, st.chunk_early_exit, view, w.labels.data(), chunk_stats, false,
                   nullptr, nullptr);
      const size_t first_bunsetsu = w.bunsetsu_ptr.size() - 1;
      const size_t word0 = static_cast<size_t>(T0 + t0 + b);  // the sentence's first word in the batch
      int32_t* bunsetsu = out.bunsetsu.data() + word0;
      int32_t k = -1;
      for (size_t i = 0; i < n; ++i) {
        if (i == 0 || st.chunk_starts[static_cast<size_t>(w.labels[i])]) {
          ++k;
          if (i > 0) w.bunsetsu_ptr.push_back(b + static_cast<int64_t>(i));
        }
        bunsetsu[i] = k;
      }
      w.bunsetsu_ptr.push_back(end);
      // 4. The parser; its heads go to the slots of the sentence's words (k + 1 <= n of them).
      const BunsetsuTokens btokens{w.bunsetsu_text.data(), w.field_ptr.data(), w.bunsetsu_ptr.data()};
      sassano_parse(*st.parser, st.judge, btokens, static_cast<int64_t>(first_bunsetsu),
                    static_cast<int64_t>(w.bunsetsu_ptr.size() - 1), out.heads.data() + word0, parse_stats, false,
                    nullptr, nullptr, nullptr);
    }
    a = e;
  }
}

// A thread's segmenter buffers, kept from call to call.
struct SegmentWork {
  BoundaryFeaturizer::Scratch features;
  std::vector<int64_t> positions, indptr;
  std::vector<int32_t> ids;
};

// Pieces [p0, p1): the byte offset of every cut inside a piece (cuts) and
// the number of each piece's cuts (counts[p - p0]).
void segment_range(const JapaneseSegmenter& seg, const char* text, const int64_t* piece_offsets, size_t p0, size_t p1,
                   std::vector<int64_t>& cuts, std::vector<int64_t>& counts) {
  SegmentWork& w = thread_scratch<SegmentWork>();
  counts.assign(p1 - p0, 0);
  for (size_t p = p0; p < p1; ++p) {
    const int64_t a = piece_offsets[p], e = piece_offsets[p + 1];
    w.positions.clear();
    w.indptr.assign(1, 0);
    w.ids.clear();
    try {
      seg.features->text(std::string_view(text + a, static_cast<size_t>(e - a)), BoundaryFeaturizer::kAll, w.features,
                         w.positions, w.indptr, w.ids);
    } catch (const std::invalid_argument& err) {
      throw std::invalid_argument("piece " + std::to_string(p + 1) + ": " + err.what());
    }
    // Boundary positions are characters, increasing: the byte offset follows them.
    int64_t at = a, chars = 0;
    const CsrView rows{Span<int64_t>(w.indptr.data(), w.indptr.size()), Span<int32_t>(w.ids.data(), w.ids.size())};
    for (size_t r = 0; r < w.positions.size(); ++r) {
      if (seg.clf->predict(rows.row(r), seg.decision, seg.early_exit) != seg.cut_class) continue;
      for (const int64_t want = w.positions[r]; chars < want; ++chars) {
        ++at;
        while (at < e && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
      }
      cuts.push_back(at);
      ++counts[p - p0];
    }
  }
}

}  // namespace

void analyze_japanese(const JapaneseStages& st, const TokenBatch& words, JapaneseAnalysis& out, int n_threads) {
  const size_t n_sent = words.n_sentences, n_tok = words.n_tokens;
  out.tags.assign(n_tok, 0);
  out.bunsetsu.assign(n_tok, 0);
  std::vector<int32_t> slots(n_tok, -1);
  out.heads.swap(slots);
  // One contiguous range of sentences per thread, of about equal numbers of
  // words: the tagger then decodes each distinct word of a range once.
  const size_t min_sentences = 32;
  const size_t threads = std::max<size_t>(
      1, std::min<size_t>(n_threads > 0 ? static_cast<size_t>(n_threads) : 1, n_sent / min_sentences));
  std::vector<size_t> cut{0};
  for (size_t t = 1; t < threads; ++t) {
    const int64_t want = static_cast<int64_t>(n_tok * t / threads);
    size_t s = static_cast<size_t>(std::lower_bound(words.sent_ptr, words.sent_ptr + n_sent + 1, want) - words.sent_ptr);
    cut.push_back(std::max(cut.back(), std::min(s, n_sent)));
  }
  cut.push_back(n_sent);
  run_parts(threads, [&](size_t t) {
    if (threads == 1 || cut[t] < cut[t + 1]) run_block(st, words, cut[t], cut[t + 1], out, thread_scratch<Work>());
  });
  // The heads, compacted: sentence s's bunsetsu count is its last word's bunsetsu + 1.
  out.bunsetsu_ptr.assign(1, 0);
  out.heads.swap(slots);
  out.heads.clear();
  for (size_t s = 0; s < n_sent; ++s) {
    const int64_t b = words.sent_ptr[s], e = words.sent_ptr[s + 1];
    const int64_t n = e > b ? out.bunsetsu[static_cast<size_t>(e - 1)] + 1 : 0;
    out.heads.insert(out.heads.end(), slots.begin() + b, slots.begin() + b + n);
    out.bunsetsu_ptr.push_back(static_cast<int64_t>(out.heads.size()));
  }
}

void segment_pieces(const JapaneseSegmenter& seg, const char* text, const int64_t* piece_offsets, size_t n_pieces,
                    const int64_t* piece_ptr, size_t n_sentences, std::vector<int64_t>& word_offsets,
                    std::vector<int64_t>& sent_ptr, int n_threads) {
  // Contiguous ranges of pieces of about equal bytes, one per thread.
  const size_t threads = std::max<size_t>(
      1, std::min<size_t>(n_threads > 0 ? static_cast<size_t>(n_threads) : 1, n_pieces / 32));
  std::vector<size_t> cut{0};
  const int64_t bytes = n_pieces ? piece_offsets[n_pieces] - piece_offsets[0] : 0;
  for (size_t t = 1; t < threads; ++t) {
    const int64_t want = piece_offsets[0] + bytes * static_cast<int64_t>(t) / static_cast<int64_t>(threads);
    const size_t p = static_cast<size_t>(std::lower_bound(piece_offsets, piece_offsets + n_pieces + 1, want) - piece_offsets);
    cut.push_back(std::max(cut.back(), std::min(p, n_pieces)));
  }
  cut.push_back(n_pieces);
  std::vector<std::vector<int64_t>> cuts(threads), counts(threads);
  run_parts(threads, [&](size_t t) { segment_range(seg, text, piece_offsets, cut[t], cut[t + 1], cuts[t], counts[t]); });
  // A word ends at every cut and at every piece's end.
  word_offsets.assign(1, n_pieces ? piece_offsets[0] : 0);
  std::vector<int64_t> piece_words(n_pieces + 1, 0);
  for (size_t t = 0; t < threads; ++t) {
    size_t c = 0;
    for (size_t p = cut[t]; p < cut[t + 1]; ++p) {
      for (int64_t k = 0; k < counts[t][p - cut[t]]; ++k) word_offsets.push_back(cuts[t][c++]);
      if (piece_offsets[p + 1] > piece_offsets[p]) word_offsets.push_back(piece_offsets[p + 1]);
      piece_words[p + 1] = static_cast<int64_t>(word_offsets.size() - 1);
    }
  }
  sent_ptr.assign(1, 0);
  for (size_t s = 0; s < n_sentences; ++s) sent_ptr.push_back(piece_words[static_cast<size_t>(piece_ptr[s + 1])]);
}

}  // namespace conjunct
