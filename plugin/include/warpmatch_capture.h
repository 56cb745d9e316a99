/*
 * warpmatch_capture.h - capture files and replay, part of the public C API
 * of libwarpmatch: decoded packets (wm_capture_*), replaying a capture
 * through a scanner (wm_replay_file), and alerts as EVE JSON. Included by
 * warpmatch.h (include that one); kept apart so each header stays one
 * topic. Same conventions as warpmatch.h.
 */
#ifndef WARPMATCH_CAPTURE_H
#define WARPMATCH_CAPTURE_H

#include "warpmatch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Capture: offline pcap/pcapng decoding                                */
/* ------------------------------------------------------------------ */

typedef struct wm_capture wm_capture_t;

/** wm_tunnel_t::kind: which tunnel the carrier opened. Since 0.16. */
typedef enum wm_tunnel_kind {
    WM_TUNNEL_IP_IN_IP = 0,    /**< IPv4 or IPv6 in IP (protocols 4 and 41)  */
    WM_TUNNEL_GRE,             /**< GRE, with ERSPAN, PPTP or Aruba's 802.11 */
    WM_TUNNEL_VXLAN,
    WM_TUNNEL_GENEVE,
    WM_TUNNEL_GTPU,
    WM_TUNNEL_TEREDO,
    WM_TUNNEL_AYIYA,
    WM_TUNNEL_VXLAN_GPE,
    WM_TUNNEL_MPLS_UDP,        /**< MPLS over UDP (RFC 7510)                 */
    WM_TUNNEL_MPLS_PSEUDOWIRE, /**< an Ethernet frame after MPLS labels      */
    WM_TUNNEL_KIND_COUNT
} wm_tunnel_kind;

/** Name of a tunnel kind, e.g. "vxlan" (the --tunnel-ports names), "ip-in-ip", "gre". */
WM_API const char *wm_tunnel_kind_name(int kind);

/** The packet that carried a tunnelled one: the outermost tunnel's
 *  carrier, as Suricata's EVE "tunnel" object gives it. Since 0.16. */
typedef struct wm_tunnel {
    uint8_t ip_version;   /**< 4 or 6; 0 when no IP header carried the first
                               tunnel (an MPLS pseudowire on the link)    */
    uint8_t proto;        /**< the carrier's IP protocol: 4 or 41 (IP in IP),
                               47 (GRE), 17 (a UDP tunnel); 0 with no IP  */
    uint8_t depth;        /**< tunnels entered to reach the packet: 1 or more */
    uint8_t kind;         /**< the outermost tunnel (wm_tunnel_kind)       */
    uint8_t src_ip[16];   /**< the carrier's addresses; IPv4 in 4 bytes    */
    uint8_t dst_ip[16];
    uint16_t src_port;    /**< a UDP tunnel's ports; 0 otherwise           */
    uint16_t dst_port;
} wm_tunnel_t;

/** One decoded packet; pointers stay valid until the next wm_capture_next. */
typedef struct wm_packet {
    size_t struct_size;
    uint64_t number;      /**< 1-based packet number in the capture       */
    int64_t ts_sec;
    int64_t ts_usec;
    uint32_t caplen;      /**< bytes captured                             */
    uint32_t wirelen;     /**< bytes on the wire                          */
    uint8_t ip_version;   /**< 4 or 6                                     */
    uint8_t proto;        /**< wm_proto                                   */
    uint8_t src_ip[16];   /**< IPv4 uses the first 4 bytes                */
    uint8_t dst_ip[16];
    uint16_t src_port;
    uint16_t dst_port;
    uint64_t flow_id;     /**< hash of the bidirectional 5-tuple and the
                               first two VLAN ids (since 0.12)            */
    const uint8_t *payload;
    uint32_t payload_len;
    uint32_t payload_offset; /**< offset of the payload in the frame      */
    /* since 0.13 (wm_capture_next also fills a packet that ends here) */
    uint16_t vlan[2];     /**< the frame's first two VLAN ids, outermost
                               first; a tunnelled frame's own do not count */
    uint8_t vlan_count;   /**< how many of vlan[] hold an id: 0, 1 or 2   */
    /* since 0.16 (wm_capture_next also fills the two shorter packets) */
    const wm_tunnel_t *tunnel; /**< the outermost tunnel's carrier when the
                               payload came through a tunnel, else NULL;
                               valid as long as the packet. With streams,
                               a window's packet is the one that delivered
                               its bytes, and its carrier that packet's */
} wm_packet_t;

WM_API void wm_packet_init(wm_packet_t *pkt);

/** Skip reasons counted by the decoder (index into wm_capture_stats.skipped). */
typedef enum wm_skip_reason {
    WM_SKIP_NOT_IP = 0,       /**< ARP, STP, LLDP, ...                      */
    WM_SKIP_UNSUPPORTED_LINK, /**< link type we do not decode               */
    WM_SKIP_TRUNCATED,        /**< cut by the snap length (caplen < wire)   */
    WM_SKIP_FRAGMENT,         /**< IPv4/IPv6 fragment (not reassembled)     */
    WM_SKIP_OTHER_PROTO,      /**< ICMP, ESP, GRE carrying no IP, ...       */
    WM_SKIP_NO_PAYLOAD,       /**< TCP/UDP with empty payload               */
    WM_SKIP_MALFORMED,        /**< bad header length or version             */
    WM_SKIP_REASON_COUNT
} wm_skip_reason;

/** Name of a skip reason, e.g. "fragment". */
WM_API const char *wm_skip_reason_name(int reason);

typedef struct wm_capture_stats {
    size_t struct_size;
    uint64_t packets;       /**< records read                               */
    uint64_t bytes;         /**< captured bytes read                        */
    uint64_t payloads;      /**< TCP/UDP payloads delivered                 */
    uint64_t payload_bytes;
    uint64_t snaplen_truncated; /**< packets with caplen < wirelen          */
    uint64_t skipped[WM_SKIP_REASON_COUNT];
} wm_capture_stats_t;

WM_API void wm_capture_stats_init(wm_capture_stats_t *st);

/** Open a pcap or pcapng file. Link types: Ethernet, Linux SLL/SLL2, raw IP,
 *  BSD loopback, PPP and Cisco HDLC, 802.11 and radiotap (others are counted
 *  as unsupported; plugin/src/capture/README.md lists them). */
WM_API int wm_capture_open_offline(const char *path, wm_capture_t **out, wm_error_t **err);
WM_API void wm_capture_close(wm_capture_t *cap);

/**
 * Next packet that carries a TCP or UDP payload. Returns WM_SUCCESS,
 * WM_END at the end of the file, or WM_CAPTURE_ERROR for a truncated or
 * corrupt file (everything before it was delivered).
 */
WM_API int wm_capture_next(wm_capture_t *cap, wm_packet_t *pkt, wm_error_t **err);
WM_API int wm_capture_stats(const wm_capture_t *cap, wm_capture_stats_t *st);

/**
 * The UDP ports on which the decoder looks for a tunnel's header, for the
 * packets read from now on (since 0.14). spec: tunnels separated by ';' or
 * spaces, each NAME=PORT[,PORT...] or NAME=off, e.g.
 * "vxlan=4789,8472;teredo=off"; NAME is vxlan, geneve, vxlan-gpe, mpls-udp
 * (by destination port; vxlan-gpe and mpls-udp since 0.16), gtpu, teredo or
 * ayiya (by either port); a tunnel not named keeps its standard port (4789,
 * 6081, 4790, 6635, 2152, 3544, 5072); NULL or "" restores
 * them all. A datagram on a tunnel's port is entered only when a whole,
 * valid header of that tunnel is there. WM_INVALID, naming what is wrong,
 * for an unknown name, a port outside 1-65535, a port given to two tunnels
 * or more than 16 ports for one; the ports are then unchanged.
 */
WM_API int wm_capture_set_tunnel_ports(wm_capture_t *cap, const char *spec, wm_error_t **err);

/* ------------------------------------------------------------------ */
/* Replay: capture -> batches -> scanner -> alerts                      */
/* ------------------------------------------------------------------ */

/**
 * One alert: a rule matched a payload (once per rule and payload).
 *
 * Align rules (`align:` in the rule file, docs/rules.md) set has_score: score
 * is the best Smith-Waterman local alignment score of the rule's reference
 * against the payload (>= the rule's min_score), and start/end are the
 * aligned region of the payload, [start, end); has_offset is then 1 in every
 * output mode. For all other rules has_score and score are 0.
 */
typedef struct wm_alert {
    size_t struct_size;
    const wm_packet_t *packet;
    uint32_t rule_id;
    int has_offset;          /**< 1 when start/end are known (positions)  */
    uint32_t start;          /**< first match in the payload              */
    uint32_t end;
    int has_score;           /**< 1 for an align rule's alert             */
    int32_t score;           /**< its alignment score when has_score      */
} wm_alert_t;

typedef int (*wm_alert_fn)(const wm_alert_t *alert, void *ctx);
/** Progress callback, called about once a second. */
typedef void (*wm_progress_fn)(uint64_t packets, uint64_t bytes, double seconds, void *ctx);

typedef struct wm_replay_stats {
    size_t struct_size;
    wm_capture_stats_t capture;
    uint64_t alerts;
    uint64_t batches;
    double seconds;          /**< wall time of the whole replay            */
    double gbit_per_s;       /**< payload bits scanned per second          */
    uint64_t verify_mismatches;
} wm_replay_stats_t;

WM_API void wm_replay_stats_init(wm_replay_stats_t *st);

/**
 * Replay a capture file through a scanner. Alerts are delivered in packet
 * order. On WM_CAPTURE_ERROR every packet before the corrupt record was
 * scanned and its alerts delivered; stats are filled in every case.
 * A call refused before any record is read (bad arguments or options)
 * returns WM_INVALID and leaves the stats at zero.
 */
WM_API int wm_replay_file(wm_scanner_t *sc, const char *path, wm_alert_fn on_alert,
                          void *alert_ctx, wm_progress_fn on_progress, void *progress_ctx,
                          wm_replay_stats_t *stats, wm_error_t **err);

/**
 * Format an alert as one EVE-style JSON line (Suricata field names), without
 * a trailing newline, into a malloc'ed string freed with wm_free().
 * WM_INVALID when the alert or its packet has a struct_size the library
 * does not know (set it with wm_packet_init). The timestamp is the packet's
 * ts_sec and ts_usec, microseconds past 999999 carried into the seconds.
 */
WM_API int wm_alert_to_json(const wm_ruleset_t *rs, const wm_alert_t *alert, char **json);

/** Optional fields of an alert line (wm_alert_to_json_ex flags, ORed). Since 0.11. */
typedef enum wm_eve_flags {
    WM_EVE_PAYLOAD = 1,           /**< "payload": the packet's payload, base64 (RFC 4648) */
    WM_EVE_PAYLOAD_PRINTABLE = 2, /**< "payload_printable": printable ASCII as it is,
                                       every other byte as '.' (as Suricata's)           */
} wm_eve_flags;

/** wm_alert_to_json with the optional fields of `flags` (wm_eve_flags);
 *  WM_INVALID for a bit it does not know. Flags 0: wm_alert_to_json. */
WM_API int wm_alert_to_json_ex(const wm_ruleset_t *rs, const wm_alert_t *alert, unsigned flags, char **json);
/** Format replay stats as one JSON object ({"stats": {...}}). */
WM_API int wm_replay_stats_to_json(const wm_replay_stats_t *st, char **json);

#ifdef __cplusplus
}
#endif

#endif /* WARPMATCH_CAPTURE_H */
