// A batch of sentences tagged in blocks: a block's features (TokenFeatures)
// then its decoding (decode_batch), the buffers reused from block to block
// and from call to call, so that a pass over a large batch touches the same
// few hundred kilobytes throughout instead of fresh memory for every token's
// keys and ids (what made a process's first pass slower than its later ones).
#pragma once
#include <cstdint>
#include <vector>

#include "conjunct/decode/decoder.h"
#include "conjunct/tagging/token_features.h"

namespace conjunct {

struct TagScratch {
  TokenFeatures::Prepared prepared;
  std::vector<int64_t> indptr, sent_ptr;
  std::vector<int32_t> ids;
};

// Tokens per block: the keys of a block (about 30 per token) stay in L2.
constexpr size_t kTagBlockTokens = 2048;

// The end of the block of sentences that starts at s0 (at least one sentence).
size_t tag_block_end(const TokenBatch& batch, size_t s0, size_t s_end);

// Sentences [s0, s1) of the batch prepare(batch, s.prepared) last saw, tagged
// as decode_batch tags them: paths at the sentences' token slots
// (paths[batch.sent_ptr[s] ...]), scores and iterations at their sentence's.
void tag_prepared(const TokenFeatures& features, const ChainModel& model, const TokenBatch& batch, TagScratch& s,
                  size_t s0, size_t s1, Method method, size_t beam_width, int32_t* paths, double* scores,
                  int32_t* iterations);

// The whole batch: one thread in blocks (the calling thread's scratch), more
// threads over the whole batch's features as decode_batch splits it.
void tag_batch(const TokenFeatures& features, const ChainModel& model, const TokenBatch& batch, Method method,
               size_t beam_width, int32_t* paths, double* scores, int32_t* iterations, int n_threads);

}  // namespace conjunct
