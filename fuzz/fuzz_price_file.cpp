// Price files (report/prices.h read_price_file): the same bytes as a YAML file and as a CSV file, and
// each line as a --price argument; every price read must be a positive, finite number.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "base/user_error.h"
#include "fuzz/fuzz_input.h"
#include "report/prices.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (const char* name : {"prices.yaml", "prices.csv"}) {
    try {
      for (const mlh::report::Price& price : mlh::report::read_price_file(mlh::fuzz::write_input(name, data, size)))
        MLH_FUZZ_EXPECT(std::isfinite(price.usd_per_hour) && price.usd_per_hour > 0);
    } catch (const mlh::UserError&) {
    }
  }
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
  for (std::string line; std::getline(lines, line);) {
    try {
      const mlh::report::Price price = mlh::report::parse_price(line);
      MLH_FUZZ_EXPECT(std::isfinite(price.usd_per_hour) && price.usd_per_hour > 0);
    } catch (const mlh::UserError&) {
    }
  }
  return 0;
}
