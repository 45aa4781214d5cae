// Generated datasets are written once per spec and then reused: a folder counts as generated once its
// writer has returned, which the marker file `.complete` records, so a writer that died half-way is
// run again rather than trusted.
#pragma once

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "base/user_error.h"

namespace mlh {

// Calls write(root) unless root/.complete exists, then creates the marker. Throws what write throws,
// or UserError when the marker cannot be written.
inline void generate_folder_once(const std::string& root, const std::function<void(const std::string&)>& write) {
  const std::filesystem::path done = std::filesystem::path(root) / ".complete";
  if (std::filesystem::exists(done)) return;
  write(root);
  std::ofstream marker(done.string());
  marker << "written by mlharness\n";
  if (!marker) throw UserError(done.string() + ": cannot write the marker of a generated dataset");
}

}  // namespace mlh
