// The driver's failures: one line that says what is wrong and, where the
// user can fix it, how. UsageError is a bad command line (exit status 2).
#pragma once

#include <stdexcept>
#include <string>

namespace uhost {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// "what: strerror(errno)"
Error sys_error(const std::string& what);

}  // namespace uhost
