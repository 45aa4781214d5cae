#include "base/user_error.h"

#include <string>

namespace mlh {

void throw_internal_error(const char* condition, const char* file, int line) {
  throw InternalError(std::string("internal error: ") + condition + " failed at " + file + ":" +
                      std::to_string(line));
}

}  // namespace mlh
