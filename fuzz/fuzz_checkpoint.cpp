// Checkpoints as --resume reads them (harness/checkpoint_manifest.h, find_checkpoint): the input's
// first line as the manifest.json of a one-rank checkpoint, the rest as its rank_0.state; and the
// whole input as the manifest of a checkpoint whose rank file is empty. A checkpoint accepted holds
// rank files of the sizes its manifest records.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "base/user_error.h"
#include "fuzz/fuzz_input.h"
#include "harness/checkpoint_manifest.h"

namespace {

void resume_from(const std::string& manifest, const std::string& rank_state) {
  const std::filesystem::path run = mlh::fuzz::scratch_folder() / "result_0.checkpoints";
  const std::filesystem::path checkpoint = run / "epoch_0001";
  std::filesystem::create_directories(checkpoint);
  mlh::fuzz::write_input("result_0.checkpoints/epoch_0001/manifest.json",
                         reinterpret_cast<const uint8_t*>(manifest.data()), manifest.size());
  mlh::fuzz::write_input("result_0.checkpoints/epoch_0001/rank_0.state",
                         reinterpret_cast<const uint8_t*>(rank_state.data()), rank_state.size());
  for (const std::filesystem::path& path : {run, checkpoint}) {
    try {
      const mlh::FoundCheckpoint found = mlh::find_checkpoint(path.string());
      MLH_FUZZ_EXPECT(found.manifest.world_size >= 1);
      MLH_FUZZ_EXPECT(found.manifest.rank_bytes.size() == static_cast<size_t>(found.manifest.world_size));
      MLH_FUZZ_EXPECT(found.manifest.rank_bytes[0] == rank_state.size());
    } catch (const mlh::UserError&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  resume_from(input.substr(0, newline), newline == std::string::npos ? "" : input.substr(newline + 1));
  resume_from(input, "");
  return 0;
}
