// Builds wm_error_t objects (owned storage behind the public struct) and
// converts any in-flight C++ exception into a status + error object, so
// nothing is thrown across the C boundary.
#pragma once

#include "rules/rule.h"
#include "warpmatch.h"

#include <string>
#include <vector>

namespace wm {

// Stores an error in *err when err is non-null; returns code.
int set_error(wm_error_t **err, int code, const std::string &message);
int set_error(wm_error_t **err, int code, const std::vector<rules::Diagnostic> &diags);

// Call inside a catch(...) block: maps the current exception to a status.
int status_from_current_exception(wm_error_t **err);

} // namespace wm
