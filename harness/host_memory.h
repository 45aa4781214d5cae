// What this process and the host's page cache hold: the record's per-epoch memory figures, and the
// MLPerf cache_clear before a run (data starts on durable storage, not in RAM).
#pragma once

#include <string>
#include <vector>

namespace mlh {

// What malloc has handed out and not had back, in MiB (glibc 2.33 and newer; 0 elsewhere).
double heap_in_use_mib();

// This process's resident memory (RSS), in MiB; 0 when /proc cannot be read.
double resident_mib();

// Asks the kernel to drop the files' cached pages. True when every file was dropped.
bool drop_from_page_cache(const std::vector<std::string>& files);

}  // namespace mlh
