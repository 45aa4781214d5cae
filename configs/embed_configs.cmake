# Writes OUTPUT: a C++ file defining mlh::embedded_configs() from the YAML files in INPUTS.
string(REPLACE " " ";" INPUTS "${INPUTS}")
set(body "")
foreach(path IN LISTS INPUTS)
  get_filename_component(name ${path} NAME_WE)
  file(READ ${path} text)
  string(APPEND body "      {\"${name}\", R\"mlhyaml(${text})mlhyaml\"},\n")
endforeach()
file(WRITE ${OUTPUT} "// Generated from configs/*.yaml by configs/embed_configs.cmake.
#include \"configs/embedded_configs.h\"

namespace mlh {

const std::map<std::string, std::string>& embedded_configs() {
  static const std::map<std::string, std::string> configs = {
${body}  };
  return configs;
}

}  // namespace mlh
")
