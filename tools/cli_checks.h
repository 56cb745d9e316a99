// Checks the CLI's subcommands share: option validators and the output
// file's safety and completeness (public C API only).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

// A number in [lo, hi] (CLI::Range lets NaN through, and CLI::PositiveNumber
// prints its upper bound as a 300-digit number).
CLI::Validator finite_range(double lo, double hi);

// --gpu-wait spin|block into `wait` (wm_gpu_wait), for the commands that
// create a scanner.
CLI::Option *add_gpu_wait_option(CLI::App *cmd, int &wait);
// --payload-layout auto|packed|in-place into layout (wm_payload_layout, replay without streams).
CLI::Option *add_payload_layout_option(CLI::App *cmd, int &layout);

// Refuses --matches set with --streams once cmd's options are parsed, by
// name and before anything runs: matches across segments need positions
// (the library refuses the scanner too, but a live capture had already
// announced itself by then).
void refuse_set_matches_with_streams(CLI::App *cmd, const bool &streams, const std::string &matches);

// Whether `output` names the same file as one of `inputs` (an existing file
// with the same device and inode): writing it would destroy an input.
bool same_file_as_any(const std::string &output, const std::vector<std::string> &inputs);

// Flushes and closes `out` (stdout is only flushed); on a write error prints
// "warpmatch: writing NAME failed: REASON" and returns false.
bool finish_output(FILE *out, const std::string &name);
