// Every compliance/rcp/<name>.json, compiled into the binary: name (file stem) -> JSON text.
#pragma once

#include <map>
#include <string>

namespace mlh {

const std::map<std::string, std::string>& embedded_rcp_files();

}  // namespace mlh
