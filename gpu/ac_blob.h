// gpu/ac_blob.h - layout of the flat, offset-addressed Aho-Corasick blob and
// the pointer view over it that host and device walks use.
//
// Blob (all offsets in bytes from the blob start, every section 16-aligned):
//   BlobHeader
//   GroupHeader[num_groups]
//   pattern tables: pat_lo[P], pat_hi[P] (uint32: a match ending at payload
//                   offset e is kept iff pat_lo <= e <= pat_hi), pat_len[P],
//                   pat_boff[P] + pat_bytes[] (the literal bytes, for verifying
//                   patterns longer than key_len, and case-sensitive ones
//                   walked in a case-folded group: pat_boff's kPatExact bit),
//                   pat_case[2P] (uint32 mask, value: which of the key's last
//                   bytes are letters and their bit 5; zero unless kPatExact)
// The tries hold only the last key_len bytes of each pattern (the "key"); a
// key hit of a longer pattern is confirmed by comparing its leading bytes, so
// a thread's warm-up overlap is key_len - 1 bytes, not longest - 1.
//   per group:      class_map[256] (uint8), dense[num_dense * num_classes]
//                   (state ids, full DFA rows of BFS-shallow states),
//                   out_off[num_states + 1] (uint32), out_ids[] (uint32: pattern
//                   id, kOutCheck set when the match end must be checked),
//                   sparse part for states >= num_dense: sp_rec[n] (16-byte
//                   records, 16-aligned), sp_over[] (entries of big records),
//                   depth_end[key_len + 1] (uint32: states of trie depth <= d
//                   are [0, depth_end[d]); ids are breadth-first, so a walk
//                   bounds its state's depth with one compare),
//                   max_key[num_states] (uint8: the longest key among the
//                   state's outputs, 255 for 255 or more; a step past the
//                   tile whose outputs all started after it is not drained)
// A sparse state's record lists only the classes on which its transition
// differs from the row of its "dense fallback" d, the first dense state on its
// failure chain (d's row holds every other transition). So a step from a
// sparse state costs one record load, plus one dense load when the class is
// not listed: no failure-link walk (ET Open on zeek payloads: 99.0% of sparse
// visits land on a record with <= 3 entries, which are held inline; 32-byte
// records of 7 had taken two loads and seven compares, run 205).
//   word 0: d (bits 0-23) | entry count (bits 24-31; kSpOverflow: entries in
//           sp_over[word 1 .. word 1 + word 2))
//   words 1-3: inline entries; unused ones repeat a real entry (so a match on
//           them is still right)
//   entry: class (bits 24-31) | output flag (bit 23) | plain flag (bit 22) |
//          target id (bits 0-21)
// State ids are uint16 when every group has < 16384 states, else uint32
// (BlobHeader::state_bytes); a group has at most kMaxGroupStates states.
// Transition targets (dense rows, sparse entries) carry the
// id's top bit (kOutFlag16/32) when the target state has a non-empty output
// list, so the walk reads out_off only on the few steps that can match (one
// dependent load per byte instead of three), and the next bit (kOutPlain16/32)
// when none of those outputs has kOutCheck: such a state reports the same
// patterns wherever it is reached in a payload, so the Set kernel need not
// queue it twice in a row.
// One-byte literals (Set mode, one group of 32-bit states): the classes of
// bytes that are whole patterns with no bound and no exact case to confirm
// ("one-byte classes") are numbered first, 0 to n - 1 (BlobHeader::
// byte_classes, at most 32). Such a literal occurs in a payload exactly when
// a byte of its class does, so the Set walk needs no hit for it: a lane ORs
// bit c into a register for each byte it steps, adds the register to its
// payload's word once per tile (ScanParams::d_one_byte), and a pass after the
// kernel turns each payload's word into keys (ac_one_byte_keys.cu). A target
// whose outputs are all such literals carries kOneByteOnly32 and is no Set
// hit; in the others' output lists the literals carry kOutOneByte, which the
// Set drain skips. On ET Open over real traffic 16 classes qualify (digits,
// punctuation, |03 05 11|), and targets flagged kOneByteOnly32 made 42% of
// the Set hits (PERFORMANCE.md, runs 260 and 268). The key pass and the CPU
// walk take each class's literals from the blob's list
// (BlobHeader::one_byte_off). With AcCompileOptions::case_columns (off by
// default: an H100 lost 4.5% of Count and Positions, run 278), a folded
// group that is all dense splits a letter class whose one-byte patterns are
// all exact case (ET: `x`, `z`) into a lower- and an upper-case class ("case
// columns", ac_case_columns.h: the same transitions, so the automaton does
// not grow): each is a one-byte class whose list names only its case's
// literals, which keep kOutCase for Count and Positions.
// Covered steps (32-bit states, every state of the group dense): a dense
// entry of state p whose target s is plain carries kCovered32 when every
// output of s, one-byte literals aside, is an output of p. Reached from p,
// s reports nothing new: p's outputs ended one byte earlier, so they were
// reported (or covered, or repeated) at the step before, by a tile that owns
// them whenever it owns s's; so such a step is no Set hit. The flag belongs
// to the step, not to s, so the sparse part (whose steps fall back to another
// state's row) never has it. On ET Open over zeek payloads it takes 22% of
// the Set hits, the runs of |00| above all (PERFORMANCE.md, run 276).
// Run targets (32-bit states): a target whose trie string is one class
// repeated (b^d, d >= 1) and whose outputs are not plain carries kRunStep32
// in every dense entry. On a run of one byte the Set walk would report such
// a state at every byte (ET Open: AAAA... against the checked literals that
// end in 16 A's); instead, at a run target the walk finds how far the run
// of the exact byte reaches back (ac_run_quiet, ac_walk.cuh), and once it
// reaches BlobHeader::run_window bytes (the longest output of any run
// target, plus one) and the match end has passed run_min_end (their highest
// lower bound), the step is no hit: every key it would report matches one
// byte earlier too, in the same bytes, and is reported there by the tile
// that owns it. A unit of such a run had taken 5-20 times a unit's median
// time, and a launch of one window waits on its slowest unit (run 346).
// The blob is deterministic: the same pattern list gives the same bytes.
#pragma once

#include <cstdint>

namespace wm::gpu {

constexpr uint32_t kBlobMagic = 0x43414d57u; // "WMAC"
constexpr uint32_t kBlobVersion = 12; // 2: output flag in transition targets; 3: sparse records, kOutCheck; 4: plain flag; 5: depth_end; 6: max_key; 7: kPatExact, kOutCase, pat_case; 8: 16-byte sparse records; 9: one-byte classes; 10: kCovered32; 11: one-byte literal lists, case columns, no plain flag on no-hit targets; 12: kRunStep32, run_window
constexpr uint32_t kMaxGroups = 4;
// Top bit of a transition target: "the target state has outputs".
constexpr uint32_t kOutFlag16 = 0x8000u;
constexpr uint32_t kOutFlag32 = 0x80000000u;
// Next bit, only with the output flag: "no output of the target is checked".
constexpr uint32_t kOutPlain16 = 0x4000u;
constexpr uint32_t kOutPlain32 = 0x40000000u;
// Next bit of 32-bit dense targets, only with out (and without plain, so
// that it leaves the Set walk's last plain target alone): "every output of
// the target is a one-byte literal of a one-byte class" (see above).
constexpr uint32_t kOneByteOnly32 = 0x20000000u;
// Next bit of 32-bit dense entries, only with out (plain cleared): a covered
// step (see above): the step's source already reported every output of its
// target.
constexpr uint32_t kCovered32 = 0x10000000u;
// Next bit of 32-bit dense entries, only with out (plain cleared): a run
// target (see above). Queue entries keep 26 bits of a state id, so the bit is free.
constexpr uint32_t kRunStep32 = 0x08000000u;
constexpr uint32_t kMaxOneByteClasses = 32;   // bits of a lane's register
constexpr uint32_t kMaxOneByteLiterals = 256; // the literals of all one-byte classes (a shared table of the key pass)
// out_ids entry: the pattern has offset/depth bounds or is longer than the key
// (the match end or leading bytes must be checked); clear for most patterns.
constexpr uint32_t kOutCheck = 0x80000000u;
// out_ids entry: the key's letters must match case exactly (kPatExact with a
// key of at most kCaseHistoryBytes): checked against the walk's case history
// with the pattern's pat_case mask, no byte loads.
constexpr uint32_t kOutCase = 0x40000000u;
// out_ids entry: a one-byte literal of a one-byte class, which the Set walk
// reports from its register (see above); never with kOutCheck or kOutCase.
constexpr uint32_t kOutOneByte = 0x20000000u;
constexpr uint32_t kOutIdMask = 0x1FFFFFFFu; // pattern id of an out_ids entry
// The walk keeps bit 5 (ASCII case) of its last 32 bytes: bit k is byte i - k.
constexpr uint32_t kCaseHistoryBytes = 32;
// pat_boff bit: a case-sensitive pattern with letters in a case-folded group;
// a key hit is confirmed by comparing all its bytes exactly (with kOutCheck).
constexpr uint32_t kPatExact = 0x80000000u;
constexpr uint32_t kMaxKeySaturated = 255; // max_key of a state with a key of 255 bytes or more
// Sparse records (see above).
constexpr uint32_t kSpRecordWords = 4;
static_assert(kSpRecordWords % 4 == 0, "a record is whole 16-byte vectors");
constexpr uint32_t kSpInline = kSpRecordWords - 1;
constexpr uint32_t kSpDenseMask = 0xFFFFFFu;
constexpr uint32_t kSpOverflow = 0xFFu;
constexpr uint32_t kSpIdMask = 0x3FFFFFu;
constexpr uint32_t kSpFlag = 0x800000u;
constexpr uint32_t kSpPlain = 0x400000u;
constexpr uint32_t kMaxGroupStates = kSpIdMask + 1;

struct BlobHeader {
    uint32_t magic;
    uint32_t version;
    uint32_t num_patterns;
    uint32_t num_groups;
    uint32_t state_bytes; // 2 or 4
    uint32_t max_len;     // longest pattern, bytes
    uint32_t key_len;     // trie depth limit (suffix key length)
    uint32_t byte_classes; // one-byte classes of group g in bits 8g..8g+7 (0: none)
    uint64_t total_bytes;
    uint64_t pat_lo_off, pat_hi_off, pat_len_off, pat_boff_off, pat_bytes_off, pat_case_off;
    uint64_t one_byte_off; // group 0's one-byte literals by class (0: none): uint32 first[kMaxOneByteClasses + 1], then ids
    uint32_t run_window;   // run targets (kRunStep32): their longest output + 1 (0: no run target)
    uint32_t run_min_end;  // run targets: the highest pat_lo of their outputs
    uint32_t reserved[2];
    // GroupHeader[] follows at sizeof(BlobHeader): a multiple of 16
};
static_assert(sizeof(BlobHeader) == 112, "BlobHeader layout");

struct GroupHeader {
    uint32_t num_states;
    uint32_t num_classes;
    uint32_t num_dense;   // states [0, num_dense) have dense rows
    uint32_t fold;        // 1: nocase group (class map folds ASCII case)
    uint32_t key_len;     // longest key of the group (<= BlobHeader::key_len)
    uint32_t num_outputs; // entries in out_ids
    uint32_t num_sparse_overflow; // entries in sp_over
    uint32_t num_patterns;
    uint64_t class_map_off, dense_off, out_off_off, out_ids_off;
    uint64_t sp_rec_off, sp_over_off, depth_end_off, max_key_off;
};
static_assert(sizeof(GroupHeader) == 96, "GroupHeader layout");

// Raw pointers into one copy of the blob (host or device). State-typed arrays
// are void pointers; the walk casts them to its StateT.
struct AcGroupView {
    const uint8_t *class_map;
    const void *dense;
    const uint32_t *out_off;
    const uint32_t *out_ids;
    const uint32_t *sp_rec;  // kSpRecordWords per sparse state
    const uint32_t *sp_over; // entries of records with more than kSpInline
    const uint32_t *depth_end; // key_len + 1 entries: states of depth <= d are [0, depth_end[d])
    const uint8_t *max_key;    // per state: longest key among its outputs (saturates at 255)
    uint32_t num_classes;
    uint32_t num_dense;
    uint32_t num_states;
    uint32_t key_len; // longest key of the group (deepest state)
    uint32_t fold;    // verify long patterns case-insensitively
    uint32_t byte_classes; // one-byte classes: 0 .. byte_classes - 1 (see above)
    // Their literals: class c's are one_byte_lits[kMaxOneByteClasses + 1 +
    // k] for k in [one_byte_lits[c], one_byte_lits[c + 1]) (null: none).
    const uint32_t *one_byte_lits;
};

struct AcView {
    const uint32_t *pat_lo;
    const uint32_t *pat_hi;
    const uint32_t *pat_len;
    const uint32_t *pat_boff;
    const uint8_t *pat_bytes;
    const uint32_t *pat_case; // mask, value per pattern (see kOutCase)
    uint32_t num_patterns;
    uint32_t num_groups;
    uint32_t state_bytes;
    uint32_t max_len;
    uint32_t key_len;
    uint32_t run_window, run_min_end; // BlobHeader's
    AcGroupView groups[kMaxGroups];
};

// Builds the view for a blob copy at `base` (host or device address) from the
// host copy's headers. Host-only (reads the headers from `host_blob`).
inline AcView make_ac_view(const uint8_t *host_blob, const uint8_t *base) {
    const auto *h = reinterpret_cast<const BlobHeader *>(host_blob);
    const auto *gh = reinterpret_cast<const GroupHeader *>(host_blob + sizeof(BlobHeader));
    AcView v{};
    v.pat_lo = reinterpret_cast<const uint32_t *>(base + h->pat_lo_off);
    v.pat_hi = reinterpret_cast<const uint32_t *>(base + h->pat_hi_off);
    v.pat_len = reinterpret_cast<const uint32_t *>(base + h->pat_len_off);
    v.pat_boff = reinterpret_cast<const uint32_t *>(base + h->pat_boff_off);
    v.pat_bytes = base + h->pat_bytes_off;
    v.pat_case = reinterpret_cast<const uint32_t *>(base + h->pat_case_off);
    v.key_len = h->key_len;
    v.num_patterns = h->num_patterns;
    v.num_groups = h->num_groups;
    v.state_bytes = h->state_bytes;
    v.max_len = h->max_len;
    v.run_window = h->run_window;
    v.run_min_end = h->run_min_end;
    for (uint32_t g = 0; g < h->num_groups && g < kMaxGroups; ++g) {
        AcGroupView &o = v.groups[g];
        o.class_map = base + gh[g].class_map_off;
        o.dense = base + gh[g].dense_off;
        o.out_off = reinterpret_cast<const uint32_t *>(base + gh[g].out_off_off);
        o.out_ids = reinterpret_cast<const uint32_t *>(base + gh[g].out_ids_off);
        o.sp_rec = reinterpret_cast<const uint32_t *>(base + gh[g].sp_rec_off);
        o.sp_over = reinterpret_cast<const uint32_t *>(base + gh[g].sp_over_off);
        o.depth_end = reinterpret_cast<const uint32_t *>(base + gh[g].depth_end_off);
        o.max_key = base + gh[g].max_key_off;
        o.num_classes = gh[g].num_classes;
        o.num_dense = gh[g].num_dense;
        o.num_states = gh[g].num_states;
        o.key_len = gh[g].key_len;
        o.fold = gh[g].fold;
        o.byte_classes = (h->byte_classes >> (8 * g)) & 0xffu;
        o.one_byte_lits = g == 0 && h->one_byte_off ? reinterpret_cast<const uint32_t *>(base + h->one_byte_off) : nullptr;
    }
    return v;
}

// The most output records one payload byte can end in Positions mode (Set
// keys are fewer): every group's longest output list, plus the most one-byte
// literals of one class. Host-only, over the host copy. The kernels' record
// counter is 32-bit, so a chunk's bytes are bounded by it (CudaMatcher).
inline uint64_t max_records_per_byte(const uint8_t *host_blob) {
    const AcView v = make_ac_view(host_blob, host_blob);
    uint64_t n = 0;
    for (uint32_t g = 0; g < v.num_groups && g < kMaxGroups; ++g) {
        const AcGroupView &o = v.groups[g];
        uint32_t most = 0;
        for (uint32_t s = 0; s < o.num_states; ++s)
            most = o.out_off[s + 1] - o.out_off[s] > most ? o.out_off[s + 1] - o.out_off[s] : most;
        n += most;
        if (o.one_byte_lits) {
            uint32_t most_one = 0;
            for (uint32_t c = 0; c < kMaxOneByteClasses; ++c) {
                const uint32_t k = o.one_byte_lits[c + 1] - o.one_byte_lits[c];
                most_one = k > most_one ? k : most_one;
            }
            n += most_one;
        }
    }
    return n ? n : 1;
}

// Whether every state of every group has a dense row: the kernels then walk
// with no sparse step at all (ac_step's SPARSE = false).
inline bool ac_all_dense(const AcView &v) {
    for (uint32_t g = 0; g < v.num_groups; ++g)
        if (v.groups[g].num_dense < v.groups[g].num_states) return false;
    return true;
}

} // namespace wm::gpu
