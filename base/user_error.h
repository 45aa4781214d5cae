// The project's one error type for bad user input. It lives in the bottom layer so every part can
// throw it. The message names the file, line or key and says what would fix it; `mlharness` prints it
// on one line and exits with status 2. Internal bugs are not UserErrors: see MLH_ASSERT.
#pragma once

#include <stdexcept>
#include <string>

namespace mlh {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An internal invariant that does not hold: a bug in mlharness, never the user's fault.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void throw_internal_error(const char* condition, const char* file, int line);

}  // namespace mlh

#define MLH_ASSERT(condition) \
  ((condition) ? (void)0 : ::mlh::throw_internal_error(#condition, __FILE__, __LINE__))
