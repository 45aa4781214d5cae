#include "harness/resume_point.h"

#include <string>

#include "base/user_error.h"

namespace mlh {

FoundCheckpoint resume_point(const RunOptions& options, const World& world, const nlohmann::json& effective_config,
                             int64_t max_epochs) {
  FoundCheckpoint found;
  std::string manifest_text;
  if (world.is_root()) {
    found = find_checkpoint(options.resume);
    manifest_text = found.manifest.to_json().dump();
  }
  found.path = world.broadcast_string(found.path);
  found.manifest = CheckpointManifest::from_json(nlohmann::json::parse(world.broadcast_string(manifest_text)), found.path);
  const CheckpointManifest& m = found.manifest;
  const std::string where = "--resume: checkpoint " + found.path;
  if (m.workload != options.workload)
    throw UserError(where + " is of workload '" + m.workload + "', not '" + options.workload + "'");
  if (m.world_size != world.size())
    throw UserError(where + " was written by " + std::to_string(m.world_size) + " ranks; resume it with mpirun -np " +
                    std::to_string(m.world_size) + " (this job has " + std::to_string(world.size()) + ")");
  if (options.seed && *options.seed != m.seed)
    throw UserError(where + " is of seed " + std::to_string(m.seed) + ", not " + std::to_string(*options.seed) +
                    " (leave --seed out to take the checkpoint's)");
  std::string differing;
  for (const auto& [key, value] : effective_config.items())
    if (!m.effective_config.contains(key) || m.effective_config[key] != value)
      differing += (differing.empty() ? "" : ", ") + key + " (" + value.dump() + " here, " +
                   (m.effective_config.contains(key) ? m.effective_config[key].dump() : std::string("absent")) + " there)";
  if (!differing.empty()) throw UserError(where + " was written with other settings: " + differing);
  if (m.finished || m.epoch >= max_epochs)
    throw UserError(where + " is of a run that ended after epoch " + std::to_string(m.epoch) + ": nothing to resume");
  return found;
}


}  // namespace mlh
