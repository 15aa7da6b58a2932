// One entry point over every decoder, and batch decoding of many sentences
// (threads over sentences; each thread has its own scratch space).
#pragma once
#include <string>

#include "conjunct/decode/chain.h"

namespace conjunct {

enum class Method { viterbi, staggered, staggered_column, carpediem, beam, greedy };

// "viterbi", "staggered", "staggered-column", "carpediem", "beam", "greedy";
// throws std::invalid_argument for anything else.
Method parse_method(const std::string& name);

DecodeStats decode(Method method, const Lattice& lat, int32_t* path, size_t beam_width);

// Sentence i is the token rows [sent_ptr[i], sent_ptr[i+1]) of `tokens`; its
// path goes to paths[sent_ptr[i] ...], its score and search steps to
// scores[i] and iterations[i].
void decode_batch(const ChainModel& model, CsrView tokens, Span<int64_t> sent_ptr, Method method, size_t beam_width,
                  int32_t* paths, double* scores, int32_t* iterations, int n_threads);

}  // namespace conjunct
