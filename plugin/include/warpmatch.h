/*
 * warpmatch.h - the public C API of libwarpmatch.
 *
 * warpmatch finds which signatures (rules) occur in packet payloads, on the
 * GPU when one is usable and with Hyperscan on the CPU otherwise.
 *
 * Lifecycle (re2::RE2::Set style: compile once, then scan many times):
 *
 *   1. wm_ruleset_load_file()   YAML rules -> immutable compiled rule set.
 *                               Share it read-only between any threads.
 *   2. wm_scanner_create()      one scanner per worker thread: scratch space,
 *                               pinned buffers, CUDA streams. Not thread-safe:
 *                               concurrent use returns WM_SCRATCH_IN_USE.
 *   3. wm_scan_batch()          payloads in, matches out through a callback.
 *                               A single payload is a batch of one.
 *      wm_scan_batch_set()      the distinct rules per payload as one array
 *                               (the IDS prefilter's question; fastest path).
 *      wm_scan_batch_set_submit() / _collect()
 *                               the same, pipelined: batch N + 1 is copied to
 *                               the GPU while batch N is still being scanned.
 *   4. wm_scanner_free(), wm_ruleset_free(), in either order: a scanner
 *      keeps the compiled rules it was created from until it is freed.
 *
 * Conventions:
 *   - Every function returns WM_SUCCESS (0) or a negative wm_status code.
 *     Nothing is thrown across this boundary.
 *   - Functions that can fail for reasons worth explaining take a
 *     wm_error_t **err; on failure *err receives an error object (free it
 *     with wm_error_free) naming what went wrong and where (file, line,
 *     column, rule id). Passing err == NULL is allowed.
 *   - Structs passed in or out start with struct_size; set it with the
 *     matching *_init() function so new fields can be appended later without
 *     breaking the ABI.
 *   - Free functions accept NULL.
 */
#ifndef WARPMATCH_H
#define WARPMATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(WM_BUILDING_LIBRARY)
#define WM_API __attribute__((visibility("default")))
#else
#define WM_API
#endif

/* ------------------------------------------------------------------ */
/* Versions                                                             */
/* ------------------------------------------------------------------ */

#define WM_VERSION_MAJOR 0
#define WM_VERSION_MINOR 16
#define WM_VERSION_PATCH 1
/** ABI version: bumped whenever a binary built against an older header
 *  could misbehave with this library: a field moved or removed, a signature
 *  or enum value changed, or a struct grew. A struct that grows changes
 *  what its *_init function writes (the new sizeof), and a binary built
 *  against the older header calls it on the smaller struct, so an appended
 *  field bumps it too (3 since 0.16, for wm_packet_t.tunnel; the appends
 *  of 0.13-0.15 stayed at 2 and should not have). struct_size still tells
 *  the library which fields a caller's struct holds.
 *  The shared library's SONAME is libwarpmatch.so.<WM_ABI_VERSION>: a host
 *  built against another ABI fails to load instead of corrupting memory. */
#define WM_ABI_VERSION 3

/** Runtime version string, e.g. "0.1.0 (abi 1, cuda)". Never NULL. */
WM_API const char *wm_version(void);
/** Runtime ABI version; a host compares it with WM_ABI_VERSION. */
WM_API int wm_abi_version(void);

/* ------------------------------------------------------------------ */
/* Status codes                                                         */
/* ------------------------------------------------------------------ */

typedef enum wm_status {
    /** The call succeeded. */
    WM_SUCCESS = 0,
    /** A parameter was invalid: NULL pointer, zero length, bad enum value,
     *  or a struct_size the library does not know. */
    WM_INVALID = -1,
    /** Memory (host or device) could not be allocated. */
    WM_NOMEM = -2,
    /** A rule file failed validation or compilation; the error object lists
     *  every problem with file:line:column and rule id. */
    WM_RULE_ERROR = -3,
    /** A file could not be opened, read or written. */
    WM_IO_ERROR = -4,
    /** The object is in the wrong state for this call (e.g. polling a
     *  scanner with nothing submitted). */
    WM_BAD_STATE = -5,
    /** The GPU backend was requested but no usable GPU exists; the error
     *  object says why (no device, driver too old, built without CUDA). */
    WM_NO_GPU = -6,
    /** A CUDA call failed during a scan; the message names the call. */
    WM_GPU_ERROR = -7,
    /** The match callback returned non-zero and the scan stopped early. */
    WM_SCAN_TERMINATED = -8,
    /** Cross-check found a GPU result that Hyperscan does not agree with. */
    WM_VERIFY_MISMATCH = -9,
    /** A capture file is truncated or corrupt; everything before the bad
     *  record was delivered. */
    WM_CAPTURE_ERROR = -10,
    /** The scanner is in use by another thread. */
    WM_SCRATCH_IN_USE = -11,
    /** No more packets in a capture (not an error). */
    WM_END = -12,
    /** The CPU engine (Hyperscan) failed during a scan; the message says how. */
    WM_ENGINE_ERROR = -13,
} wm_status;

/** Short constant name of a status code, e.g. "WM_RULE_ERROR". Never NULL. */
WM_API const char *wm_status_name(int status);

/* ------------------------------------------------------------------ */
/* Errors                                                               */
/* ------------------------------------------------------------------ */

/** One problem found in a rule file or input. */
typedef struct wm_diagnostic {
    const char *message; /**< what is wrong, one line                     */
    const char *file;    /**< file name, or "" when not from a file       */
    unsigned line;       /**< 1-based line, 0 when unknown                */
    unsigned column;     /**< 1-based column, 0 when unknown              */
    int64_t rule_id;     /**< rule id, -1 when no single rule is at fault */
} wm_diagnostic_t;

/** Error object returned through wm_error_t **err parameters. */
typedef struct wm_error {
    int code;                           /**< the wm_status returned       */
    const char *message;                /**< all diagnostics, one per line,
                                             "file:line:col: rule N: msg" */
    size_t count;                       /**< number of diagnostics (>= 1) */
    const wm_diagnostic_t *diagnostics; /**< count entries                */
} wm_error_t;

WM_API void wm_error_free(wm_error_t *err);

/* ------------------------------------------------------------------ */
/* Rule sets                                                            */
/* ------------------------------------------------------------------ */

/** Compiled, immutable rule set. Thread-safe for concurrent readers. */
typedef struct wm_ruleset wm_ruleset_t;

/** Load, validate and compile a YAML rule file (schema: docs/rules.md). */
WM_API int wm_ruleset_load_file(const char *path, wm_ruleset_t **out, wm_error_t **err);

/** As wm_ruleset_load_file, from a buffer; name is used in messages. */
WM_API int wm_ruleset_load_string(const char *yaml, size_t len, const char *name,
                                  wm_ruleset_t **out, wm_error_t **err);

WM_API void wm_ruleset_free(wm_ruleset_t *rs);

typedef struct wm_ruleset_info {
    size_t struct_size;
    size_t rules;             /**< number of rules                          */
    size_t nocase_rules;      /**< rules with nocase                        */
    size_t approximate_rules; /**< rules with max_edits / max_mismatches    */
    size_t min_pattern_len;   /**< shortest pattern in bytes                */
    size_t max_pattern_len;   /**< longest pattern in bytes                 */
    char hash[17];            /**< content hash, 16 hex digits + NUL: equal
                                   rule sets give equal hashes              */
    size_t database_bytes;    /**< size of the serialized literal database */
} wm_ruleset_info_t;

WM_API void wm_ruleset_info_init(wm_ruleset_info_t *info);
WM_API int wm_ruleset_info(const wm_ruleset_t *rs, wm_ruleset_info_t *info);

/** Public fields of one rule, for alert output. Strings live as long as rs. */
typedef struct wm_rule_info {
    size_t struct_size;
    uint32_t id;
    const char *msg;
    int severity;
    const char *file; /**< where the rule was defined */
    unsigned line;
} wm_rule_info_t;

WM_API void wm_rule_info_init(wm_rule_info_t *info);
/** Look a rule up by id; WM_INVALID when no such rule. */
WM_API int wm_ruleset_rule(const wm_ruleset_t *rs, uint32_t rule_id, wm_rule_info_t *info);

/**
 * Serialize the compiled CPU database (Hyperscan) into a malloc'ed buffer
 * the caller frees with wm_free(). Equal rule sets give equal bytes. Only
 * the literal rules' database: approximate rules (their own Hyperscan
 * database) and align rules are not in it, and a rule set with no literal
 * rule returns WM_BAD_STATE (database_bytes is then 0).
 */
WM_API int wm_ruleset_serialize(const wm_ruleset_t *rs, char **bytes, size_t *len);
WM_API void wm_free(void *p);

/* ------------------------------------------------------------------ */
/* Importing Suricata / Snort rules                                     */
/* ------------------------------------------------------------------ */

typedef struct wm_import_report {
    size_t struct_size;
    size_t rules_read;        /**< rule lines seen (enabled + disabled)     */
    size_t rules_disabled;    /**< commented-out rules, skipped             */
    size_t rules_imported;    /**< warpmatch rules written                  */
    size_t distinct_patterns; /**< distinct (literal, nocase) pairs         */
    size_t skipped_no_content;
    size_t skipped_negated_only;
    size_t skipped_parse_error;
    size_t skipped_duplicate_sid;
    /** Human-readable lines, one per parse error ("file:line: sid N: reason",
     *  without "sid N: " when the sid is what failed) or duplicate sid
     *  ("file:line: duplicate sid N (first at file:line)"), at most 1000 of
     *  them. Rules with no content or only negated ones are only counted. */
    const char *details;
} wm_import_report_t;

WM_API void wm_import_report_init(wm_import_report_t *report);

/**
 * Convert Suricata / Snort 3 rule files into one warpmatch YAML rule file
 * (one rule per enabled rule with its prefilter literal). report->details
 * stays valid until the next call on the same thread. WM_INVALID, writing
 * nothing, when out_yaml is one of the input files.
 */
WM_API int wm_rules_import(const char *const *files, size_t nfiles, const char *out_yaml,
                           wm_import_report_t *report, wm_error_t **err);

/* ------------------------------------------------------------------ */
/* Scanners                                                             */
/* ------------------------------------------------------------------ */

typedef struct wm_scanner wm_scanner_t;

typedef enum wm_backend {
    WM_BACKEND_AUTO = 0, /**< GPU when usable, else CPU (reason logged) */
    WM_BACKEND_CPU = 1,  /**< Hyperscan on the CPU                      */
    WM_BACKEND_GPU = 2,  /**< GPU or WM_NO_GPU                          */
} wm_backend;

typedef enum wm_output_mode {
    /** Every (rule, payload, end offset): for verification and tools. */
    WM_OUTPUT_POSITIONS = 0,
    /** Distinct rule ids per payload; start/end of the callback are 0. */
    WM_OUTPUT_SET = 1,
    /** Positions on the CPU engine, set on the GPU (where positions would
     *  cost PCIe bandwidth): what an IDS wants by default. */
    WM_OUTPUT_AUTO = 2,
} wm_output_mode;

typedef enum wm_gpu_wait {
    /** Spin until the device is done (the default): the soonest answer, one
     *  core busy for every wait. */
    WM_GPU_WAIT_SPIN = 0,
    /** Sleep until the device is done (CUDA events made with
     *  cudaEventBlockingSync): the core is free for the host's other threads
     *  meanwhile, at the price of a wake-up per wait. The process's CUDA
     *  device flags are left alone. */
    WM_GPU_WAIT_BLOCK = 1,
} wm_gpu_wait;

typedef struct wm_scanner_options {
    size_t struct_size;
    int backend;            /**< wm_backend                                  */
    int output_mode;        /**< wm_output_mode                              */
    /** Cross-check: 0 = off, 1 = every batch, N = one batch in N. GPU
     *  results are compared with Hyperscan; a difference makes
     *  wm_scan_batch return WM_VERIFY_MISMATCH after delivering matches. */
    unsigned verify_every;
    int gpu_device;         /**< CUDA device ordinal (default 0)             */
    size_t max_batch_bytes; /**< GPU batch capacity in payload bytes         */
    size_t max_batch_payloads;
    /** Threads Hyperscan scans a batch with, on the CPU backend and for the
     *  GPU's cross-check (since 0.8): 0 or 1 = the calling thread only (the
     *  default, for hosts that run a scanner per worker thread); N = the
     *  calling thread and N - 1 of the scanner's own (at most 256). Matches
     *  and their order do not depend on it. On the GPU backend in
     *  WM_OUTPUT_POSITIONS mode, also the threads that turn the device's
     *  matches into rule matches for wm_scan_batch (callbacks still come on
     *  the calling thread, in order). */
    unsigned cpu_threads;
    /** How a GPU scanner's calling thread waits for the device (since 0.9):
     *  wm_gpu_wait, for every GPU engine of the scanner (literal,
     *  approximate and alignment rules; before 0.10 the literal matcher
     *  only). No effect on the CPU backend. */
    int gpu_wait;
} wm_scanner_options_t;

WM_API void wm_scanner_options_init(wm_scanner_options_t *opts);

WM_API int wm_scanner_create(const wm_ruleset_t *rs, const wm_scanner_options_t *opts,
                             wm_scanner_t **out, wm_error_t **err);
WM_API void wm_scanner_free(wm_scanner_t *sc);

/** The backend actually in use (WM_BACKEND_CPU or WM_BACKEND_GPU). */
WM_API int wm_scanner_backend(const wm_scanner_t *sc);
/** Why the backend was chosen, e.g. "auto: no CUDA device (cudaErrorNoDevice)". */
WM_API const char *wm_scanner_backend_reason(const wm_scanner_t *sc);

/**
 * Measured pinned host-to-device copy bandwidth of GPU gpu_device, in GB/s
 * (1e9 bytes a second): the median of `repeats` copies of `bytes` from
 * page-locked host memory, the memory GPU scanners stage batches in, after
 * one untimed copy. It bounds every path that brings payloads from the
 * host; `warpmatch bench` divides its GPU rows by it. Takes `bytes` of host
 * and device memory for the call. WM_NO_GPU without a usable GPU (the error
 * says why), WM_GPU_ERROR naming a buffer that could not be allocated,
 * WM_INVALID for a NULL gb_per_s, bytes 0 or repeats < 1. Since 0.16.
 */
WM_API int wm_gpu_h2d_bandwidth(int gpu_device, size_t bytes, int repeats, double *gb_per_s, wm_error_t **err);

/**
 * A buffer owned by the scanner to build batches in place: page-locked host
 * memory on the GPU backend (wm_scan_batch then copies it to the GPU with no
 * host-side memcpy), ordinary memory on the CPU backend. Valid until the next
 * call of this function on sc or wm_scanner_free; its size is at least bytes.
 */
WM_API int wm_scanner_batch_buffer(wm_scanner_t *sc, size_t bytes, uint8_t **buf,
                                   wm_error_t **err);

/** Batch buffers a scanner owns: wm_scanner_batch_buffer() is slot 0. */
#define WM_BATCH_BUFFER_SLOTS 4
/**
 * wm_scanner_batch_buffer() for slots 0 to WM_BATCH_BUFFER_SLOTS - 1, so that
 * a host can fill batches while the scanner still works on others (with
 * wm_scan_batch_set_submit: batches filled ahead, one scanned, one whose hits
 * are being used). Valid until the next call for the same slot or
 * wm_scanner_free. A slot cannot grow while submitted batches are not
 * collected (WM_INVALID). wm_replay_file*() reuse every slot.
 */
WM_API int wm_scanner_batch_buffer_at(wm_scanner_t *sc, unsigned slot, size_t bytes, uint8_t **buf,
                                      wm_error_t **err);

/** Transport protocol of a payload, for rules with `protocol:`. */
typedef enum wm_proto { WM_PROTO_ANY = 0, WM_PROTO_TCP = 6, WM_PROTO_UDP = 17 } wm_proto;

/** Per-payload metadata; rules with protocol/ports match only when these fit. */
typedef struct wm_payload_meta {
    uint8_t proto; /**< wm_proto */
    uint16_t src_port;
    uint16_t dst_port;
} wm_payload_meta_t;

/**
 * A batch of payloads stored back to back: payload i is
 * data[offsets[i] .. offsets[i+1]). offsets has count + 1 entries.
 * meta may be NULL: then protocol and port constraints are not applied.
 */
typedef struct wm_batch {
    const uint8_t *data;
    const uint32_t *offsets;
    size_t count;
    const wm_payload_meta_t *meta;
} wm_batch_t;

/**
 * Match callback. start/end are byte offsets inside the payload
 * [start, end); both 0 in WM_OUTPUT_SET mode, except for align rules, whose
 * [start, end) is the aligned region in every mode. Return non-zero to stop the
 * scan (wm_scan_batch then returns WM_SCAN_TERMINATED).
 */
typedef int (*wm_match_fn)(uint32_t rule_id, uint32_t payload_index, uint32_t start,
                           uint32_t end, void *ctx);

/** Scan one batch synchronously; matches arrive through cb before return. */
WM_API int wm_scan_batch(wm_scanner_t *sc, const wm_batch_t *batch, wm_match_fn cb, void *ctx,
                         wm_error_t **err);

/** One distinct (rule, payload) pair of wm_scan_batch_set(). */
typedef struct wm_set_hit {
    uint32_t rule_id;
    uint32_t payload_index;
} wm_set_hit_t;

/**
 * Scan one batch synchronously for the distinct rules per payload (set
 * semantics whatever the scanner's output_mode), delivered as one array:
 * *hits points to *count pairs ordered by payload, then rule id, owned by the
 * scanner and valid until its next scan or wm_scanner_free. No callback per
 * match: on the GPU backend the pairs are filtered by the rules'
 * protocol/ports, ordered and copied into page-locked memory by the device,
 * and the host touches none of them. Same pairs as wm_scan_batch in
 * WM_OUTPUT_SET mode; returns WM_VERIFY_MISMATCH as wm_scan_batch does (the
 * hits are the primary engine's). On failure *hits is NULL and *count 0.
 */
WM_API int wm_scan_batch_set(wm_scanner_t *sc, const wm_batch_t *batch, const wm_set_hit_t **hits,
                             size_t *count, wm_error_t **err);

/** Batches wm_scan_batch_set_submit() accepts before one is collected. */
#define WM_SET_PIPELINE_DEPTH 4
/**
 * wm_scan_batch_set(), pipelined across batches. Submit queues a batch and
 * returns; on the GPU backend its copies, scan and result copies are left in
 * flight, so a host that submits batch N + 1 before collecting batch N keeps
 * the PCIe link busy instead of draining the pipeline at every batch:
 *
 *     submit(b0); for (i = 1; i < n; ++i) { submit(b[i]); collect(&hits); use(hits); }
 *     collect(&hits); use(hits);
 *
 * Collect returns the oldest submitted batch's hits and status exactly as
 * wm_scan_batch_set would have (verification included). Rules:
 *   - at most WM_SET_PIPELINE_DEPTH batches submitted and not collected
 *     (another submit returns WM_INVALID); collect with none returns WM_INVALID;
 *   - a submitted batch's bytes, offsets and meta must stay valid and
 *     unchanged until it is collected (use two batch buffers, see
 *     wm_scanner_batch_buffer_at);
 *   - the hits are valid until the scanner's next call;
 *   - wm_scan_batch, wm_scan_batch_set and replay return WM_INVALID while
 *     batches are pending;
 *   - a GPU failure under WM_BACKEND_AUTO rescans the pending batches on the
 *     CPU; under WM_BACKEND_GPU it returns WM_GPU_ERROR, drops them and says
 *     how many.
 * On the CPU backend (and for batches sampled for verification, or rule sets
 * with approximate or align rules) submit scans at once; the results are the
 * same.
 */
WM_API int wm_scan_batch_set_submit(wm_scanner_t *sc, const wm_batch_t *batch, wm_error_t **err);
WM_API int wm_scan_batch_set_collect(wm_scanner_t *sc, const wm_set_hit_t **hits, size_t *count,
                                     wm_error_t **err);

/** Counters since the scanner was created. */
typedef struct wm_scanner_stats {
    size_t struct_size;
    uint64_t batches;
    uint64_t payloads;
    uint64_t bytes;
    uint64_t matches;
    uint64_t verified_batches;
    uint64_t verify_mismatches;
    /** Appended during 0.1: a caller built against the struct without
     *  them passes its shorter struct_size and gets the counters above.
     *  Where the time went (seconds, summed over batches): the engines
     *  (GPU or Hyperscan, including transfers), ordering and filtering the
     *  matches on the host, and the match callbacks. Where positions are
     *  ordered and filtered on the engine's threads while the callbacks run
     *  (wm_scan_batch without approximate or align rules, no verification
     *  due), that work counts as engine time. */
    double engine_seconds;
    double ordering_seconds;
    double delivery_seconds;
} wm_scanner_stats_t;

WM_API void wm_scanner_stats_init(wm_scanner_stats_t *st);
WM_API int wm_scanner_stats(const wm_scanner_t *sc, wm_scanner_stats_t *st);

#ifdef __cplusplus
}
#endif

/* Capture and replay: decoded packets, replaying a capture, EVE alerts. */
#include "warpmatch_capture.h"
/* Streams and live capture: TCP reassembly and live interfaces. */
#include "warpmatch_stream.h"

#endif /* WARPMATCH_H */
