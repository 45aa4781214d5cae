#include "report/prices.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <yaml-cpp/yaml.h>

#include "base/user_error.h"
#include "report/report_data.h"

namespace mlh::report {
namespace {

std::string trim(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// A positive finite number written as the whole of `text`; nullopt otherwise.
std::optional<double> positive_number(const std::string& text) {
  const std::string value = trim(text);
  if (value.empty()) return std::nullopt;
  try {
    size_t used = 0;
    const double number = std::stod(value, &used);
    if (used != value.size() || !std::isfinite(number) || number <= 0) return std::nullopt;
    return number;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// One price from its platform and amount; `where` names it in errors ("--price X", "f.csv line 3").
Price make_price(const std::string& platform_text, const std::string& amount, const std::string& where) {
  const std::string label = trim(platform_text);
  if (label.empty()) throw UserError(where + ": no platform before the price; write PLATFORM=USD_PER_HOUR, e.g. Tesla-V100=3.06");
  Price price;
  price.given_as = where;
  std::string digits;
  for (char c : label) {
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    digits += c;
  }
  price.platform = platform_without_count(label, &price.system_devices);
  if (!digits.empty() && label.size() > digits.size() && label[digits.size()] == 'x' && price.system_devices == 0)
    throw UserError(where + ": the device count before 'x' must be a whole number from 1 to 99999, e.g. 8xTesla-V100");
  const auto usd = positive_number(amount);
  if (!usd)
    throw UserError(where + ": the price '" + trim(amount) +
                    "' is not a positive number of US dollars per hour; write e.g. Tesla-V100=3.06");
  price.usd_per_hour = *usd;
  return price;
}

// The fields of one CSV line (RFC 4180 quotes; no line breaks inside a field). nullopt for an
// unterminated quote.
std::optional<std::vector<std::string>> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return fields;
}

std::vector<Price> read_csv_prices(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError("--prices " + path + ": cannot be read");
  std::vector<Price> prices;
  bool header = false;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    const std::string where = path + " line " + std::to_string(number);
    const auto fields = csv_fields(line);
    if (!fields) throw UserError(where + ": a quote is not closed");
    if (!header) {
      if (fields->size() != 2 || lower(trim((*fields)[0])) != "platform" || lower(trim((*fields)[1])) != "usd_per_hour")
        throw UserError(where + ": the first line must be the header platform,usd_per_hour");
      header = true;
      continue;
    }
    if (fields->size() != 2)
      throw UserError(where + ": " + std::to_string(fields->size()) +
                      " fields; each line is platform,usd_per_hour (quote a platform that holds a comma)");
    prices.push_back(make_price((*fields)[0], (*fields)[1], where));
  }
  if (!header) throw UserError("--prices " + path + ": empty; write the header platform,usd_per_hour and a line per platform");
  return prices;
}

std::vector<Price> read_yaml_prices(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw UserError("--prices " + path + ": not readable YAML: " + e.what());
  }
  if (!root.IsMap())
    throw UserError("--prices " + path + ": must be a YAML mapping of platform to US dollars per hour, e.g. {Tesla-V100: 3.06}");
  std::vector<Price> prices;
  for (const auto& entry : root) {
    if (!entry.first.IsScalar()) throw UserError("--prices " + path + ": a key that is not a platform name");
    const std::string platform = entry.first.Scalar();
    const std::string where = path + ": " + platform;
    if (!entry.second.IsScalar())
      throw UserError(where + ": the price must be a number of US dollars per hour, e.g. " + platform + ": 3.06");
    prices.push_back(make_price(platform, entry.second.Scalar(), where));
  }
  return prices;
}

std::string amount_text(double usd) {
  char text[64];
  const double cents = usd * 100;
  if (std::fabs(cents - std::round(cents)) < 1e-9 * std::max(1.0, cents)) std::snprintf(text, sizeof text, "%.2f", usd);
  else std::snprintf(text, sizeof text, "%.6g", usd);
  return text;
}

}  // namespace

std::string Price::describe() const {
  if (system_devices > 0) return std::to_string(system_devices) + "x" + platform + " $" + amount_text(usd_per_hour) + "/h (system)";
  return platform + " $" + amount_text(usd_per_hour) + "/device-h";
}

Price parse_price(const std::string& text) {
  const std::string where = "--price " + text;
  const size_t equals = text.rfind('=');
  if (equals == std::string::npos)
    throw UserError(where + ": no '='; write PLATFORM=USD_PER_HOUR, e.g. 8xTesla-V100=24.48 (a system) or Tesla-V100=3.06 (a device)");
  return make_price(text.substr(0, equals), text.substr(equals + 1), where);
}

std::vector<Price> read_price_file(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw UserError("--prices " + path + ": no such file");
  const std::string extension = lower(std::filesystem::path(path).extension().string());
  if (extension == ".yaml" || extension == ".yml") return read_yaml_prices(path);
  if (extension == ".csv") return read_csv_prices(path);
  throw UserError("--prices " + path + ": name a .yaml, .yml (platform: usd_per_hour) or .csv (platform,usd_per_hour) file");
}

double parse_usd_per_kwh(const std::string& text) {
  const auto usd = positive_number(text);
  if (!usd) throw UserError("--usd-per-kwh " + text + ": not a positive number of US dollars per kWh; write e.g. 0.12");
  return *usd;
}

std::optional<HourlyPrice> hourly_price(const PriceList& prices, const std::string& platform, int devices) {
  const Price* system = nullptr;
  const Price* device = nullptr;
  for (const Price& price : prices.prices) {
    if (price.platform != platform) continue;
    if (price.system_devices == 0) device = &price;
    else if (price.system_devices == devices) system = &price;
  }
  if (system) return HourlyPrice{system->usd_per_hour, system};
  if (device && devices > 0) return HourlyPrice{device->usd_per_hour * devices, device};
  return std::nullopt;
}

std::string price_text(double usd) { return "$" + amount_text(usd); }

std::string dollars(double usd) {
  char text[64];
  if (std::fabs(usd) >= 0.01 || usd == 0) std::snprintf(text, sizeof text, "$%.2f", usd);
  else std::snprintf(text, sizeof text, "$%.2g", usd);
  return text;
}

}  // namespace mlh::report
