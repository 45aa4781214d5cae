// Every datasets/wmt/<name>.yaml, compiled into the binary: "wmt/<name>" (e.g.
// "wmt/synthetic_lexicon", the words of the synthetic corpus) -> YAML text.
#pragma once

#include <map>
#include <string>

namespace mlh {

const std::map<std::string, std::string>& embedded_lexicons();

}  // namespace mlh
