// gpu/gpu_matcher_pairs.cpp - the CUDA matcher's set-pair calls: a chunk's
// distinct keys are expanded to their patterns' scope entries that fit the
// payload metadata, sorted and mapped to (id, payload) pairs on the device
// (ac_set_pairs.cu), then copied straight into the caller-visible pinned
// buffer of its batch (pair_batch.h); submit_set_pairs() leaves the chunks in
// flight when it returns, so successive batches overlap.
#include "gpu/ac_set_order.h"
#include "gpu/cuda_matcher.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace wm::gpu::detail {

void CudaMatcher::upload_scopes(FlatScopes f) {
    WM_CUDA_CHECK(cudaSetDevice(opts_.device));
    // Built aside and swapped in whole: a failed upload leaves the scopes
    // the matcher had, on the device and on the host alike.
    DeviceScopes d;
    try {
        d.entry_begin = upload(f.entry_begin, "scope entry index");
        d.entry = upload(f.entry, "scope entries");
        d.proto = upload(f.proto, "scope protocols");
        d.port_begin = upload(f.port_begin, "scope port index");
        d.ports = upload(f.ports, "scope ports");
        d.id = upload(f.id, "scope ids");
    } catch (...) {
        d.free();
        throw;
    }
    d_scopes_.free();
    d_scopes_ = d;
    scopes_ = std::move(f);
    entry_by_id_.resize(scopes_.id.size());
    for (uint32_t e = 0; e < entry_by_id_.size(); ++e) entry_by_id_[e] = {scopes_.id[e], e};
    std::sort(entry_by_id_.begin(), entry_by_id_.end());
}

void CudaMatcher::set_scopes(const std::vector<PatternScope> &scopes) {
    upload_scopes(flatten_scopes(scopes, d_view_.num_patterns));
}

void CudaMatcher::set_scopes(FlatScopes f) {
    if (f.entry_begin.size() != size_t{d_view_.num_patterns} + 1) {
        const size_t had = f.entry_begin.empty() ? 0 : f.entry_begin.size() - 1;
        throw std::invalid_argument("set_scopes: scopes flattened for " + std::to_string(had) +
                                    " patterns, the matcher has " + std::to_string(d_view_.num_patterns));
    }
    upload_scopes(std::move(f));
}

// scan_set_pairs(): the kernel and every pass after it (scope expansion, sort,
// pair mapping), enqueued at once: the passes read the key count on the
// device, so the host waits once per chunk. Without the round trips, each pass
// queued behind the next chunk's persistent kernel (run 49: 3.4 of 9 ms). The
// sort covers sort_n keys, padded past the real ones.
void CudaMatcher::launch_pairs(ChunkSlot &s, bool filter) {
    run_kernel(s, EmitKind::SetKeys);
    trace_.gpu(traced(s), ChunkTrace::kScanned, s.stream);
    const uint32_t entries = static_cast<uint32_t>(scopes_.id.size());
    const SortKeyCodec codec = sort_key_codec(entries, s.chunk.first_payload);
    // The sort holds the distinct (pattern, payload) keys before expansion
    // and the (entry, payload) pairs after it: bounded by the patterns or the
    // entries per payload, whichever is more (a pattern may have no entry).
    const uint64_t most_pairs = (uint64_t{s.chunk.last_payload} - s.chunk.first_payload + 1) *
                                std::max<uint64_t>(entries, d_view_.num_patterns);
    s.sort_n = static_cast<uint32_t>(std::min<uint64_t>(s.capacity, most_pairs));
    auto *keys = reinterpret_cast<unsigned long long *>(s.d_matches);
    unsigned long long *alt = s.d_hash; // the dedupe table is spent: scratch of >= 2 x capacity keys
    const uint32_t *d_n = s.d_count;
    if (expands(filter)) {
        ac_expand_encode_keys(keys, s.d_count, s.sort_n, alt, s.d_count + 2, d_scopes_.view(),
                              filter ? s.d_meta : nullptr, s.meta_base, codec, s.stream);
        std::swap(keys, alt); // d_matches (capacity x 12 bytes) is the sort's scratch now
        d_n = s.d_count + 2;
    } else {
        ac_encode_keys(keys, s.d_count, s.sort_n, codec, s.stream);
    }
    s.d_pairs = ac_sort_keys(keys, alt, s.sort_n, sort_end_bit(codec, s.chunk.last_payload), s.d_sort_tmp,
                             s.sort_tmp_bytes, s.stream);
    ac_sorted_keys_to_pairs(s.d_pairs, d_n, s.sort_n, codec, d_scopes_.id, s.stream);
    WM_CUDA_CHECK(cudaMemcpyAsync(s.h_count, s.d_count, 3 * sizeof(uint32_t), cudaMemcpyDeviceToHost, s.stream));
    trace_.gpu(traced(s), ChunkTrace::kPassed, s.stream);
}

// Set pairs: waits for the chunk's passes and enqueues the copy of its pairs
// into its batch's buffer without waiting for it (collect_set_pairs() waits).
void CudaMatcher::finish_pairs(ChunkSlot &s) {
    PairBatch &b = *s.pair_batch;
    trace_.host(traced(s), ChunkTrace::kWaitBegin);
    const bool expanded = expands(b.filter);
    const uint32_t found = collect(s, kSetPairsOutput, [&](ChunkSlot &c) { launch_pairs(c, b.filter); }, expanded);
    trace_.host(traced(s), ChunkTrace::kWaitEnd);
    const uint32_t n = expanded ? s.h_count[2] : found;
    if (n > 0) {
        b.append(s.d_pairs, n, s.seq % tuning::kStreams, s.stream);
        trace_.gpu(traced(s), ChunkTrace::kCopiedBack, s.stream);
    }
    s.busy = false;
    s.pair_batch = nullptr;
}

// Finishes the set-pair chunks in flight (of batch `only`, or all), oldest first.
void CudaMatcher::finish_pending_chunks(const PairBatch *only) {
    try {
        for (uint32_t j = 0; j < tuning::kStreams; ++j) {
            ChunkSlot &s = slot_at(j);
            if (s.busy && s.pair_batch && (!only || s.pair_batch == only)) finish_pairs(s);
        }
    } catch (...) {
        drop_after_failure();
        throw;
    }
}

// A payload that spanned chunks may repeat pairs across the boundary: order by
// (payload, entry index) again and drop repeats (ids map back to entries).
void CudaMatcher::join_split_pairs(PairBatch &b) const {
    auto entry_of = [&](unsigned long long w) {
        const auto it = std::lower_bound(entry_by_id_.begin(), entry_by_id_.end(),
                                         std::make_pair(static_cast<uint32_t>(w), 0u));
        return it->second;
    };
    auto less = [&](unsigned long long a, unsigned long long b) {
        return (a >> 32) != (b >> 32) ? (a >> 32) < (b >> 32) : entry_of(a) < entry_of(b);
    };
    unsigned long long *p = b.pairs();
    if (!std::is_sorted(p, p + b.total, less)) std::sort(p, p + b.total, less);
    b.total = static_cast<size_t>(std::unique(p, p + b.total) - p);
}

size_t CudaMatcher::scan_set_pairs(const BatchView &batch, const PayloadMeta *meta, const SetPair **pairs) {
    if (pending_set_batches())
        throw std::logic_error("scan_set_pairs: " + std::to_string(pending_set_batches()) +
                               " submitted batches are not collected; collect them first");
    submit_set_pairs(batch, meta);
    return collect_set_pairs(pairs);
}

void CudaMatcher::submit_set_pairs(const BatchView &batch, const PayloadMeta *meta) {
    if (pending_set_batches() >= kPendingBatches)
        throw std::logic_error("submit_set_pairs: " + std::to_string(kPendingBatches) +
                               " batches already submitted and not collected; collect one first");
    PairBatch &b = pair_batches_[submitted_ % kPendingBatches];
    use_device();
    // Pairs expected as output records are (one per kBytesPerOutput bytes):
    // the ET set on real traffic gives one per ~54 bytes. A failure here
    // (its pinned buffer) drops the batches before it too, as later ones do.
    try {
        b.start(meta && scopes_.any_constraint, batch.count ? batch.offsets[batch.count] / tuning::kBytesPerOutput : 0);
    } catch (...) {
        drop_after_failure();
        throw;
    }
    ++submitted_;
    if (batch.count == 0 || d_view_.num_groups == 0) return;
    b.split = run_chunks(
        batch,
        [&](ChunkSlot &s) {
            s.pair_batch = &b;
            fit_outputs(s, kSetPairsOutput);
            launch_pairs(s, b.filter);
        },
        [&](ChunkSlot &s) { finish_pairs(s); }, b.filter ? meta : nullptr, false);
}

size_t CudaMatcher::collect_set_pairs(const SetPair **pairs) {
    if (!pending_set_batches()) throw std::logic_error("collect_set_pairs: no batch submitted");
    PairBatch &b = pair_batches_[collected_ % kPendingBatches];
    use_device();
    finish_pending_chunks(&b);
    try {
        b.wait();
    } catch (...) {
        drop_after_failure();
        throw;
    }
    ++collected_;
    if (b.split) join_split_pairs(b);
    if (trace_.on() && !pending_set_batches()) {
        sync_slots();
        trace_.end();
    }
    *pairs = reinterpret_cast<const SetPair *>(b.pairs());
    return b.total;
}

} // namespace wm::gpu::detail
