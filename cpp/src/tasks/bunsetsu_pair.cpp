// The bunsetsu featurizer's per-sentence ids and per-decision vectors: each
// bunsetsu's lists turned into feature ids once (a classifier's internal ids
// when parsing), and a pair's lists, its own templates and the sort.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "conjunct/tasks/bunsetsu_features.h"

namespace conjunct {

int32_t BunsetsuFeaturizer::pair_id(size_t q, int32_t code) const {
  if (code < kPairCodes) return pair_ids_[q * kPairCodes + static_cast<size_t>(code)];
  const Compiled& c = slots_[kPair][q];
  return tables_->keys().find(c.base + code * c.step);
}

namespace {
// Sorts a[0, n) and drops repeats; returns the new length. Most internal ids
// are small (frequent features): those go through a bit set (`small`, zero
// between calls), the few others through insertion.
constexpr int32_t kSmallIds = 1024;
size_t sort_unique_ids(int32_t* a, size_t n, uint64_t* small) {
  uint32_t words = 0;
  size_t large = 0;
  for (size_t k = 0; k < n; ++k) {
    const int32_t f = a[k];
    if (f < kSmallIds) {
      small[f >> 6] |= uint64_t{1} << (f & 63);
      words |= 1u << (f >> 6);
    } else {
      a[large++] = f;
    }
  }
  for (size_t k = 1; k < large; ++k) {
    const int32_t v = a[k];
    size_t m = k;
    for (; m > 0 && a[m - 1] > v; --m) a[m] = a[m - 1];
    a[m] = v;
  }
  size_t n_large = 0;
  for (size_t k = 0; k < large; ++k)
    if (k == 0 || a[k] != a[k - 1]) a[n_large++] = a[k];
  // The small ids go in front of the large ones.
  size_t n_small = 0;
  for (uint32_t ws = words; ws != 0; ws &= ws - 1) n_small += static_cast<size_t>(__builtin_popcountll(small[__builtin_ctz(ws)]));
  std::copy_backward(a, a + n_large, a + n_small + n_large);
  size_t o = 0;
  for (uint32_t ws = words; ws != 0; ws &= ws - 1) {
    const int w = __builtin_ctz(ws);
    for (uint64_t bits = small[w]; bits != 0; bits &= bits - 1) a[o++] = (w << 6) | __builtin_ctzll(bits);
    small[w] = 0;
  }
  return n_small + n_large;
}
}  // namespace

void BunsetsuFeaturizer::prepare(const BunsetsuTokens& t, int64_t b, int64_t e, Sentence& s,
                                 const FeatureMap* map) const {
  prepare_keys(t, b, e, s);
  s.map = map;
  s.ids.resize(s.keys.size());
  tables_->keys().find_many(s.keys.data(), s.keys.size(), s.ids.data());
  int32_t* ids = s.ids.data();
  if (map != nullptr) {  // column -> internal id; unseen columns become -1 and leave below
    const int32_t* to = map->to_internal.data;
    const size_t width = map->to_internal.size;
    for (size_t r = 0; r < s.ids.size(); ++r)
      ids[r] = static_cast<uint32_t>(ids[r]) < width ? to[ids[r]] : -1;
  }
  int64_t w = 0, r = 0;
  for (size_t q = 1; q < s.ends.size(); ++q) {
    const int64_t start = w;
    for (const int64_t end = s.ends[q]; r < end; ++r)
      if (ids[r] >= 0) ids[w++] = ids[r];
    (void)start;
    s.ends[q] = w;
  }
  s.ids.resize(static_cast<size_t>(w));
}

void BunsetsuFeaturizer::pair(Sentence& s, size_t i, size_t j, const int32_t* heads, std::vector<int32_t>& x) const {
  // Bunsetsu k's list L (0 mod, 1 head, 2 between, 3 siblings) is ids[ends[4k + L], ends[4k + L + 1]).
  const int32_t* ids = s.ids.data();
  auto add = [&](size_t k, int list) {
    x.insert(x.end(), ids + s.ends[4 * k + list], ids + s.ends[4 * k + list + 1]);
  };
  x.clear();
  if (s.map == nullptr) add(i, 0), add(j, 1);
  for (size_t k = i + 1; k < j; ++k) {
    add(k, 2);
    if (heads[k] == static_cast<int32_t>(j)) add(k, 3);
  }
  // The pair's own templates (column ids): single ones through the table of small codes.
  const size_t n_lists = x.size();
  s.keys.clear();
  const std::vector<Compiled>& pairs = slots_[kPair];
  for (size_t q = 0; q < pairs.size(); ++q) {
    const Compiled& c = pairs[q];
    if (!c.single) {
      emit(s, c, i, i, j, s.keys);
      continue;
    }
    const int32_t code = scalar_code(s, c.parts[0], i, i, j);
    if (code < 0) continue;
    const int32_t id = pair_id(q, code);
    if (id >= 0) x.push_back(id);
  }
  for (const int64_t key : s.keys) {
    const int32_t id = tables_->keys().find(key);
    if (id >= 0) x.push_back(id);
  }
  if (s.map == nullptr) {
    std::sort(x.begin(), x.end());
    x.erase(std::unique(x.begin(), x.end()), x.end());
    return;
  }
  // Internal ids: the pair's ids mapped, the modifier's and the head
  // candidate's lists added, all sorted once (between ids may repeat).
  const int32_t* to = s.map->to_internal.data;
  const size_t width = s.map->to_internal.size;
  size_t w = n_lists;
  for (size_t r = n_lists; r < x.size(); ++r) {
    const int32_t f = static_cast<uint32_t>(x[r]) < width ? to[x[r]] : -1;
    x[w] = f;
    w += f >= 0;
  }
  x.resize(w);
  x.insert(x.end(), ids + s.ends[4 * i], ids + s.ends[4 * i + 1]);
  x.insert(x.end(), ids + s.ends[4 * j + 1], ids + s.ends[4 * j + 2]);
  x.resize(sort_unique_ids(x.data(), x.size(), s.small));
}

void BunsetsuFeaturizer::pair_keys(Sentence& s, size_t i, size_t j, const int32_t* heads,
                                   std::vector<int64_t>& out) const {
  const int64_t* keys = s.keys.data();
  auto add = [&](size_t k, int list) {
    out.insert(out.end(), keys + s.ends[4 * k + list], keys + s.ends[4 * k + list + 1]);
  };
  out.clear();
  add(i, 0);
  add(j, 1);
  for (size_t k = i + 1; k < j; ++k) {
    add(k, 2);
    if (heads[k] == static_cast<int32_t>(j)) add(k, 3);
  }
  for (const Compiled& c : slots_[kPair]) emit(s, c, i, i, j, out);
}

}  // namespace conjunct
