// gpu/align/sw_hd.h - Smith-Waterman logic shared by the CPU references and the
// CUDA kernels (compiled by g++ and nvcc alike).
//
// Recurrence (SEEDS.md §4, gap of length k costs Gs + k*Ge):
//   E[i][j] = max(E[i][j-1], H[i][j-1] - Gs) - Ge        (gap along the database)
//   F[i][j] = max(F[i-1][j], H[i-1][j] - Gs) - Ge        (gap along the query)
//   H[i][j] = max(H[i-1][j-1] + S(q_i, d_j), E, F, 0)
// Rows are query positions i, columns database positions j.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define WM_ALIGN_HD __host__ __device__ __forceinline__
#else
#define WM_ALIGN_HD inline
#endif

namespace wm::align::detail {

// Codes: database bytes are 0..255; kDbPad fills the columns past a section's
// end; kQueryPad fills the query rows above the real query (it never equals a
// database code, so with mismatch <= 0 those rows stay all-zero, i.e. they act
// as the zero top boundary).
constexpr uint32_t kDbPad = 0x100;
constexpr uint32_t kQueryPad = 0x1FF;
constexpr int kPadScore = -8192; // matrix scorer: score of a query pad row

// ---- one cell, plain ints (reference, row-parallel, traceback) ----------
struct CellIn {
    int diag; // H[i-1][j-1]
    int left_h, left_e; // H[i][j-1], E[i][j-1]
    int up_h, up_f;     // H[i-1][j], F[i-1][j]
};
struct CellOut {
    int h, e, f;
    uint8_t dir;
};

// Direction byte of a cell, the one tie-break every traceback uses:
//   bits 0-1: where H came from: 0 stop (H == 0), 1 diagonal, 2 up (F), 3 left (E)
//   bit 2: E opened here from H[i][j-1] (else extended E[i][j-1])
//   bit 3: F opened here from H[i-1][j] (else extended F[i-1][j])
//   bit 4: query and database symbols are equal
enum : uint8_t { kStop = 0, kDiag = 1, kUp = 2, kLeft = 3, kEOpen = 4, kFOpen = 8, kEq = 16 };

WM_ALIGN_HD int imax(int a, int b) { return a > b ? a : b; }

WM_ALIGN_HD uint8_t cell_direction(int h, int diag_s, int e, int f, int left_h, int up_h, int gs, int ge,
                                   bool eq) {
    uint8_t d = h == 0 ? kStop : h == diag_s ? kDiag : h == f ? kUp : kLeft;
    if (e == left_h - gs - ge) d |= kEOpen;
    if (f == up_h - gs - ge) d |= kFOpen;
    if (eq) d |= kEq;
    return d;
}

WM_ALIGN_HD CellOut sw_cell(const CellIn &c, int s, int gs, int ge, bool eq) {
    CellOut o;
    o.e = imax(c.left_e, c.left_h - gs) - ge;
    o.f = imax(c.up_f, c.up_h - gs) - ge;
    const int ds = c.diag + s;
    o.h = imax(imax(ds, 0), imax(o.e, o.f));
    o.dir = cell_direction(o.h, ds, o.e, o.f, c.left_h, c.up_h, gs, ge, eq);
    return o;
}

// ---- lanes: one int32 or two int16 per register ------------------------
// Lanes16x2 packs two independent problems (two database sections) into the
// halves of one 32-bit register and uses Hopper's DPX instructions; the host
// versions emulate them half by half so the CPU emulation runs the same code.
struct Lanes32 {
    using T = int32_t;
    static constexpr int kWidth = 1;
    static constexpr int32_t kNeg = -(1 << 29);
    WM_ALIGN_HD static T splat(int v) { return v; }
    WM_ALIGN_HD static T add(T a, T b) { return a + b; }
    WM_ALIGN_HD static T addmax(T a, T b, T c) { return imax(a + b, c); }   // max(a+b, c)
    WM_ALIGN_HD static T max3relu(T a, T b, T c) { return imax(imax(a, b), imax(c, 0)); }
    WM_ALIGN_HD static T max2(T a, T b) { return imax(a, b); }
    WM_ALIGN_HD static T max3(T a, T b, T c) { return imax(imax(a, b), c); }
    WM_ALIGN_HD static int get(T v, int) { return v; }
    WM_ALIGN_HD static T eqmask(uint32_t q, uint32_t d) { return q == d ? -1 : 0; }
};

#if !defined(__CUDA_ARCH__)
WM_ALIGN_HD int16_t half_of(uint32_t v, int k) { return (int16_t)(uint16_t)(v >> (16 * k)); }
WM_ALIGN_HD uint32_t pack_halves(int lo, int hi) {
    return (uint32_t)(uint16_t)(int16_t)lo | ((uint32_t)(uint16_t)(int16_t)hi << 16);
}
#endif

struct Lanes16x2 {
    using T = uint32_t;
    static constexpr int kWidth = 2;
    static constexpr int kNegHalf = -16384;
    static constexpr uint32_t kNeg = 0xC000C000u; // -16384 in both halves
    WM_ALIGN_HD static T splat(int v) { return (uint32_t)(uint16_t)(int16_t)v * 0x10001u; }
    WM_ALIGN_HD static int get(T v, int k) { return (int16_t)(uint16_t)(v >> (16 * k)); }
#if defined(__CUDA_ARCH__)
    __device__ static T add(T a, T b) { return __vadd2(a, b); }
    __device__ static T addmax(T a, T b, T c) { return __viaddmax_s16x2(a, b, c); }
    __device__ static T max3relu(T a, T b, T c) { return __vimax3_s16x2_relu(a, b, c); }
    __device__ static T max2(T a, T b) { return __vmaxs2(a, b); }
    __device__ static T max3(T a, T b, T c) { return __vimax3_s16x2(a, b, c); }
    __device__ static T eqmask(uint32_t q, uint32_t d) { return __vcmpeq2(q, d); }
#else
    static T add(T a, T b) { return pack_halves(half_of(a, 0) + half_of(b, 0), half_of(a, 1) + half_of(b, 1)); }
    static T addmax(T a, T b, T c) {
        const T s = add(a, b);
        return pack_halves(imax(half_of(s, 0), half_of(c, 0)), imax(half_of(s, 1), half_of(c, 1)));
    }
    static T max2(T a, T b) {
        return pack_halves(imax(half_of(a, 0), half_of(b, 0)), imax(half_of(a, 1), half_of(b, 1)));
    }
    static T max3(T a, T b, T c) { return max2(max2(a, b), c); }
    static T max3relu(T a, T b, T c) { return max2(max3(a, b, c), 0u); }
    static T eqmask(uint32_t q, uint32_t d) {
        return ((q & 0xFFFFu) == (d & 0xFFFFu) ? 0xFFFFu : 0u) | ((q >> 16) == (d >> 16) ? 0xFFFF0000u : 0u);
    }
#endif
};

// ---- substitution scores ------------------------------------------------
// Match/mismatch: a select on equality, two instructions per register.
template <class L> struct MatchScorer {
    typename L::T match_pair, diff_pair; // diff = match ^ mismatch
    typename L::T mismatch_pair;
    WM_ALIGN_HD static MatchScorer make(int match, int mismatch) {
        MatchScorer s;
        s.match_pair = L::splat(match);
        s.mismatch_pair = L::splat(mismatch);
        s.diff_pair = s.match_pair ^ s.mismatch_pair;
        return s;
    }
    // q: query code in every lane; d: database code per lane.
    WM_ALIGN_HD typename L::T operator()(uint32_t q, uint32_t d) const {
        return (L::eqmask(q, d) & diff_pair) ^ mismatch_pair;
    }
};

// Substitution matrix of 256 x 256 int8 scores, matrix[q * 256 + d]; query pad
// rows score kPadScore; database pad columns use d & 255 (never reported).
template <class L> struct MatrixScorer {
    const int8_t *matrix;
    WM_ALIGN_HD static int one(const int8_t *m, uint32_t q, uint32_t d) {
        return q >= 256 ? kPadScore : m[q * 256 + (d & 255)];
    }
    WM_ALIGN_HD typename L::T operator()(uint32_t q, uint32_t d) const {
        if (L::kWidth == 1) return (typename L::T)one(matrix, q & 0xFFFF, d);
        const int lo = one(matrix, q & 0xFFFF, d & 0xFFFF), hi = one(matrix, q >> 16, d >> 16);
        return (typename L::T)((uint32_t)(uint16_t)(int16_t)lo | ((uint32_t)(uint16_t)(int16_t)hi << 16));
    }
};

// ---- one thread of the wavefront: R query rows, one database column -----
// h[r], e[r] hold H and E of the thread's rows at the previous column. up_h
// arrives with H of the row above this thread's first row (this column) and
// leaves with H of its last row; up_f arrives with F of the first row (already
// computed by the thread above; -Gs-Ge for row 0) and leaves with F of the row
// below the last. diag holds H of the row above at the previous column. cmax
// accumulates the column maximum.
template <class L, int R, class Scorer>
WM_ALIGN_HD void wavefront_column(typename L::T (&h)[R], typename L::T (&e)[R], const uint32_t (&q)[R],
                                  uint32_t d, typename L::T &up_h, typename L::T &up_f,
                                  typename L::T &diag, typename L::T &cmax, typename L::T neg_ge,
                                  typename L::T neg_gsge, const Scorer &score) {
    using T = typename L::T;
    T hd = diag;
    diag = up_h;
    T f = up_f;
    T cm = cmax;
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const T hl = h[r];
        const T en = L::addmax(e[r], neg_ge, L::add(hl, neg_gsge));
        const T hn = L::max3relu(L::add(hd, score(q[r], d)), en, f);
        f = L::addmax(f, neg_ge, L::add(hn, neg_gsge));
        hd = hl;
        h[r] = hn;
        e[r] = en;
        if (r & 1) cm = L::max3(cm, hn, h[r - 1]);
    }
    if (R & 1) cm = L::max2(cm, h[R - 1]);
    cmax = cm;
    up_h = h[R - 1];
    up_f = f;
}

// ---- traceback: one lane's R query rows of one window column -------------
// The warp schedule of the traceback kernel (and its CPU emulation): h[r],
// e[r] hold H and E of the lane's rows at the previous column; up_h/up_f
// arrive with H and F of the row above (this column) and leave with those of
// the lane's last row; diag holds H of the row above at the previous column.
// score(q, d) is the substitution score; dirs[r] gets each cell's direction.
template <int R, class Score>
WM_ALIGN_HD void trace_column(int (&h)[R], int (&e)[R], const uint32_t (&q)[R], uint32_t d, int &up_h, int &up_f,
                              int &diag, uint8_t (&dirs)[R], int gs, int ge, const Score &score) {
    int hd = diag;
    diag = up_h;
#pragma unroll
    for (int r = 0; r < R; ++r) {
        const CellOut o = sw_cell(CellIn{hd, h[r], e[r], up_h, up_f}, score(q[r], d), gs, ge, q[r] == d);
        hd = h[r];
        h[r] = o.h;
        e[r] = o.e;
        up_h = o.h;
        up_f = o.f;
        dirs[r] = o.dir;
    }
}

// Lanes of the traceback (one block per hit): 4 warps for queries past 128
// rows, so each lane's serial chain down its rows stays short, else 1 warp;
// rows per lane: the smallest power of two with lanes * R >= m.
WM_ALIGN_HD int trace_lanes(uint32_t m) { return m > 128 ? 128 : 32; }
WM_ALIGN_HD int trace_rows_per_lane(uint32_t m) {
    int r = 1;
    while ((uint32_t)(trace_lanes(m) * r) < m) r *= 2;
    return r;
}

// Direction bytes as the traceback kernel stores them: column by column, lane
// by lane, the R rows of a lane contiguous (one wide store per lane and step).
struct WarpDirs {
    const uint8_t *base;
    int lanes, rows_per_lane;
    WM_ALIGN_HD uint8_t operator()(int i, int j) const {
        return base[((size_t)j * (size_t)lanes + (size_t)(i / rows_per_lane)) * (size_t)rows_per_lane +
                    (size_t)(i % rows_per_lane)];
    }
};

// ---- traceback walk over direction bytes ---------------------------------
// Walks from (i_end, j_end) (window-relative, inclusive) back to the start.
// dir(i, j) returns the direction byte; ops get '=', 'X', 'I' (query only),
// 'D' (database only) written end-first into ops[0..n). Returns n, or -1 when
// max_ops is too small. *i_start/*j_start get the first aligned cell.
template <class DirAt>
WM_ALIGN_HD int traceback_walk(const DirAt &dir, int i_end, int j_end, char *ops, int max_ops,
                               int *i_start, int *j_start) {
    int i = i_end, j = j_end, n = 0, state = kDiag; // state: kDiag (in H), kUp (in F), kLeft (in E)
    int si = i_end, sj = j_end;
    while (i >= 0 && j >= 0) {
        const uint8_t d = dir(i, j);
        if (state == kDiag) {
            const int src = d & 3;
            if (src == kStop) break;
            if (src == kDiag) {
                if (n >= max_ops) return -1;
                ops[n++] = (d & kEq) ? '=' : 'X';
                si = i; sj = j;
                --i; --j;
                continue;
            }
            state = src;
        }
        if (n >= max_ops) return -1;
        if (state == kUp) {
            ops[n++] = 'I';
            si = i; sj = j;
            if (d & kFOpen) state = kDiag;
            --i;
        } else {
            ops[n++] = 'D';
            si = i; sj = j;
            if (d & kEOpen) state = kDiag;
            --j;
        }
    }
    *i_start = si;
    *j_start = sj;
    return n;
}

// ---- the seed's row-parallel algorithm, per column of one row -----------
// F and H~ from the previous row only; E~[j] = max_{k>=1}(H~[j-k] - k*Ge) by a
// max-scan over A[j] = H~[j] + j*Ge; then H = max(H~, E~ - Gs). (E from H~
// equals E from H because an E that reopens from an E-derived H pays Gs twice.)
WM_ALIGN_HD int rowpar_f(int f_up, int h_up, int gs, int ge) { return imax(f_up, h_up - gs) - ge; }
WM_ALIGN_HD int rowpar_htilde(int diag, int s, int f) { return imax(imax(diag + s, f), 0); }
WM_ALIGN_HD int rowpar_h(int htilde, int etilde, int gs) { return imax(htilde, etilde - gs); }

} // namespace wm::align::detail
