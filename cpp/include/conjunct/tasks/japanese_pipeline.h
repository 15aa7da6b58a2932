// The Japanese text pipeline in one call: raw text (its whitespace-free
// pieces) -> the word segmenter's boundary decisions -> words (one UTF-8
// buffer and offsets) -> the tagger's joint UPOS|XPOS tags (features and
// decoding) -> the bunsetsu chunker's decisions over (word, XPOS) -> bunsetsu
// -> Sassano's bunsetsu parser over (form, lemma = form, XPOS). Each thread
// takes a range of sentences through every stage; the stages' models are
// immutable and shared, scratch space is the thread's. The stages are the ones
// each task runs alone (TokenFeatures + decode_batch, ChunkFeaturizer +
// yamcha_chunk, BunsetsuFeaturizer + sassano_parse), so the output is theirs.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "conjunct/classify/classifier.h"
#include "conjunct/decode/decoder.h"
#include "conjunct/tagging/token_features.h"
#include "conjunct/tasks/boundary_features.h"
#include "conjunct/tasks/chunk_features.h"
#include "conjunct/tasks/sassano.h"

namespace conjunct {

// The word segmenter: boundary features and the binary classifier whose
// class cut_class says a word ends at the boundary.
struct JapaneseSegmenter {
  std::shared_ptr<const BoundaryFeaturizer> features;
  const Classifier* clf = nullptr;
  Decision decision;
  bool early_exit = true;
  int64_t cut_class = 0;
};

struct JapaneseStages {
  JapaneseSegmenter segmenter;  // features null: words are given (analyze_japanese only)
  // The tagger: its features, its model and decoder; the XPOS of each label.
  const TokenFeatures* tag_features = nullptr;
  const ChainModel* chain = nullptr;
  Method method = Method::staggered_column;
  size_t beam_width = 4;
  std::vector<std::string> tag_xpos;
  // The bunsetsu chunker; per class, whether it starts a bunsetsu.
  std::shared_ptr<const ChunkFeaturizer> chunk;
  const Classifier* chunk_clf = nullptr;
  Decision chunk_decision;
  bool chunk_early_exit = true;
  std::vector<uint8_t> chunk_starts;
  // The bunsetsu parser.
  std::shared_ptr<const BunsetsuFeaturizer> parser;
  SassanoJudge judge;
};

struct JapaneseAnalysis {
  std::vector<int32_t> tags;          // per word, the tagger's label
  std::vector<int32_t> bunsetsu;      // per word, the index of its bunsetsu in the sentence
  std::vector<int32_t> heads;         // per bunsetsu, its head's index in the sentence (-1: root)
  std::vector<int64_t> bunsetsu_ptr;  // per sentence, its bunsetsu in heads (n_sentences + 1)
};

// Every stage over the sentences of words; n_threads threads share the models.
void analyze_japanese(const JapaneseStages& stages, const TokenBatch& words, JapaneseAnalysis& out, int n_threads);

// Words of pieces of text, as the segmenter cuts them: piece p is
// text[piece_offsets[p], piece_offsets[p + 1]) (UTF-8, adjacent pieces), sentence s
// is pieces [piece_ptr[s], piece_ptr[s + 1]). Fills the word offsets (n_words
// + 1, into text) and the sentences' word offsets; n_threads threads take
// contiguous ranges of pieces. Throws std::invalid_argument naming the piece
// on text that is not UTF-8.
void segment_pieces(const JapaneseSegmenter& seg, const char* text, const int64_t* piece_offsets, size_t n_pieces,
                    const int64_t* piece_ptr, size_t n_sentences, std::vector<int64_t>& word_offsets,
                    std::vector<int64_t>& sent_ptr, int n_threads);

}  // namespace conjunct
