// Submissions' system descriptions (report/system_description.h): the same bytes as a systems JSON
// (or NVIDIA's v0.6 lines), and as a v0.6 log's submission_entry value; the counts they give, when
// they give one, are positive.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "base/user_error.h"
#include "fuzz/fuzz_input.h"
#include "report/system_description.h"

namespace {

void check_counts(const mlh::report::SystemDescription& system) {
  if (const std::optional<int> accelerators = system.accelerator_count()) MLH_FUZZ_EXPECT(*accelerators > 0);
  if (const std::optional<int> processors = system.processor_count()) MLH_FUZZ_EXPECT(*processors > 0);
  system.is_tpu_slice();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    std::string problem;
    const std::string path = mlh::fuzz::write_input("system.json", data, size);
    if (const std::optional<mlh::report::SystemDescription> system = mlh::report::read_system_file(path, &problem))
      check_counts(*system);
    else
      MLH_FUZZ_EXPECT(!problem.empty());
  } catch (const mlh::UserError&) {
  }
  try {
    if (const auto system = mlh::report::parse_submission_entry(std::string(reinterpret_cast<const char*>(data), size)))
      check_counts(*system);
  } catch (const mlh::UserError&) {
  }
  return 0;
}
