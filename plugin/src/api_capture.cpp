// C entry points: offline capture, replay and JSON formatting.
#include "error_object.h"
#include "eve_json.h"
#include "handles.h"
#include "replay.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

using namespace wm;

namespace {
int to_malloced(std::string_view s, char **out) {
    *out = static_cast<char *>(std::malloc(s.size() + 1));
    if (!*out)
        return WM_NOMEM;
    std::memcpy(*out, s.data(), s.size());
    (*out)[s.size()] = '\0';
    return WM_SUCCESS;
}

// A caller built before 0.13 has a packet that ends before vlan[], one built
// before 0.16 a packet that ends before tunnel: each struct_size the library
// knows, and no other (a packet's fields past its size are not read).
constexpr size_t kPacketBeforeVlans = offsetof(wm_packet_t, vlan);
constexpr size_t kPacketBeforeTunnel = offsetof(wm_packet_t, tunnel);
bool older_packet(const wm_packet_t *p) {
    return p && (p->struct_size == kPacketBeforeVlans || p->struct_size == kPacketBeforeTunnel);
}
bool packet_size_known(const wm_packet_t *p) { return older_packet(p) || size_ok(p); }
} // namespace

extern "C" {

WM_API void wm_packet_init(wm_packet_t *p) {
    if (!p)
        return;
    std::memset(p, 0, sizeof(*p));
    p->struct_size = sizeof(*p);
}

WM_API const char *wm_tunnel_kind_name(int kind) {
    static const char *const names[WM_TUNNEL_KIND_COUNT] = {
        "ip-in-ip", "gre", "vxlan", "geneve", "gtpu", "teredo", "ayiya", "vxlan-gpe", "mpls-udp", "mpls-pseudowire"};
    return kind >= 0 && kind < WM_TUNNEL_KIND_COUNT ? names[kind] : "unknown";
}

WM_API const char *wm_skip_reason_name(int reason) {
    static const char *const names[WM_SKIP_REASON_COUNT] = {
        "not_ip", "unsupported_link", "truncated", "fragment",
        "other_proto", "no_payload", "malformed"};
    return reason >= 0 && reason < WM_SKIP_REASON_COUNT ? names[reason] : "unknown";
}

WM_API void wm_capture_stats_init(wm_capture_stats_t *st) {
    if (!st)
        return;
    std::memset(st, 0, sizeof(*st));
    st->struct_size = sizeof(*st);
}

WM_API int wm_capture_open_offline(const char *path, wm_capture_t **out, wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!path || !*path || !out)
        return set_error(err, WM_INVALID, "wm_capture_open_offline: path and out are required");
    *out = nullptr;
    try {
        *out = new wm_capture(path);
        return WM_SUCCESS;
    } catch (const capture::CaptureError &e) {
        return set_error(err, WM_IO_ERROR, e.what());
    } catch (...) {
        return status_from_current_exception(err);
    }
}

WM_API void wm_capture_close(wm_capture_t *cap) { delete cap; }

WM_API int wm_capture_next(wm_capture_t *cap, wm_packet_t *pkt, wm_error_t **err) {
    if (err)
        *err = nullptr;
    // An older caller's packet gets the fields it knows.
    const bool older = older_packet(pkt);
    if (!cap || !packet_size_known(pkt))
        return set_error(err, WM_INVALID, "wm_capture_next: cap and an initialised packet are required");
    if (cap->failed)
        return set_error(err, WM_BAD_STATE, "wm_capture_next: capture already failed");
    try {
        if (older) {
            const size_t size = pkt->struct_size;
            wm_packet_t full;
            wm_packet_init(&full);
            const int rc = cap->cap.next(&full);
            full.struct_size = size;
            std::memcpy(pkt, &full, size);
            return rc;
        }
        return cap->cap.next(pkt);
    } catch (const capture::CaptureError &e) {
        cap->failed = true;
        return set_error(err, WM_CAPTURE_ERROR, e.what());
    } catch (...) {
        return status_from_current_exception(err);
    }
}

WM_API int wm_capture_stats(const wm_capture_t *cap, wm_capture_stats_t *st) {
    if (!cap || !size_ok(st))
        return WM_INVALID;
    *st = cap->cap.stats();
    st->struct_size = sizeof(*st);
    return WM_SUCCESS;
}

WM_API int wm_capture_set_tunnel_ports(wm_capture_t *cap, const char *spec, wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (!cap)
        return set_error(err, WM_INVALID, "wm_capture_set_tunnel_ports: cap is required");
    try {
        std::unique_ptr<const capture::TunnelPorts> ports;
        if (spec && *spec)
            ports = std::make_unique<const capture::TunnelPorts>(capture::TunnelPorts::parse(spec));
        cap->cap.set_tunnel_ports(ports.get());
        cap->tunnel_ports = std::move(ports); // the one the reader now points at
        return WM_SUCCESS;
    } catch (...) {
        return status_from_current_exception(err);
    }
}

WM_API void wm_replay_stats_init(wm_replay_stats_t *st) {
    if (!st)
        return;
    std::memset(st, 0, sizeof(*st));
    st->struct_size = sizeof(*st);
    st->capture.struct_size = sizeof(st->capture);
}

WM_API int wm_replay_file(wm_scanner_t *sc, const char *path, wm_alert_fn on_alert,
                          void *alert_ctx, wm_progress_fn on_progress, void *progress_ctx,
                          wm_replay_stats_t *stats, wm_error_t **err) {
    if (err)
        *err = nullptr;
    if (const std::string bad = replay_args_error("wm_replay_file", sc, path, stats); !bad.empty())
        return set_error(err, WM_INVALID, bad);
    wm_replay_stats_init(stats); // filled in every case, also when the capture cannot be opened
    if (!sc->scanner.try_acquire())
        return set_error(err, WM_SCRATCH_IN_USE, "wm_replay_file: scanner in use by another thread");
    struct Release {
        Scanner &s;
        ~Release() { s.release(); }
    } release{sc->scanner};
    try {
        ReplayCallbacks cb{on_alert, alert_ctx, on_progress, progress_ctx};
        std::string msg;
        int rc = replay_file(sc->scanner, path, cb, *stats, &msg);
        if (rc != WM_SUCCESS && rc != WM_SCAN_TERMINATED)
            return set_error(err, rc, msg);
        return rc;
    } catch (const capture::CaptureError &e) {
        return set_error(err, WM_IO_ERROR, e.what());
    } catch (...) {
        return status_from_current_exception(err);
    }
}

WM_API int wm_alert_to_json(const wm_ruleset_t *rs, const wm_alert_t *alert, char **json) {
    return wm_alert_to_json_ex(rs, alert, 0, json);
}

WM_API int wm_alert_to_json_ex(const wm_ruleset_t *rs, const wm_alert_t *alert, unsigned flags, char **json) {
    // has_score/score were appended later: an alert from a caller built
    // before them is the prefix up to has_score, read as "no score".
    const size_t old_size = offsetof(wm_alert_t, has_score);
    constexpr unsigned kKnownFlags = WM_EVE_PAYLOAD | WM_EVE_PAYLOAD_PRINTABLE;
    if (!rs || !alert || (alert->struct_size != old_size && !size_ok(alert)) ||
        !packet_size_known(alert->packet) || !json || (flags & ~kKnownFlags) != 0 ||
        (flags != 0 && alert->packet->payload == nullptr && alert->packet->payload_len != 0))
        return WM_INVALID;
    try {
        wm_alert_t a{};
        std::memcpy(&a, alert, alert->struct_size);
        thread_local fmt::memory_buffer line; // reused: the result is the one allocation per alert
        line.clear();
        append_alert_eve_json(*rs->compiled, a, line, flags);
        return to_malloced(std::string_view(line.data(), line.size()), json);
    } catch (...) {
        return WM_NOMEM;
    }
}

WM_API int wm_replay_stats_to_json(const wm_replay_stats_t *st, char **json) {
    if (!size_ok(st) || !json)
        return WM_INVALID;
    try {
        return to_malloced(replay_stats_to_json(*st), json);
    } catch (...) {
        return WM_NOMEM;
    }
}

} // extern "C"
