// gpu/align/sw_sections.h - cutting a database into overlapped sections (the
// seed's multi-GPU scheme, used inside one GPU too) and padding the query.
// Host and device share the Section layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace wm::align {

// A section computes columns [begin, end) starting from zeros and reports
// columns [own_begin, end); begin = own_begin - overlap (clipped at 0), so
// reported values are exact when no alignment spans more than the overlap.
struct Section {
    uint64_t begin;
    uint64_t own_begin;
    uint64_t end;
};

// Sections owning [lo, hi) of the database (they may reach back to lo - overlap): at least `want` of them when each
// can still own >= min_own columns; the count is rounded up to an even number
// (16-bit lanes pair them) with empty sections.
std::vector<Section> plan_sections(uint64_t lo, uint64_t hi, uint64_t overlap, uint64_t want, uint64_t min_own);

// One section per payload (payload boundaries are true zero boundaries).
std::vector<Section> payload_sections(const uint32_t *offsets, uint32_t count);

// Query codes padded at the top to `rows` rows with detail::kQueryPad (rows >= m).
std::vector<uint16_t> pad_query(const uint8_t *query, size_t m, size_t rows);

} // namespace wm::align
