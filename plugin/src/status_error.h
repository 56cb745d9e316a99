// Internal exception carrying a wm_status; api.cpp turns it into a status
// code plus an error object at the C boundary.
#pragma once

#include <stdexcept>
#include <string>

namespace wm {

class StatusError : public std::runtime_error {
  public:
    StatusError(int code, const std::string &msg) : std::runtime_error(msg), code_(code) {}
    int code() const { return code_; }

  private:
    int code_;
};

} // namespace wm
