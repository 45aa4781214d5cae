// The message of the UserError an action throws, for tests of bad input.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "base/user_error.h"

namespace mlh {

// Fails the test (and returns "") when `action` throws no UserError.
inline std::string user_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const UserError& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected a UserError";
  return "";
}

}  // namespace mlh
