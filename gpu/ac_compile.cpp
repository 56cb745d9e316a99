// gpu/ac_compile.cpp - see ac_compile.h.
#include "gpu/ac_compile.h"
#include "gpu/ac_case_columns.h"
#include "gpu/ac_covered_steps.h"
#include "gpu/ac_run_targets.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>

namespace wm::gpu {
namespace {

bool is_alpha(uint8_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
uint8_t other_case(uint8_t c) { return c ^ 0x20; }

bool has_alpha(const std::string &s) {
    for (unsigned char c : s)
        if (is_alpha(c)) return true;
    return false;
}

// Trie over class ids, renumbered BFS afterwards.
struct Trie {
    std::vector<std::vector<std::pair<uint8_t, uint32_t>>> kids{1};
    std::vector<std::vector<uint32_t>> own{1};

    uint32_t child(uint32_t s, uint8_t c) const {
        for (auto &k : kids[s])
            if (k.first == c) return k.second;
        return UINT32_MAX;
    }
    // Inserts the key: the last key_bytes bytes of the pattern.
    void insert(const std::string &bytes, uint32_t key_bytes, const ByteClasses &bc, uint32_t id) {
        uint32_t s = 0;
        const size_t from = bytes.size() > key_bytes ? bytes.size() - key_bytes : 0;
        for (size_t i = from; i < bytes.size(); ++i) {
            const unsigned char b = static_cast<unsigned char>(bytes[i]);
            uint8_t c = bc.map[b];
            uint32_t t = child(s, c);
            if (t == UINT32_MAX) {
                t = static_cast<uint32_t>(kids.size());
                kids.emplace_back();
                own.emplace_back();
                kids[s].push_back({c, t});
            }
            s = t;
        }
        own[s].push_back(id);
    }
};

// Canonical BFS-numbered automaton of one group.
struct Automaton {
    ByteClasses bc;
    bool fold = false;
    uint32_t key_len = 0, num_patterns = 0;
    std::vector<std::vector<std::pair<uint8_t, uint32_t>>> kids; // sorted by class
    std::vector<uint32_t> fail, out_off{0}, out_ids;
    std::vector<uint32_t> depth_end; // key_len + 1 entries: states of depth <= d are [0, depth_end[d])
    uint32_t one_byte_classes = 0;   // classes [0, n) are one-byte classes (number_one_byte_classes)
};

// Whether pattern p, of one byte, needs no check when its byte is seen: no
// offset/depth bound, and no exact case to confirm in a folded group.
bool unchecked_one_byte(const Literal &p, bool fold) {
    return p.bytes.size() == 1 && p.offset == 0 && p.depth == 0 &&
           !(fold && !p.nocase && is_alpha(static_cast<uint8_t>(p.bytes[0])));
}

// Renumbers bc's classes so that the one-byte classes come first: those that
// hold a one-byte pattern and whose one-byte patterns all need no check
// (unchecked_one_byte), in class order while they are at most
// kMaxOneByteClasses with at most kMaxOneByteLiterals patterns. Returns their count.
uint32_t number_one_byte_classes(const std::vector<Literal> &pats, const std::vector<uint32_t> &ids, bool fold,
                                 ByteClasses &bc) {
    std::vector<int> state(bc.count, 0); // 0: no one-byte pattern, 1: all unchecked, -1: some checked
    std::vector<uint32_t> literals(bc.count, 0);
    for (uint32_t id : ids) {
        const Literal &p = pats[id];
        if (p.bytes.size() != 1) continue;
        const uint32_t c = bc.map[static_cast<uint8_t>(p.bytes[0])];
        state[c] = unchecked_one_byte(p, fold) ? (state[c] == 0 ? 1 : state[c]) : -1;
        ++literals[c];
    }
    std::vector<uint32_t> perm(bc.count, UINT32_MAX);
    uint32_t n = 0, listed = 0;
    for (uint32_t c = 0; c < bc.count; ++c)
        if (state[c] == 1 && n < kMaxOneByteClasses && listed + literals[c] <= kMaxOneByteLiterals) {
            perm[c] = n++;
            listed += literals[c];
        }
    uint32_t next = n;
    for (uint32_t c = 0; c < bc.count; ++c)
        if (perm[c] == UINT32_MAX) perm[c] = next++;
    for (uint8_t &m : bc.map) m = static_cast<uint8_t>(perm[m]);
    return n;
}

uint32_t find_child(const std::vector<std::pair<uint8_t, uint32_t>> &k, uint8_t c) {
    auto it = std::lower_bound(k.begin(), k.end(), std::make_pair(c, uint32_t{0}));
    return (it != k.end() && it->first == c) ? it->second : UINT32_MAX;
}

// fold: every pattern's key is walked case-insensitively (classes as if all
// were nocase); else each pattern's own nocase flag decides.
Automaton build_group(const std::vector<Literal> &pats, const std::vector<uint32_t> &ids, bool fold,
                      uint32_t key_bytes) {
    Automaton a;
    a.fold = fold;
    std::vector<const Literal *> lp;
    std::vector<Literal> folded; // fold: nocase copies of the patterns, for the classes
    if (fold) {
        folded.reserve(ids.size());
        for (uint32_t id : ids) folded.push_back(Literal{pats[id].bytes, true});
        for (const Literal &l : folded) lp.push_back(&l);
    } else {
        for (uint32_t id : ids) lp.push_back(&pats[id]);
    }
    a.bc = compute_byte_classes(lp, key_bytes);
    a.one_byte_classes = number_one_byte_classes(pats, ids, fold, a.bc);
    a.num_patterns = static_cast<uint32_t>(ids.size());
    Trie t;
    for (uint32_t id : ids) {
        t.insert(pats[id].bytes, key_bytes, a.bc, id);
        a.key_len = std::max<uint32_t>(a.key_len, std::min<uint32_t>(key_bytes, pats[id].bytes.size()));
    }
    // BFS renumbering, children in class order.
    const size_t n = t.kids.size();
    std::vector<uint32_t> order{0}, newid(n);
    order.reserve(n);
    for (size_t i = 0; i < order.size(); ++i) {
        auto &k = t.kids[order[i]];
        std::sort(k.begin(), k.end());
        for (auto &e : k) order.push_back(e.second);
    }
    for (size_t i = 0; i < n; ++i) newid[order[i]] = static_cast<uint32_t>(i);
    a.kids.resize(n);
    std::vector<std::vector<uint32_t>> own(n);
    for (size_t i = 0; i < n; ++i) {
        for (auto &e : t.kids[order[i]]) a.kids[i].push_back({e.first, newid[e.second]});
        own[i] = std::move(t.own[order[i]]);
        std::sort(own[i].begin(), own[i].end());
    }
    // Breadth-first ids grow with depth: depth_end[d] counts the states of depth <= d.
    std::vector<uint32_t> depth(n, 0);
    for (size_t i = 0; i < n; ++i)
        for (auto &e : a.kids[i]) depth[e.second] = depth[i] + 1;
    a.depth_end.assign(a.key_len + 1, 0);
    for (size_t i = 0; i < n; ++i) a.depth_end[depth[i]] = static_cast<uint32_t>(i + 1);
    for (uint32_t d = 1; d <= a.key_len; ++d) a.depth_end[d] = std::max(a.depth_end[d], a.depth_end[d - 1]);
    // Failure links and flattened outputs, in BFS order (fail[s] < s).
    a.fail.assign(n, 0);
    for (uint32_t s = 0; s < n; ++s) {
        for (auto &e : a.kids[s]) {
            uint32_t f = 0;
            if (s != 0) {
                f = a.fail[s];
                uint32_t c;
                while ((c = find_child(a.kids[f], e.first)) == UINT32_MAX && f != 0) f = a.fail[f];
                f = (c == UINT32_MAX) ? 0 : c;
            }
            a.fail[e.second] = f;
        }
        const size_t before = a.out_ids.size();
        if (s != 0) {
            const uint32_t f = a.fail[s];
            // copy first: out_ids may reallocate while inserting.
            std::vector<uint32_t> inh(a.out_ids.begin() + a.out_off[f], a.out_ids.begin() + a.out_off[f + 1]);
            std::merge(own[s].begin(), own[s].end(), inh.begin(), inh.end(), std::back_inserter(a.out_ids));
        }
        (void)before;
        a.out_off.push_back(static_cast<uint32_t>(a.out_ids.size()));
    }
    return a;
}

// Per state, the longest key (pattern length capped at key_len) among its
// outputs, saturated at kMaxKeySaturated; 0 without outputs.
std::vector<uint8_t> max_output_keys(const Automaton &a, const std::vector<uint32_t> &len, uint32_t key_len) {
    std::vector<uint8_t> mk(a.out_off.size() - 1, 0);
    for (size_t s = 0; s + 1 < a.out_off.size(); ++s)
        for (uint32_t k = a.out_off[s]; k < a.out_off[s + 1]; ++k) {
            const uint32_t key = std::min({len[a.out_ids[k]], key_len, kMaxKeySaturated});
            mk[s] = std::max<uint8_t>(mk[s], static_cast<uint8_t>(key));
        }
    return mk;
}

// Appends sections at aligned offsets. Copied in, not zero-filled first: the
// full ET set's 130 MB of dense rows were cleared, copied and then moved
// again when the buffer doubled (compile_ac reserves for them).
struct Writer {
    std::vector<uint8_t> buf;
    uint64_t put(const void *p, size_t bytes, size_t align = 16) {
        buf.resize((buf.size() + align - 1) & ~(align - 1), 0);
        const uint64_t off = buf.size();
        const auto *b = static_cast<const uint8_t *>(p);
        buf.insert(buf.end(), b, b + bytes);
        return off;
    }
    template <typename T> uint64_t put_vec(const std::vector<T> &v) { return put(v.data(), v.size() * sizeof(T)); }
    // A zeroed section to fill in place (valid until the next put).
    uint64_t put_zeros(size_t bytes, size_t align = 16) {
        buf.resize((buf.size() + align - 1) & ~(align - 1), 0);
        const uint64_t off = buf.size();
        buf.resize(off + bytes, 0);
        return off;
    }
};


// out_ids with kOutCheck on patterns whose match end can fail a check: an
// offset/depth bound, leading bytes before the key, or exact case (kPatExact
// in boff) that the case history cannot hold; kOutCase on the other
// exact-case ones. A match of a key of length L ends at >= L in its segment,
// so lo == L needs no check.
std::vector<uint32_t> flag_checked_outputs(const std::vector<uint32_t> &ids, const std::vector<uint32_t> &lo,
                                           const std::vector<uint32_t> &hi, const std::vector<uint32_t> &len,
                                           const std::vector<uint32_t> &boff, uint32_t key_len) {
    std::vector<uint32_t> out(ids);
    const bool history = key_len <= kCaseHistoryBytes;
    for (uint32_t &p : out) {
        const bool exact = (boff[p] & kPatExact) != 0;
        if (lo[p] != len[p] || hi[p] != UINT32_MAX || len[p] > key_len || (exact && !history)) p |= kOutCheck;
        if (exact && history) p |= kOutCase;
    }
    return out;
}

// pat_case: per pattern (mask, value) over its key, bit k for byte len - 1 - k:
// the letters and their bit 5 (case). Zero unless exact and the keys fit the
// case history.
std::vector<uint32_t> case_masks(const std::vector<Literal> &pats, const std::vector<uint32_t> &boff,
                                 uint32_t key_len) {
    std::vector<uint32_t> out(2 * pats.size(), 0);
    if (key_len > kCaseHistoryBytes) return out; // kOutCheck compares every byte instead
    for (size_t i = 0; i < pats.size(); ++i) {
        if (!(boff[i] & kPatExact)) continue;
        const std::string &b = pats[i].bytes;
        const size_t n = std::min<size_t>({b.size(), key_len, kCaseHistoryBytes});
        for (size_t k = 0; k < n; ++k) {
            const uint8_t c = static_cast<uint8_t>(b[b.size() - 1 - k]);
            if (!is_alpha(c)) continue;
            out[2 * i] |= 1u << k;
            out[2 * i + 1] |= static_cast<uint32_t>((c >> 5) & 1u) << k;
        }
    }
    return out;
}

struct SparseRecords {
    std::vector<uint32_t> rec;  // kSpRecordWords per sparse state
    std::vector<uint32_t> over; // entries of records with more than kSpInline
};

// Records of states [nd, n): each lists the classes whose target differs from
// the row of its dense fallback d (first dense state on the failure chain).
// With fail(s) sparse, d(s) = d(fail(s)) and s's differences are fail(s)'s
// plus its own children (a child is deeper than any target of d, so it always
// differs); BFS order (fail[s] < s) has fail(s)'s list ready.
// tgt(t): state t's id with the output flag `flag` when t has outputs (and
// `plain` when none is checked);
// dense(k): entry k of the dense rows (flagged targets), C classes per row.
// plain: the plain flag of the state width (set only with `flag`).
template <typename TargetFn, typename DenseFn>
SparseRecords build_sparse_records(const Automaton &a, uint32_t nd, TargetFn tgt, uint32_t flag, uint32_t plain,
                                   DenseFn dense, uint32_t C) {
    auto entry = [flag, plain](uint32_t cls, uint32_t t) {
        // A sparse entry has no kOneByteOnly32: such a target is a plain hit there.
        return (cls << 24) | (t & ~(flag | plain) & kSpIdMask) | ((t & flag) ? kSpFlag : 0) |
               ((t & (plain | kOneByteOnly32)) ? kSpPlain : 0);
    };
    const uint32_t n = static_cast<uint32_t>(a.kids.size());
    std::vector<std::vector<uint32_t>> diff(n - nd); // entries sorted by class
    std::vector<uint32_t> fallback(n - nd);
    SparseRecords out;
    out.rec.reserve(size_t{n - nd} * kSpRecordWords);
    for (uint32_t s = nd; s < n; ++s) {
        const uint32_t f = a.fail[s];
        std::map<uint32_t, uint32_t> m; // class -> entry
        if (f >= nd)
            for (uint32_t e : diff[f - nd]) m[e >> 24] = e;
        fallback[s - nd] = f >= nd ? fallback[f - nd] : f;
        for (auto &k : a.kids[s]) {
            m[k.first] = entry(k.first, tgt(k.second));
        }
        auto &d = diff[s - nd];
        for (auto &kv : m) d.push_back(kv.second);
        uint32_t w[kSpRecordWords];
        w[0] = fallback[s - nd];
        if (d.size() <= kSpInline) {
            w[0] |= static_cast<uint32_t>(d.size()) << 24;
            // Padding repeats a real entry (an empty record: the true class-0
            // step, which is d's), so the walk can test every slot.
            const uint32_t pad = d.empty() ? entry(0, dense(size_t{fallback[s - nd]} * C)) : d[0];
            for (uint32_t k = 0; k < kSpInline; ++k) w[1 + k] = k < d.size() ? d[k] : pad;
        } else {
            w[0] |= kSpOverflow << 24;
            w[1] = static_cast<uint32_t>(out.over.size());
            w[2] = static_cast<uint32_t>(d.size());
            for (uint32_t k = 3; k < kSpRecordWords; ++k) w[k] = 0;
            out.over.insert(out.over.end(), d.begin(), d.end());
        }
        out.rec.insert(out.rec.end(), w, w + kSpRecordWords);
    }
    return out;
}

// The dense rows of states [0, nd), one entry per column of `cols`, into
// `rows` (state width S): a state's row is its failure state's with its own
// children over it, a child on class k in every column of class k.
template <typename S, typename TargetFn>
void fill_dense_rows(const Automaton &a, uint32_t nd, const ColumnPlan &cols, TargetFn tgt, S *rows) {
    const uint32_t C = cols.columns();
    std::vector<std::vector<uint32_t>> columns_of(a.bc.count);
    for (uint32_t col = 0; col < cols.col_class.size(); ++col) columns_of[cols.col_class[col]].push_back(col);
    for (uint32_t s = 0; s < nd; ++s) {
        S *row = rows + uint64_t{s} * C;
        if (s != 0) std::memcpy(row, rows + uint64_t{a.fail[s]} * C, C * sizeof(S));
        for (auto &e : a.kids[s])
            for (uint32_t col : columns_of[e.first]) row[col] = static_cast<S>(tgt(e.second));
    }
}

} // namespace

ByteClasses compute_byte_classes(const std::vector<const Literal *> &patterns, uint32_t key_bytes) {
    // Distinct effective byte sets, each a 256-bit mask; a byte's signature is
    // the list of sets containing it.
    std::map<std::array<uint64_t, 4>, uint32_t> sets;
    for (const Literal *p : patterns)
        for (size_t i = p->bytes.size() > key_bytes ? p->bytes.size() - key_bytes : 0; i < p->bytes.size(); ++i) {
            const unsigned char c = static_cast<unsigned char>(p->bytes[i]);
            std::array<uint64_t, 4> m{};
            m[c >> 6] |= uint64_t{1} << (c & 63);
            if (p->nocase && is_alpha(c)) {
                uint8_t o = other_case(c);
                m[o >> 6] |= uint64_t{1} << (o & 63);
            }
            sets.emplace(m, 0);
        }
    std::map<std::vector<uint32_t>, uint8_t> sig_class;
    ByteClasses bc;
    for (int b = 0; b < 256; ++b) {
        std::vector<uint32_t> sig;
        uint32_t i = 0;
        for (auto &kv : sets) {
            if (kv.first[b >> 6] >> (b & 63) & 1) sig.push_back(i);
            ++i;
        }
        auto it = sig_class.find(sig);
        if (it == sig_class.end()) it = sig_class.emplace(sig, static_cast<uint8_t>(bc.count++)).first;
        bc.map[b] = it->second;
    }
    return bc;
}

AcBlob compile_ac(const std::vector<Literal> &pats, const AcCompileOptions &opts) {
    const bool folded = opts.case_groups == CaseGroups::Folded;
    std::vector<uint32_t> cs, nc;
    uint32_t max_len = 0;
    for (uint32_t i = 0; i < pats.size(); ++i) {
        const auto &p = pats[i];
        if (p.bytes.empty()) throw std::invalid_argument("pattern " + std::to_string(i) + " is empty");
        if (p.bytes.size() > 65535)
            throw std::invalid_argument("pattern " + std::to_string(i) + " is longer than 65535 bytes");
        if (i > kOutIdMask) throw std::invalid_argument("more than " + std::to_string(kOutIdMask + 1ull) + " patterns");
        (p.nocase && has_alpha(p.bytes) ? nc : cs).push_back(i);
        max_len = std::max<uint32_t>(max_len, static_cast<uint32_t>(p.bytes.size()));
    }
    const uint32_t K = std::max<uint32_t>(1, opts.key_bytes);
    std::vector<Automaton> groups;
    if (folded) {
        std::vector<uint32_t> all(pats.size());
        for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
        // Fold only when some pattern is nocase with letters; otherwise the
        // one group keeps exact classes and needs no case confirmations.
        if (!all.empty()) groups.push_back(build_group(pats, all, !nc.empty(), K));
    } else {
        if (!cs.empty()) groups.push_back(build_group(pats, cs, false, K));
        if (!nc.empty()) groups.push_back(build_group(pats, nc, true, K));
    }
    const bool exact_case = folded && !nc.empty(); // case-sensitive letters walked folded

    uint32_t max_states = 0;
    for (auto &g : groups) max_states = std::max<uint32_t>(max_states, static_cast<uint32_t>(g.kids.size()));
    if (max_states > kMaxGroupStates)
        throw std::invalid_argument("the automaton needs " + std::to_string(max_states) + " states in one group; at most " +
                                    std::to_string(kMaxGroupStates) + " fit the blob (split the rule set)");
    const uint32_t sb = max_states < 16384 ? 2 : 4; // top two bits: output and plain flags
    const uint32_t flag = sb == 2 ? kOutFlag16 : kOutFlag32, plain = sb == 2 ? kOutPlain16 : kOutPlain32;

    AcBlob blob;
    Writer w;
    BlobHeader h{};
    h.magic = kBlobMagic;
    h.version = kBlobVersion;
    h.num_patterns = static_cast<uint32_t>(pats.size());
    h.num_groups = static_cast<uint32_t>(groups.size());
    h.state_bytes = sb;
    h.max_len = max_len;
    h.key_len = std::min(K, max_len);
    const size_t budget = groups.empty() ? 0 : opts.dense_budget_bytes / groups.size();
    auto dense_states = [&](const Automaton &a, uint32_t C) { // the BFS-first states that get dense rows
        const uint64_t n = a.kids.size();
        return static_cast<uint32_t>(std::clamp<uint64_t>(budget / (uint64_t{C} * sb), 1, std::min<uint64_t>(n, kSpDenseMask + 1)));
    };
    // One-byte classes serve the Set walk of one group of 32-bit states (the
    // flag needs a spare bit); elsewhere the literals stay ordinary outputs.
    // Such a group, folded and all dense, may split exact-case letter
    // classes into case columns (ac_case_columns.h): a sparse record lists
    // classes, not columns.
    const bool one_byte_group = groups.size() == 1 && sb == 4;
    std::vector<ColumnPlan> cols;
    for (const Automaton &a : groups) {
        cols.push_back(identity_columns(a.bc.map, a.bc.count, one_byte_group ? a.one_byte_classes : 0));
        if (!one_byte_group || !a.fold || !opts.case_columns) continue;
        std::vector<OneByteLiteral> lits;
        uint32_t listed = 0;
        for (const Literal &p : pats) // the group's patterns are all of them
            if (p.bytes.size() == 1) {
                const auto b = static_cast<uint8_t>(p.bytes[0]);
                lits.push_back({b, p.nocase, p.offset != 0 || p.depth != 0});
                listed += a.bc.map[b] < a.one_byte_classes;
            }
        ColumnPlan split = plan_case_columns(a.bc.map, a.bc.count, a.one_byte_classes, listed, lits);
        if (split.split_classes && dense_states(a, split.columns()) == a.kids.size()) cols.back() = std::move(split);
    }
    // A layout study: sparse records list classes, and a column id is a uint8.
    for (size_t gi = 0; gi < cols.size() && (opts.column_shift || opts.pad_columns); ++gi) {
        const uint32_t C = cols[gi].columns() + opts.pad_columns;
        if (C > 256 || dense_states(groups[gi], C) < groups[gi].kids.size())
            throw std::invalid_argument("column_shift / pad_columns need every state dense and at most 256 columns");
        cols[gi] = shift_and_pad_columns(std::move(cols[gi]), opts.column_shift, opts.pad_columns);
    }
    const bool one_byte = one_byte_group && cols[0].one_byte_columns > 0;
    h.byte_classes = one_byte ? cols[0].one_byte_columns : 0;
    w.put(&h, sizeof h);
    std::vector<GroupHeader> gh(groups.size());
    const uint64_t gh_off = w.put(gh.data(), gh.size() * sizeof(GroupHeader));

    std::vector<uint32_t> lo(pats.size()), hi(pats.size()), len(pats.size()), boff(pats.size());
    std::string all_bytes;
    for (size_t i = 0; i < pats.size(); ++i) {
        const uint64_t L = pats[i].bytes.size(), off = pats[i].offset, d = pats[i].depth;
        len[i] = static_cast<uint32_t>(L);
        const bool exact = exact_case && !pats[i].nocase && has_alpha(pats[i].bytes);
        boff[i] = static_cast<uint32_t>(all_bytes.size()) | (exact ? kPatExact : 0u);
        if (L > K || exact) all_bytes += pats[i].bytes; // only these are verified
        lo[i] = static_cast<uint32_t>(std::min<uint64_t>(off + L, UINT32_MAX));
        hi[i] = d == 0 ? UINT32_MAX : static_cast<uint32_t>(std::min<uint64_t>(off + d, UINT32_MAX));
    }
    h.pat_lo_off = w.put_vec(lo);
    h.pat_hi_off = w.put_vec(hi);
    h.pat_len_off = w.put_vec(len);
    h.pat_boff_off = w.put_vec(boff);
    h.pat_bytes_off = w.put(all_bytes.data(), all_bytes.size());
    h.pat_case_off = w.put_vec(case_masks(pats, boff, h.key_len));

    size_t reserve = w.buf.size(); // the dense rows and every per-state section, one buffer
    for (size_t gi = 0; gi < groups.size(); ++gi)
        reserve += uint64_t{dense_states(groups[gi], cols[gi].columns())} * cols[gi].columns() * sb +
                   groups[gi].kids.size() * (kSpRecordWords * 4 + 16) + groups[gi].out_ids.size() * 4 + 4096;
    w.buf.reserve(reserve);
    RunWindow run_window; // over every group's run targets
    for (size_t gi = 0; gi < groups.size(); ++gi) {
        Automaton &a = groups[gi];
        const ColumnPlan &cp = cols[gi];
        const uint32_t n = static_cast<uint32_t>(a.kids.size()), C = cp.columns();
        const uint32_t nd = dense_states(a, C);
        // Flagged target: the walk skips out_off for states without outputs,
        // and the Set kernel repeats of states whose outputs need no check.
        std::vector<uint32_t> out_ids = flag_checked_outputs(a.out_ids, lo, hi, len, boff, h.key_len);
        // The one-byte literals the Set walk reports from its register
        // (unchecked_one_byte, or exact case in a case column: kOutCase
        // stays for Count and Positions), flagged so that the Set drain
        // skips them where they share a state with others; listed by column
        // for the key pass.
        std::vector<bool> by_register(pats.size(), false);
        std::vector<uint32_t> lits_by_column;
        if (one_byte) {
            std::vector<std::vector<uint32_t>> of(kMaxOneByteClasses);
            for (size_t p = 0; p < pats.size(); ++p) {
                const uint32_t col = pats[p].bytes.size() == 1 ? cp.map[static_cast<uint8_t>(pats[p].bytes[0])] : C;
                by_register[p] = col < cp.one_byte_columns;
                if (by_register[p]) of[col].push_back(static_cast<uint32_t>(p));
            }
            lits_by_column.push_back(0); // first[c], then the ids
            for (auto &v : of) lits_by_column.push_back(lits_by_column.back() + static_cast<uint32_t>(v.size()));
            for (auto &v : of) lits_by_column.insert(lits_by_column.end(), v.begin(), v.end());
            for (uint32_t &e : out_ids)
                if (by_register[e & kOutIdMask]) e |= kOutOneByte;
        }
        std::vector<uint32_t> flagged(n); // each state's id with its flags, once
        const std::vector<bool> run_string = run_string_states(a.kids);
        uint64_t run_targets = 0;
        for (uint32_t t = 0; t < n; ++t) {
            const uint32_t ob = a.out_off[t], oe = a.out_off[t + 1];
            // The plain flag serves the Set walk only, whose drain skips the
            // register's literals (an exact-case one of a case column too).
            const bool checked = std::any_of(out_ids.begin() + ob, out_ids.begin() + oe, [](uint32_t e) {
                return (e & (kOutCheck | kOutCase)) != 0 && !(e & kOutOneByte);
            });
            const bool registered = one_byte && std::all_of(out_ids.begin() + ob, out_ids.begin() + oe, [&](uint32_t e) {
                                        return by_register[e & kOutIdMask];
                                    });
            // A target the Set walk takes no hit for is not plain either, so
            // it leaves the walk's last plain target alone (set_reports_hit).
            flagged[t] = oe == ob ? t : t | flag | (checked || registered ? 0u : plain) | (registered ? kOneByteOnly32 : 0u);
            if (opts.run_steps && sb == 4 && checked && !registered && run_string[t]) { // a run target (ac_blob.h)
                flagged[t] |= kRunStep32;
                ++run_targets;
                for (uint32_t k = ob; k < oe; ++k)
                    if (!(out_ids[k] & kOutOneByte)) run_window.add(len[out_ids[k] & kOutIdMask], lo[out_ids[k] & kOutIdMask]);
            }
        }
        auto tgt = [&](uint32_t t) { return flagged[t]; };
        GroupHeader &g = gh[gi];
        g.class_map_off = w.put(cp.map.data(), 256);
        if (one_byte) h.one_byte_off = w.put_vec(lits_by_column);
        // Built in place: the full ET set's rows are 130 MB.
        g.dense_off = w.put_zeros(uint64_t{nd} * C * sb);
        uint8_t *rows = w.buf.data() + g.dense_off;
        if (sb == 2) fill_dense_rows(a, nd, cp, tgt, reinterpret_cast<uint16_t *>(rows));
        else fill_dense_rows(a, nd, cp, tgt, reinterpret_cast<uint32_t *>(rows));
        // Covered steps need every state dense: a sparse step falls back to
        // another state's row, whose flags speak of that state's outputs.
        const uint64_t covered =
            opts.covered_steps && sb == 4 && nd == n ? mark_covered_steps(reinterpret_cast<uint32_t *>(rows), nd, C, a.out_off, out_ids) : 0;
        auto dense = [&](size_t k) -> uint32_t {
            return sb == 2 ? reinterpret_cast<const uint16_t *>(rows)[k] : reinterpret_cast<const uint32_t *>(rows)[k];
        };
        SparseRecords sp = build_sparse_records(a, nd, tgt, flag, plain, dense, C);
        g.num_states = n;
        g.num_classes = C;
        g.num_dense = nd;
        g.fold = a.fold;
        g.key_len = a.key_len;
        g.num_outputs = static_cast<uint32_t>(a.out_ids.size());
        g.num_sparse_overflow = static_cast<uint32_t>(sp.over.size());
        g.num_patterns = a.num_patterns;
        g.out_off_off = w.put_vec(a.out_off);
        g.out_ids_off = w.put_vec(out_ids);
        g.sp_rec_off = w.put(sp.rec.data(), sp.rec.size() * sizeof(uint32_t), kSpRecordWords * sizeof(uint32_t)); // a record never straddles a sector
        g.sp_over_off = w.put_vec(sp.over);
        g.depth_end_off = w.put_vec(a.depth_end);
        g.max_key_off = w.put_vec(max_output_keys(a, len, h.key_len));

        AcGroupStats st;
        st.states = n;
        st.classes = C;
        st.dense_states = nd;
        st.patterns = a.num_patterns;
        st.key_len = a.key_len;
        st.fold = a.fold;
        st.dense_bytes = uint64_t{nd} * C * sb;
        st.sparse_bytes = (sp.rec.size() + sp.over.size()) * sizeof(uint32_t);
        st.output_entries = a.out_ids.size();
        st.covered_steps = covered;
        st.run_targets = run_targets;
        st.one_byte_columns = one_byte ? cp.one_byte_columns : 0;
        st.case_split_classes = cp.split_classes;
        blob.groups.push_back(st);
    }
    w.buf.resize((w.buf.size() + 15) & ~size_t{15}, 0);
    h.total_bytes = w.buf.size();
    h.run_window = run_window.window;
    h.run_min_end = run_window.min_end;
    std::memcpy(w.buf.data(), &h, sizeof h);
    std::memcpy(w.buf.data() + gh_off, gh.data(), gh.size() * sizeof(GroupHeader));
    blob.bytes = std::move(w.buf);
    return blob;
}

std::string AcBlob::describe() const {
    std::ostringstream o;
    const BlobHeader &h = header();
    o << "aho-corasick: " << h.num_patterns << " patterns, " << h.num_groups << " group(s), "
      << h.state_bytes * 8 << "-bit states, key " << h.key_len << " B (longest " << h.max_len
      << " B), blob " << h.total_bytes << " B";
    for (auto &g : groups)
        o << "; [" << (!g.fold ? "case" : groups.size() == 1 ? "folded" : "nocase") << ": " << g.patterns << " pats, " << g.states
          << " states, " << g.classes << " classes, dense " << g.dense_states << " states/"
          << g.dense_bytes << " B, sparse " << (g.states - g.dense_states) << " states/" << g.sparse_bytes
          << " B, " << g.output_entries << " outputs, " << g.covered_steps << " covered steps, " << g.run_targets << " run targets, " << g.one_byte_columns
          << " one-byte columns (" << g.case_split_classes << " classes split by case)]";
    return o.str();
}

} // namespace wm::gpu
