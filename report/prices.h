// What the report's runs cost: hourly prices of platforms (`mlharness report --price`, `--prices`)
// and a price of electricity (`--usd-per-kwh`), in US dollars.
//
// A price names a platform as the report's Platform column spells it (exact match, after a leading
// "Nx"):
// - with a leading count, "8xTesla-V100=24.48": the price of that whole system per hour; it prices
//   the runs of Tesla-V100 on exactly 8 devices;
// - without one, "Tesla-V100=3.06": the price of one device per hour; a run on N devices costs
//   N x 3.06 per hour.
// A system price wins over a device price for its device count. A later price of the same platform
// and count replaces an earlier one (--price after --prices). A run whose platform and count no
// price covers is unpriced: its cost cells are empty ("—") and the report names it.
//
// Derived (report_tables.h): cost to train = hourly price x (run_stop - run_start) in hours;
// samples per dollar = train samples/s x 3600 / hourly price; energy cost = energy_joules / 3.6e6 x
// usd_per_kwh.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mlh::report {

struct Price {
  std::string platform;        // without the leading count
  int system_devices = 0;      // > 0: the price of a system of this many devices; 0: per device
  double usd_per_hour = 0;
  std::string given_as;        // where it came from, for messages: "--price 8xTesla-V100=24.48", "prices.yaml: T4"

  // "8xTesla-V100 $24.48/h (system)", "Tesla-T4 $0.35/device-h".
  std::string describe() const;
};

struct PriceList {
  std::vector<Price> prices;   // in the order given; later ones replace earlier ones of the same key
  std::optional<double> usd_per_kwh;

  bool empty() const { return prices.empty() && !usd_per_kwh; }
};

// The hourly price of a whole run, and the price it came from.
struct HourlyPrice {
  double usd_per_hour = 0;
  const Price* price = nullptr;
};

// "PLATFORM=USD_PER_HOUR" as --price gives it. Throws UserError naming `text` when there is no '=',
// no platform, or the price is not a positive number (a count of 0 is no count either).
Price parse_price(const std::string& text);

// A price file: YAML `{platform: usd_per_hour, ...}` (.yaml, .yml) or CSV with the header
// `platform,usd_per_hour` (.csv; fields may be quoted as RFC 4180). Throws UserError naming the
// file and the entry for an unreadable file, another extension, or a malformed entry.
std::vector<Price> read_price_file(const std::string& path);

// --usd-per-kwh: a positive number, else UserError.
double parse_usd_per_kwh(const std::string& text);

// The price of a run of `platform` (no leading count) on `devices` devices: the system price for
// that count, else the device price x devices; nullopt when neither exists or the count is unknown
// (0) for a device price.
std::optional<HourlyPrice> hourly_price(const PriceList& prices, const std::string& platform, int devices);

// "$24.48", "$0.35", "$0.0042": money with cents, or two significant digits below a cent.
std::string dollars(double usd);
// A price as given: "$24.48", "$3.00", "$0.125" (cents, or every digit up to 6 significant ones).
std::string price_text(double usd);

}  // namespace mlh::report
