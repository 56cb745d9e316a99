/*
 * warpmatch_stream.h - streams and live capture, part of the public C API of
 * libwarpmatch. Included by warpmatch.h (include that one); kept apart so
 * each header stays one topic. Same conventions as warpmatch.h.
 */
#ifndef WARPMATCH_STREAM_H
#define WARPMATCH_STREAM_H

#include "warpmatch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Streams and live capture                                             */
/* ------------------------------------------------------------------ */
/*
 * With streams on, TCP payloads are not scanned packet by packet: each
 * connection direction is reassembled (IPv4/IPv6 fragments first) and
 * scanned as one byte stream, so a signature split across segments is
 * found exactly once, at the packet whose data completes it. Design,
 * policies and limits: docs/streams.md. In short:
 *   - overlaps and retransmissions: first data wins (Suricata's "first");
 *   - out-of-order data is buffered up to max_ooo_bytes per direction,
 *     then the hole is skipped and counted as a gap (no match spans a gap);
 *   - offset/depth are relative to the start of the direction's stream;
 *   - an alert's payload is the scanned window: bytes carried from the
 *     same stream, then the newly delivered bytes; payload offsets are
 *     positions in that window;
 *   - streams need match positions (WM_OUTPUT_POSITIONS, or AUTO on the
 *     CPU): a scanner in WM_OUTPUT_SET mode is refused with WM_INVALID.
 * UDP datagrams are scanned one by one, as without streams.
 */

/** Limits of the flow table and of fragment reassembly. Everything the
 *  stream layer holds counts against these; what they push out is
 *  delivered (with a gap) or dropped, and counted in wm_stream_stats_t. */
typedef struct wm_stream_config {
    size_t struct_size;
    uint64_t max_flows;          /**< TCP flows tracked (default 262144);
                                      the least recently used is evicted   */
    uint64_t memcap_bytes;       /**< flows + buffered segments + carried
                                      bytes (default 512 MiB)              */
    uint64_t max_ooo_bytes;      /**< out-of-order bytes buffered per
                                      direction before a gap (default 1 MiB) */
    uint32_t idle_timeout_s;     /**< capture-time idle timeout (default 120) */
    uint64_t frag_max_datagrams; /**< datagrams in reassembly (default 8192)  */
    uint64_t frag_memcap_bytes;  /**< fragment bytes held (default 32 MiB)    */
    uint32_t frag_timeout_s;     /**< capture-time fragment timeout (default 30) */
} wm_stream_config_t;

WM_API void wm_stream_config_init(wm_stream_config_t *cfg);

/** Counters of the stream layer (all since the replay or capture began). */
typedef struct wm_stream_stats {
    size_t struct_size;
    /* flows */
    uint64_t flows_created;
    uint64_t flows_closed;       /**< FIN both ways or an accepted RST (a flow
                                      kept after its RST is not counted
                                      again when it ends)                    */
    uint64_t flows_timed_out;    /**< idle past idle_timeout_s               */
    uint64_t flows_evicted;      /**< pushed out by max_flows or memcap      */
    uint64_t flows_reused;       /**< new SYN on a tracked 5-tuple           */
    uint64_t flows_at_end;       /**< still open when the capture ended      */
    uint64_t flows_peak;
    uint64_t memory_peak_bytes;  /**< flow table high-water mark             */
    /* TCP segments */
    uint64_t segments;           /**< TCP packets seen by the flow table     */
    uint64_t segments_no_flow;   /**< no payload, no SYN, unknown flow       */
    uint64_t segments_in_order;
    uint64_t segments_out_of_order;
    uint64_t retransmitted_bytes;/**< data at offsets already passed: ignored when
                                      delivered before; scanned on its own (as packet
                                      mode) when it fills a hole given up on, comes
                                      before the stream's first byte, or comes in a RST's
                                      own direction after it, before the stream
                                      goes on */
    uint64_t overlap_bytes;      /**< buffered data overlapped, first kept   */
    uint64_t overlap_conflicts;  /**< overlapping bytes that differed        */
    uint64_t gaps;               /**< holes skipped (cap, flush, snap length) */
    uint64_t gap_bytes;
    uint64_t rst_accepted;
    uint64_t rst_ignored;        /**< RST with a sequence number out of window */
    uint64_t bytes_after_fin;    /**< data past a FIN, ignored               */
    uint64_t stream_bytes;       /**< bytes delivered in order to the matcher */
    uint64_t windows;            /**< stream payloads scanned                */
    uint64_t carried_bytes;      /**< bytes scanned again as carry           */
    uint64_t cross_segment_matches; /**< matches starting in carried bytes   */
    /* IP fragments */
    uint64_t frag_fragments;
    uint64_t frag_reassembled;
    uint64_t frag_timeouts;
    uint64_t frag_evicted;       /**< pushed out by the datagram or byte cap */
    uint64_t frag_overlap_bytes; /**< bytes of duplicate fragments, dropped alone */
    uint64_t frag_overlap_drops; /**< datagrams dropped for a partial overlap (RFC 5722; IPv4 as Linux) */
    uint64_t frag_invalid;       /**< bad offset/length, too large, cut short */
    uint64_t frag_memory_peak_bytes;
    /* verification against Hyperscan stream mode */
    uint64_t oracle_windows;
    uint64_t oracle_mismatches;
} wm_stream_stats_t;

WM_API void wm_stream_stats_init(wm_stream_stats_t *st);
/** Format stream counters as one JSON object, malloc'ed, freed with wm_free(). */
WM_API int wm_stream_stats_to_json(const wm_stream_stats_t *st, char **json);

/**
 * Alerts of one scanned part of a replay at once
 * (wm_replay_options_t::on_window_alerts): a whole window on the GPU, up to
 * 4,096 of its payloads on the CPU. hits[i] is an alert of rule
 * hits[i].rule_id on packet packets[hits[i].payload_index], ordered by
 * packet, then rule id; packets are that part's packets with a payload. Both
 * arrays belong to the replay and are valid during the call only; a part
 * without alerts makes no call; calls come in packet order. Return non-zero
 * to stop the replay (WM_SCAN_TERMINATED), as with wm_alert_fn.
 */
typedef int (*wm_window_alerts_fn)(const wm_packet_t *packets, size_t num_packets, const wm_set_hit_t *hits,
                                   size_t num_hits, void *ctx);

typedef struct wm_replay_options {
    size_t struct_size;
    /** 1: flows, TCP and IP reassembly, matches across segments.
     *  0 (default): every payload on its own, exactly as wm_replay_file. */
    int streams;
    /** With streams: run Hyperscan stream mode (hs_open_stream /
     *  hs_scan_stream / hs_close_stream) over the same reassembled streams
     *  and compare every window; differences make the replay return
     *  WM_VERIFY_MISMATCH and are counted in oracle_mismatches. */
    int verify_streams;
    wm_stream_config_t stream;
    /* Since 0.3 (a caller built before passes the shorter struct; these are
     * then 0). Without streams the capture is read window by window while the
     * previous window is scanned; a classic pcap window is decoded by several
     * threads at once. */
    unsigned read_threads;   /**< threads decoding a window; 0 = cores - 1 (at most 16);
                                  a value above 64 is cut to 64 */
    size_t window_bytes;     /**< file bytes per window; 0 = 1/8 of the file,
                                  within 4-16 MB on the GPU, 1-16 MB on the CPU;
                                  at most 1 GiB and the file's size (>= 1 MiB) */
    /* Since 0.7. When on_window_alerts is set, it receives each window's (on the CPU each
     * batch's) alerts as one array (what the scanner hands back, not copied) and the
     * per-alert callback is not called: a host taking millions of alerts a
     * second saves a call per alert (~2-3 ns each). Needs a scanner in
     * WM_OUTPUT_SET without alignment rules and streams off (WM_INVALID
     * otherwise). */
    wm_window_alerts_fn on_window_alerts;
    void *window_alerts_ctx;
    /* Since 0.11. */
    /** Capture filter in tcpdump syntax (pcap-filter(7)), NULL or "" for
     *  every record. A record it rejects is left out of the packets and of
     *  the capture counters, as a filter set on a libpcap handle leaves it
     *  out; the records it accepts keep their packet numbers in the file
     *  (what Wireshark shows). One that does not compile for the file's
     *  link type is WM_INVALID, with libpcap's reason. */
    const char *bpf;
    /* Since 0.14. */
    /** The UDP tunnels' ports, as wm_capture_set_tunnel_ports takes them
     *  (NULL or "": the standard ones); a bad spec is WM_INVALID. */
    const char *tunnel_ports;
    /* Since 0.15. */
    /** Where a window's payloads lie for the scan, without streams
     *  (wm_payload_layout); another value is WM_INVALID. */
    int payload_layout;
} wm_replay_options_t;

/** wm_replay_options_t::payload_layout. */
typedef enum wm_payload_layout {
    /** The library's choice (default): since 0.15 in place wherever the
     *  scanner's engines take them (docs/PERFORMANCE.md, runs 338-343). */
    WM_PAYLOADS_AUTO = 0,
    /** Copied back to back by the threads that read the window. */
    WM_PAYLOADS_PACKED = 1,
    /** Left where the file has them: a classic pcap window is read straight
     *  into the scanner's buffer and no payload is copied on the host (on
     *  the GPU the device packs them). Packed all the same for pcapng files,
     *  and on the GPU with approximate or align rules. */
    WM_PAYLOADS_IN_PLACE = 2
} wm_payload_layout;

WM_API void wm_replay_options_init(wm_replay_options_t *opts);

/**
 * wm_replay_file with options. opts NULL means the defaults (streams off,
 * identical to wm_replay_file). stream_stats may be NULL. Returns what
 * wm_replay_file returns, and WM_INVALID for streams with a scanner in
 * WM_OUTPUT_SET mode.
 */
WM_API int wm_replay_file_ex(wm_scanner_t *sc, const char *path, const wm_replay_options_t *opts,
                             wm_alert_fn on_alert, void *alert_ctx, wm_progress_fn on_progress,
                             void *progress_ctx, wm_replay_stats_t *stats,
                             wm_stream_stats_t *stream_stats, wm_error_t **err);

/** A live capture on one interface (libpcap). */
typedef struct wm_live wm_live_t;

typedef struct wm_live_options {
    size_t struct_size;
    const char *interface;   /**< required, e.g. "eth0"                     */
    const char *bpf;         /**< capture filter, NULL or "" for all        */
    int snaplen;             /**< bytes kept per packet (default 262144)    */
    int buffer_mb;           /**< kernel capture buffer (default 64, at most 2047) */
    int immediate;           /**< 1: deliver packets at once (no kernel
                                  batching); lowers latency, costs CPU      */
    unsigned max_latency_ms; /**< a batch is scanned at the latest this long
                                  after its first packet arrived (default 100) */
    uint64_t max_batch_bytes;/**< a batch closes at this size; 0: 1 MiB on
                                  the CPU; on the GPU 2 MiB with streams,
                                  else 32 MiB                               */
    int streams;             /**< as in wm_replay_options_t (default 0)    */
    int verify_streams;
    wm_stream_config_t stream;
    /* Since 0.14 (a caller built before passes the shorter struct). */
    const char *tunnel_ports; /**< as in wm_replay_options_t (NULL: standard) */
} wm_live_options_t;

WM_API void wm_live_options_init(wm_live_options_t *opts);

typedef struct wm_live_stats {
    size_t struct_size;
    wm_replay_stats_t replay;   /**< capture counters, alerts, batches (this run) */
    /* The pcap_* counters are libpcap's, since wm_live_open (every run). */
    uint64_t pcap_received;     /**< pcap_stats ps_recv                     */
    uint64_t pcap_dropped;      /**< ps_drop: no room in the kernel buffer  */
    uint64_t pcap_if_dropped;   /**< ps_ifdrop: dropped by the interface    */
    uint64_t batches_by_size;   /**< closed because full                    */
    uint64_t batches_by_latency;/**< closed by max_latency_ms               */
    uint64_t batches_at_stop;   /**< flushed by wm_live_stop                */
    /** Per batch: from the capture timestamp of its first packet to the
     *  end of alert delivery, in milliseconds. */
    double latency_p50_ms;
    double latency_p99_ms;
    double latency_max_ms;
} wm_live_stats_t;

WM_API void wm_live_stats_init(wm_live_stats_t *st);

/**
 * Open and activate a live capture. Needs CAP_NET_RAW (and CAP_NET_ADMIN
 * for promiscuous mode on some drivers), not root:
 *   setcap cap_net_raw,cap_net_admin+eip $(which warpmatch)
 * Returns WM_IO_ERROR with libpcap's reason (no such device, permission),
 * WM_INVALID for a bpf filter that does not compile (since 0.16.1).
 */
WM_API int wm_live_open(const wm_live_options_t *opts, wm_live_t **out, wm_error_t **err);

/**
 * Capture and scan until wm_live_stop(): then stop capturing, scan every
 * packet already captured (the kernel buffer is drained), end every flow,
 * scan every pending batch and deliver every alert before returning.
 * Returns WM_SUCCESS, WM_SCAN_TERMINATED, WM_VERIFY_MISMATCH or an error;
 * WM_BAD_STATE while another wm_live_run on the same live is running, and
 * once a run has ended on wm_live_stop (a stop is final for the capture;
 * since 0.16.1). A run whose callback stopped it (WM_SCAN_TERMINATED) can
 * be followed by another that captures on.
 */
WM_API int wm_live_run(wm_live_t *live, wm_scanner_t *sc, wm_alert_fn on_alert, void *alert_ctx,
                       wm_error_t **err);

/** Ask wm_live_run to finish, the one running or the next: the capture
 *  ends for good. Async-signal-safe: call it from a SIGINT or SIGTERM
 *  handler, or from another thread. */
WM_API void wm_live_stop(wm_live_t *live);

/** Counters of the last wm_live_run, filled when it returns (the capture
 *  counters, alerts, batches and pcap_stats alike): call it after
 *  wm_live_run has returned, not while it runs on another thread (all zeros
 *  before the first run). stream_stats may be NULL. */
WM_API int wm_live_stats(const wm_live_t *live, wm_live_stats_t *st,
                         wm_stream_stats_t *stream_stats);
/** Format live stats as one JSON object, malloc'ed, freed with wm_free(). */
WM_API int wm_live_stats_to_json(const wm_live_stats_t *st, char **json);

WM_API void wm_live_close(wm_live_t *live);

#ifdef __cplusplus
}
#endif

#endif /* WARPMATCH_STREAM_H */
