// A token batch from Python's buffers, checked (shared by the tagger's bindings).
#pragma once
#include "common.h"
#include "conjunct/tagging/token_features.h"

namespace conjunct::py {
TokenBatch token_batch(const Array1<uint8_t>& text, const Array1<int64_t>& offsets, const Array1<int64_t>& sent_ptr);
}
