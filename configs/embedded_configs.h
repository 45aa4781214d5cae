// Every configs/<name>.yaml, compiled into the binary: name (file stem) -> YAML text.
#pragma once

#include <map>
#include <string>

namespace mlh {

const std::map<std::string, std::string>& embedded_configs();

}  // namespace mlh
