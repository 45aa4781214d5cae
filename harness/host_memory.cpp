#include "harness/host_memory.h"

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdio>

namespace mlh {

double heap_in_use_mib() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 info = ::mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd) / (1024.0 * 1024.0);
#else
  return 0;
#endif
}

double resident_mib() {
  long pages = 0, resident = 0;
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  const int read = std::fscanf(statm, "%ld %ld", &pages, &resident);
  std::fclose(statm);
  return read == 2 ? static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0) : 0;
}

bool drop_from_page_cache(const std::vector<std::string>& files) {
  bool all = true;
  for (const auto& file : files) {
    const int fd = ::open(file.c_str(), O_RDONLY);
    if (fd < 0) {
      all = false;
      continue;
    }
    ::fdatasync(fd);
    all = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0 && all;
    ::close(fd);
  }
  return all;
}

}  // namespace mlh
