// Every compliance/rules/<ruleset>/<name>.yaml, compiled into the binary:
// "<ruleset>/<name>" (e.g. "0.7.0/closed_gnmt") -> YAML text.
#pragma once

#include <map>
#include <string>

namespace mlh {

const std::map<std::string, std::string>& embedded_rules();

}  // namespace mlh
