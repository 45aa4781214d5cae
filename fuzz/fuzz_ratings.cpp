// MovieLens ratings: datasets/movielens/ratings.h. The first byte picks the format (even: ml-20m's
// ratings.csv, odd: ml-1m's ratings.dat, chosen by the file name); a table that parses is split as
// training splits it.
#include <cstddef>
#include <cstdint>

#include "base/user_error.h"
#include "datasets/movielens/ratings.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const char* name = data[0] % 2 == 0 ? "ratings.csv" : "ratings.dat";
  const std::string path = mlh::fuzz::write_input(name, data + 1, size - 1);
  try {
    const mlh::movielens::RatingsTable table = mlh::movielens::read_ratings(path);
    mlh::movielens::leave_one_out(table, 2);
  } catch (const mlh::UserError&) {
  }
  return 0;
}
