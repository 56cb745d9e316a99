// AlignEngine: the Engine for the align rules of a rule set (rules with an
// `align:` reference instead of a pattern); literal and approximate rules are
// ignored here. Two backends, chosen by the constructor:
//   Gpu  gpu/align's PayloadAligner: many payloads x few references per
//        launch. Rules are grouped by score parameters (match, mismatch,
//        gap_open, gap_extend); each group is one aligner holding its
//        distinct references, called once per batch with the group's
//        smallest min_score, then each hit is checked against its rules'
//        own min_score.
//   Cpu  the plain DP reference (gpu/align/sw_reference.h): column maxima of
//        the whole payload, then a traceback. O(reference x payload) per
//        pair: for hosts without a usable GPU and for --verify.
//
// Semantics (identical on both backends; tests/engine/test_align_rules.cpp):
// for each payload and align rule, the best local alignment score S of the
// reference against the payload (affine gaps, Gotoh). The rule matches when
// S >= min_score, with Match.score = S, Match.end = 1 + the first payload
// column whose best cell scores S, and Match.start = the first payload byte
// of the alignment traced back from the smallest reference row reaching S
// in that column (the traceback tie-break of gpu/align/sw_hd.h). One match
// per (payload, rule) in both output modes: the region is always reported.
//
// Lifecycle: one engine per scanner (per thread); a Gpu engine owns a CUDA
// stream and device buffers per group.
#pragma once

#include "compiled_ruleset.h"
#include "engine.h"

#include "gpu/align/align_types.h"
#include "gpu/host_wait.h"

#include <memory>
#include <string>
#include <vector>

namespace wm {

namespace align {
class PayloadAligner;
}

enum class AlignBackend { Cpu, Gpu };

class AlignEngine final : public Engine {
  public:
    // `rules`: the rule set's rules (Match.rule = index into it); only align
    // rules are used. Gpu: throws std::runtime_error when no usable device
    // (message from wm::align::align_gpu_usable), wm::gpu::GpuError when a
    // CUDA call fails.
    // `wait`: how the Gpu backend's thread waits for the device.
    AlignEngine(const std::vector<rules::Rule> &rules, AlignBackend backend, int device = 0,
                gpu::HostWait wait = gpu::HostWait::Spin);
    AlignEngine(const CompiledRuleSet &rs, AlignBackend backend, int device = 0,
                gpu::HostWait wait = gpu::HostWait::Spin)
        : AlignEngine(rs.rules(), backend, device, wait) {}
    ~AlignEngine() override;

    const char *name() const override {
        return backend_ == AlignBackend::Gpu ? "align-gpu" : "align-cpu";
    }
    // mode is ignored: align matches always carry their region (see above).
    // Throws wm::gpu::GpuError when a CUDA call fails (Gpu backend).
    void scan(const BatchView &batch, wm_output_mode mode, std::vector<Match> &out) override;

    size_t rule_count() const { return rule_count_; }
    size_t group_count() const { return groups_.size(); }
    // How group g's aligner waits for the device (Spin on the Cpu backend).
    gpu::HostWait gpu_host_wait(size_t g) const;

    // gpu/align's score parameters of a rule.
    static align::ScoreParams score_params(const rules::AlignSpec &a);

  private:
    // Rules sharing score parameters. refs are distinct; rule k of the group
    // is rule index rules[k], aligned against refs[ref_of[k]].
    struct Group {
        align::ScoreParams params;
        std::vector<std::string> refs;
        std::vector<uint32_t> rules, ref_of;
        std::vector<int32_t> min_score;
        int32_t smallest_min = 0;
        std::unique_ptr<align::PayloadAligner> gpu;
    };
    void scan_cpu(const Group &g, const BatchView &batch, std::vector<Match> &out) const;
    void scan_gpu(Group &g, const BatchView &batch, std::vector<Match> &out) const;

    AlignBackend backend_;
    size_t rule_count_ = 0;
    std::vector<Group> groups_;
    std::vector<uint8_t> packed_; // an in-place batch packed for the GPU (it reads data whole)
};

} // namespace wm
