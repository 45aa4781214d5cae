// The report's cost (report/prices.h): hourly prices per system or per device, cost to train per run
// and per group (the hourly price x the olympic-mean time), samples per dollar, energy cost, the cost
// columns, chart and prices line present only with prices; price input errors; and the device counts
// named by what they count (GPUs, CPU ranks, accelerators).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/user_error.h"
#include "compliance/log_reader.h"
#include "compliance/run_summary.h"
#include "report/prices.h"
#include "report/report.h"
#include "report/report_data.h"
#include "report/report_tables.h"
#include "tests/report/report_test_logs.h"
#include "tests/test_paths.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;
using report_test::LogSpec;
using report_test::make_log;
using report_test::make_record;
using report_test::write_text;
using ::testing::HasSubstr;
using ::testing::Not;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

class ReportCost : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("report_money_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  // One gnmt run per entry of `minutes` (seeds 1..n) of `platform` ("4xName") under
  // dir_/<platform>/gnmt, each with a RunResult record: `devices` on `device` at `samples_per_second`,
  // and joules[i] of energy when given.
  void write_runs(const std::string& platform, const std::string& device, int devices, const std::vector<double>& minutes,
                  double samples_per_second, const std::vector<double>& joules = {}) {
    for (size_t i = 0; i < minutes.size(); ++i) {
      LogSpec spec;
      spec.platform = platform;
      spec.seed = static_cast<int64_t>(i + 1);
      spec.minutes = minutes[i];
      const fs::path folder = dir_ / platform / "gnmt";
      write_text(folder / ("result_" + std::to_string(i) + ".txt"), make_log(spec));
      nlohmann::json record = nlohmann::json::parse(make_record(platform, devices, samples_per_second, spec.seed.value()));
      record["device"] = device;
      if (i < joules.size()) {
        record["energy_joules"] = joules[i];
        record["mean_power_watts"] = 300.0;
        record["samples_per_joule"] = 1.5;
        record["energy_source"] = "nvml";
      }
      write_text(folder / ("result_" + std::to_string(i) + ".json"), record.dump(1));
    }
  }
  // Fast-GPU: 4 GPUs, 10, 12, 14 min (olympic mean 12), 400 samples/s. Slow-GPU: 1 GPU, 30, 36,
  // 42 min (olympic mean 36), 100 samples/s.
  void write_two_platforms() {
    write_runs("4xFast-GPU", "cuda", 4, {10, 12, 14}, 400);
    write_runs("1xSlow-GPU", "cuda", 1, {30, 36, 42}, 100);
  }
  ReportOutcome report(const PriceList& prices) {
    ReportRequest request{{dir_.string()}, (dir_ / "out").string(), ""};
    request.prices = prices;
    return make_report(request);
  }
  static PriceList prices(const std::vector<std::string>& texts, std::optional<double> usd_per_kwh = std::nullopt) {
    PriceList list;
    for (const std::string& text : texts) list.prices.push_back(parse_price(text));
    list.usd_per_kwh = usd_per_kwh;
    return list;
  }
  std::string out(const std::string& name) { return read_text(dir_ / "out" / name); }
  static const GroupSummary& group(const ReportTables& tables, const std::string& platform) {
    for (const GroupSummary& g : tables.groups)
      if (g.platform == platform) return g;
    ADD_FAILURE() << "no group of " << platform;
    return tables.groups.at(0);
  }
  static std::vector<const InputIssue*> warnings(const CollectedRuns& collected) {
    std::vector<const InputIssue*> found;
    for (const InputIssue& issue : collected.issues)
      if (!issue.skipped) found.push_back(&issue);
    return found;
  }

  fs::path dir_;
};

TEST_F(ReportCost, PerDevicePriceTimesTheCountAndPerSystemPriceAsIs) {
  write_two_platforms();
  // Fast-GPU per device: 4 x $2.50 = $10/h for the 4-GPU runs. Slow-GPU per system of 1: $1.20/h.
  const ReportOutcome outcome = report(prices({"Fast-GPU=2.5", "1xSlow-GPU=1.2"}));
  const ReportTables& tables = outcome.tables;
  ASSERT_TRUE(tables.any_price);
  EXPECT_FALSE(tables.any_energy_cost);
  EXPECT_TRUE(tables.unpriced.empty());
  EXPECT_TRUE(tables.price_warnings.empty());
  EXPECT_EQ(tables.prices_used, (std::vector<std::string>{"Fast-GPU $2.50/device-h", "1xSlow-GPU $1.20/h (system)"}));

  const GroupSummary& fast = group(tables, "Fast-GPU");
  EXPECT_DOUBLE_EQ(*fast.usd_per_hour, 10.0);
  EXPECT_EQ(fast.price_basis, "device");
  EXPECT_DOUBLE_EQ(*fast.olympic_mean_minutes, 12.0);
  EXPECT_DOUBLE_EQ(*fast.cost_usd, 2.0);                 // $10/h x 12 min
  EXPECT_DOUBLE_EQ(*fast.samples_per_usd, 144000.0);     // 400/s x 3600 s / $10
  const GroupSummary& slow = group(tables, "Slow-GPU");
  EXPECT_DOUBLE_EQ(*slow.usd_per_hour, 1.2);
  EXPECT_EQ(slow.price_basis, "system");
  EXPECT_NEAR(*slow.cost_usd, 0.72, 1e-12);              // $1.20/h x 36 min
  EXPECT_NEAR(*slow.samples_per_usd, 300000.0, 1e-6);    // 100/s x 3600 s / $1.20

  // Per run: the hourly price x its own time.
  std::vector<double> fast_costs;
  for (size_t i : fast.run_indices) fast_costs.push_back(*tables.run_costs.at(i).cost_usd);
  ASSERT_EQ(fast_costs.size(), 3u);
  EXPECT_NEAR(fast_costs[0], 10.0 * 10 / 60, 1e-12);
  EXPECT_NEAR(fast_costs[1], 2.0, 1e-12);
  EXPECT_NEAR(fast_costs[2], 10.0 * 14 / 60, 1e-12);
  EXPECT_NEAR(*tables.run_costs.at(slow.run_indices[2]).cost_usd, 0.84, 1e-12);  // 42 min
  EXPECT_NEAR(*tables.run_costs.at(slow.run_indices[0]).samples_per_usd, 300000.0, 1e-6);

  // Against the baseline (the slowest: Slow-GPU): $2.00 / $0.72.
  ASSERT_EQ(tables.comparisons.size(), 1u);
  EXPECT_DOUBLE_EQ(*tables.comparisons[0].cost_usd, 2.0);
  EXPECT_NEAR(*tables.comparisons[0].baseline_cost_usd, 0.72, 1e-12);
  EXPECT_NEAR(*tables.comparisons[0].cost_ratio, 2.0 / 0.72, 1e-12);
}

TEST_F(ReportCost, CostColumnsChartAndPricesLineInEveryOutput) {
  write_two_platforms();
  report(prices({"Fast-GPU=2.5", "1xSlow-GPU=1.2"}));
  const std::string markdown = out("report.md");
  EXPECT_THAT(markdown, HasSubstr("Prices used: Fast-GPU $2.50/device-h, 1xSlow-GPU $1.20/h (system).\n"));
  EXPECT_THAT(markdown, HasSubstr("| Price ($/h) | Cost to train ($) | Samples per dollar |\n"));
  EXPECT_THAT(markdown, HasSubstr("| gnmt | Fast-GPU | 4 GPUs |"));
  EXPECT_THAT(markdown, HasSubstr("| 10.00 | 2.00 | 144000 |\n"));
  EXPECT_THAT(markdown, HasSubstr("| 1.20 | 0.72 | 300000 |\n"));
  EXPECT_THAT(markdown, HasSubstr("| Cost to train ($) | Baseline cost ($) | Cost ratio |\n"));
  EXPECT_THAT(markdown, HasSubstr("| 2.00 | 0.72 | 2.78x |\n"));
  EXPECT_THAT(markdown, HasSubstr("charts/cost_to_train_gnmt.svg"));
  EXPECT_THAT(markdown, Not(HasSubstr("Unpriced")));
  const std::string chart = read_text(dir_ / "out/charts/cost_to_train_gnmt.svg");
  EXPECT_THAT(chart, HasSubstr("gnmt: cost to train (olympic mean)"));
  EXPECT_THAT(chart, HasSubstr("US dollars"));
  const std::string html = out("report.html");
  EXPECT_THAT(html, HasSubstr("<th class=\"num\">Cost to train ($)</th>"));
  EXPECT_THAT(html, HasSubstr("gnmt: cost to train (olympic mean)"));
  EXPECT_THAT(html, HasSubstr("Prices used: Fast-GPU $2.50/device-h"));

  EXPECT_THAT(out("summary.csv"), HasSubstr(",usd_per_hour,price_basis,cost_usd,cost_is_olympic,samples_per_usd\n"));
  EXPECT_THAT(out("summary.csv"), HasSubstr("\ngnmt,Fast-GPU,4,gpu,"));
  EXPECT_THAT(out("summary.csv"), HasSubstr(",10,device,2,true,144000\n"));
  EXPECT_THAT(out("summary.csv"), HasSubstr(",1.2,system,0.72,true,300000\n"));
  EXPECT_THAT(out("runs.csv"), HasSubstr(",usd_per_hour,price_basis,cost_usd,samples_per_usd\n"));
  EXPECT_THAT(out("runs.csv"), HasSubstr(",10,device,1.666666667,144000\n"));   // 10 minutes at $10/h
  EXPECT_THAT(out("runs.csv"), HasSubstr(",1.2,system,0.84,300000\n"));         // 42 minutes at $1.20/h
  EXPECT_THAT(out("comparison.csv"), HasSubstr(",cost_usd,baseline_cost_usd,cost_ratio\n"));
  EXPECT_THAT(out("comparison.csv"), HasSubstr(",2,0.72,2.777777778\n"));
}

// Our runs beside published logs (NVIDIA's v0.7 DGX-1 SSD, in the project's sample of public
// results): one report, each priced by its rule; the published group's cost follows the olympic mean
// the official result summarizer prints for it (20.690 min).
TEST_F(ReportCost, OurRunsBesidePublishedLogsArePricedAlike) {
  write_two_platforms();
  fs::create_directories(dir_ / "published/NVIDIA");
  fs::copy(fs::path(test_paths::source_dir()) / "tests/data/mlperf-results/v0.7/NVIDIA", dir_ / "published/NVIDIA",
           fs::copy_options::recursive);
  const ReportOutcome outcome = report(prices({"Fast-GPU=2.5", "8xNVIDIA DGX-1=24"}));
  const ReportTables& tables = outcome.tables;
  const GroupSummary& dgx1 = group(tables, "NVIDIA DGX-1");
  EXPECT_EQ(dgx1.benchmark, "ssd");
  EXPECT_EQ(dgx1.device_count, 8);
  EXPECT_EQ(dgx1.price_basis, "system");
  EXPECT_NEAR(*dgx1.olympic_mean_minutes, 20.690, 5e-4);
  EXPECT_NEAR(*dgx1.cost_usd, 24 * *dgx1.olympic_mean_minutes / 60, 1e-9);  // about $8.28
  EXPECT_NEAR(*dgx1.cost_usd, 8.276, 2e-4);
  EXPECT_DOUBLE_EQ(*group(tables, "Fast-GPU").cost_usd, 2.0);
  ASSERT_EQ(tables.unpriced.size(), 1u);
  EXPECT_THAT(tables.unpriced[0], HasSubstr("Slow-GPU"));
  EXPECT_THAT(out("summary.csv"), HasSubstr("\nssd,NVIDIA DGX-1,8,gpu,"));
  EXPECT_THAT(out("summary.csv"), HasSubstr(",24,system,8.27"));
  EXPECT_THAT(out("report.md"), HasSubstr("charts/cost_to_train_ssd.svg"));
}

TEST_F(ReportCost, NoRatesGivenNoneOfItAppears) {
  write_two_platforms();
  const ReportOutcome outcome = report({});
  EXPECT_FALSE(outcome.tables.any_price);
  EXPECT_FALSE(outcome.tables.any_energy_cost);
  for (const char* file : {"report.md", "report.html", "summary.csv", "runs.csv", "comparison.csv"}) {
    const std::string text = out(file);
    for (const char* word : {"cost", "Cost", "usd", "dollar", "Price", "price", "$"})
      EXPECT_THAT(text, Not(HasSubstr(word))) << file << ": " << word;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out/charts/cost_to_train_gnmt.svg"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "out/charts/time_to_train_gnmt.svg"));
}

TEST_F(ReportCost, AnUnpricedPlatformGetsDashesAndIsNamed) {
  write_two_platforms();
  const ReportOutcome outcome = report(prices({"Fast-GPU=2.5"}));
  EXPECT_EQ(outcome.tables.unpriced, (std::vector<std::string>{"gnmt · Slow-GPU · 1 GPU"}));
  const GroupSummary& slow = group(outcome.tables, "Slow-GPU");
  EXPECT_FALSE(slow.usd_per_hour);
  EXPECT_FALSE(slow.cost_usd);
  const std::string markdown = out("report.md");
  EXPECT_THAT(markdown, HasSubstr("Unpriced (no price for the platform and device count; — in the cost cells): gnmt · Slow-GPU · 1 GPU.\n"));
  EXPECT_THAT(markdown, HasSubstr("| — | — | — |\n"));        // Slow-GPU's price, cost, samples per dollar
  EXPECT_THAT(markdown, HasSubstr("| 2.00 | — | — |\n"));     // Fast-GPU against the unpriced baseline
  EXPECT_THAT(read_text(dir_ / "out/charts/cost_to_train_gnmt.svg"), HasSubstr("No price: Slow-GPU 1 GPU"));
  EXPECT_THAT(out("summary.csv"), HasSubstr(",100,100,false,,,cuda,false,,,,,\n"));  // empty, not "—"
  EXPECT_THAT(out("comparison.csv"), HasSubstr(",2,,\n"));
}

TEST_F(ReportCost, ASystemPricePricesOnlyItsDeviceCount) {
  write_two_platforms();
  // Fast-GPU ran on 4 GPUs: an 8-GPU system price does not price it, nor does a price of a platform
  // no run has. Neither is fatal.
  const ReportOutcome outcome = report(prices({"8xFast-GPU=20", "Quantum-GPU=3"}));
  EXPECT_FALSE(outcome.tables.any_price);
  EXPECT_FALSE(group(outcome.tables, "Fast-GPU").usd_per_hour);
  const auto found = warnings(outcome.collected);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0]->path, "--price 8xFast-GPU=20");
  EXPECT_THAT(found[0]->reason, HasSubstr("no run of Fast-GPU is on 8 devices"));
  EXPECT_EQ(found[1]->path, "--price Quantum-GPU=3");
  EXPECT_THAT(found[1]->reason, HasSubstr("no run is of platform 'Quantum-GPU'"));
  EXPECT_THAT(out("report.md"), HasSubstr("--price Quantum-GPU=3: no run is of platform 'Quantum-GPU'"));
  EXPECT_THAT(out("summary.csv"), Not(HasSubstr("cost")));
}

TEST_F(ReportCost, ASystemPriceWinsOverADevicePriceAndALaterPriceReplacesAnEarlier) {
  write_two_platforms();
  const ReportOutcome outcome = report(prices({"Fast-GPU=2.5", "4xFast-GPU=9", "4xFast-GPU=8", "Slow-GPU=1.5"}));
  const GroupSummary& fast = group(outcome.tables, "Fast-GPU");
  EXPECT_DOUBLE_EQ(*fast.usd_per_hour, 8.0);
  EXPECT_EQ(fast.price_basis, "system");
  EXPECT_NEAR(*fast.cost_usd, 1.6, 1e-12);  // $8/h x 12 min
  EXPECT_NEAR(*group(outcome.tables, "Slow-GPU").cost_usd, 0.9, 1e-12);  // 1 x $1.50/h x 36 min
  EXPECT_EQ(outcome.tables.prices_used, (std::vector<std::string>{"4xFast-GPU $8.00/h (system)", "Slow-GPU $1.50/device-h"}));
  ASSERT_EQ(outcome.tables.price_warnings.size(), 2u);
  EXPECT_EQ(outcome.tables.price_warnings[0].given_as, "--price Fast-GPU=2.5");
  EXPECT_EQ(outcome.tables.price_warnings[1].given_as, "--price 4xFast-GPU=9");
  EXPECT_THAT(outcome.tables.price_warnings[1].reason, HasSubstr("replaced by a later price"));
}

TEST_F(ReportCost, OlympicCostFollowsTheOlympicTimeNotTheMeanOfTheRuns) {
  // 10, 11, 12, 13, 30 minutes: olympic mean 12 (the mean of all five would be 15.2).
  write_runs("1xOne-GPU", "cuda", 1, {10, 11, 12, 13, 30}, 50);
  const ReportOutcome outcome = report(prices({"One-GPU=3"}));
  const GroupSummary& g = outcome.tables.groups.at(0);
  EXPECT_DOUBLE_EQ(*g.olympic_mean_minutes, 12.0);
  EXPECT_NEAR(*g.cost_usd, 0.6, 1e-12);
  EXPECT_NEAR(*g.samples_per_usd, 60000.0, 1e-9);  // 50/s x 3600 / $3
}

TEST_F(ReportCost, EnergyCostFromJoulesAndThePriceOfAKilowattHour) {
  // 1 kWh and 2 kWh and 3 kWh at $0.12: $0.12, $0.24, $0.36; mean $0.24.
  write_runs("1xWatt-GPU", "cuda", 1, {10, 11, 12}, 100, {3.6e6, 7.2e6, 10.8e6});
  const ReportOutcome outcome = report(prices({}, 0.12));
  EXPECT_FALSE(outcome.tables.any_price);
  ASSERT_TRUE(outcome.tables.any_energy_cost);
  const GroupSummary& g = outcome.tables.groups.at(0);
  EXPECT_NEAR(*g.energy_cost_usd, 0.24, 1e-12);
  EXPECT_NEAR(*outcome.tables.run_costs.at(g.run_indices[0]).energy_cost_usd, 0.12, 1e-12);
  EXPECT_NEAR(*outcome.tables.run_costs.at(g.run_indices[2]).energy_cost_usd, 0.36, 1e-12);
  EXPECT_THAT(out("report.md"), HasSubstr("Prices used: energy $0.12/kWh.\n"));
  EXPECT_THAT(out("report.md"), HasSubstr("| Energy cost per run ($) |\n"));
  EXPECT_THAT(out("report.md"), HasSubstr("| 0.24 |\n"));
  EXPECT_THAT(out("runs.csv"), HasSubstr(",nvml,0.36\n"));
  EXPECT_THAT(out("summary.csv"), HasSubstr(",energy_cost_usd\n"));
  EXPECT_THAT(out("summary.csv"), HasSubstr(",0.24\n"));
  EXPECT_THAT(out("summary.csv"), Not(HasSubstr("usd_per_hour")));  // no hourly price: no cost to train
  EXPECT_FALSE(fs::exists(dir_ / "out/charts/cost_to_train_gnmt.svg"));
}

TEST_F(ReportCost, KilowattHourPriceWithoutEnergyIsAWarning) {
  write_two_platforms();
  const ReportOutcome outcome = report(prices({}, 0.12));
  EXPECT_FALSE(outcome.tables.any_energy_cost);
  const auto found = warnings(outcome.collected);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->path, "--usd-per-kwh");
  EXPECT_THAT(found[0]->reason, HasSubstr("no run record has energy_joules"));
  EXPECT_THAT(out("runs.csv"), Not(HasSubstr("energy_cost")));
}

// ---- Price input. ----

void expect_price_error(const std::string& text, const std::string& expected) {
  try {
    parse_price(text);
    ADD_FAILURE() << "'" << text << "' must be a UserError";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("--price " + text + ": ")) << text;
    EXPECT_THAT(e.what(), HasSubstr(expected)) << text;
  }
}

TEST(Prices, ParsedPerSystemOrPerDevice) {
  const Price system = parse_price("8xTesla-V100=24.48");
  EXPECT_EQ(system.platform, "Tesla-V100");
  EXPECT_EQ(system.system_devices, 8);
  EXPECT_DOUBLE_EQ(system.usd_per_hour, 24.48);
  EXPECT_EQ(system.describe(), "8xTesla-V100 $24.48/h (system)");
  const Price device = parse_price(" NVIDIA DGX A100 = 3.06 ");
  EXPECT_EQ(device.platform, "NVIDIA DGX A100");
  EXPECT_EQ(device.system_devices, 0);
  EXPECT_EQ(device.describe(), "NVIDIA DGX A100 $3.06/device-h");
  EXPECT_EQ(parse_price("T4=0.125").describe(), "T4 $0.125/device-h");
}

TEST(Prices, MalformedPricesAreUserErrors) {
  expect_price_error("Tesla-V100", "no '='");
  expect_price_error("Tesla-V100=-3.06", "not a positive number");
  expect_price_error("Tesla-V100=0", "not a positive number");
  expect_price_error("Tesla-V100=abc", "not a positive number");
  expect_price_error("Tesla-V100=3.06$", "not a positive number");
  expect_price_error("Tesla-V100=nan", "not a positive number");
  expect_price_error("Tesla-V100=", "not a positive number");
  expect_price_error("=3", "no platform");
  expect_price_error("0xTesla-V100=3", "device count");
  EXPECT_THROW(parse_usd_per_kwh("-0.1"), UserError);
  EXPECT_THROW(parse_usd_per_kwh("cheap"), UserError);
  EXPECT_DOUBLE_EQ(parse_usd_per_kwh("0.12"), 0.12);
}

TEST(Prices, HourlyPriceOfARun) {
  PriceList list;
  list.prices = {parse_price("Tesla-V100=3.06"), parse_price("8xTesla-V100=24"), parse_price("4xDGX=10")};
  EXPECT_DOUBLE_EQ(hourly_price(list, "Tesla-V100", 8)->usd_per_hour, 24);      // the system price wins
  EXPECT_DOUBLE_EQ(hourly_price(list, "Tesla-V100", 2)->usd_per_hour, 6.12);    // 2 x the device price
  EXPECT_EQ(hourly_price(list, "Tesla-V100", 2)->price->system_devices, 0);
  EXPECT_FALSE(hourly_price(list, "Tesla-V100", 0));                             // count unknown
  EXPECT_FALSE(hourly_price(list, "DGX", 8));                                   // only a 4-device system is priced
  EXPECT_FALSE(hourly_price(list, "tesla-v100", 8));                            // names match exactly
}

class PriceFile : public ReportCost {
 protected:
  fs::path file(const std::string& name, const std::string& text) {
    write_text(dir_ / name, text);
    return dir_ / name;
  }
  void expect_error(const fs::path& path, const std::string& expected) {
    try {
      read_price_file(path.string());
      ADD_FAILURE() << path << " must be a UserError";
    } catch (const UserError& e) {
      EXPECT_THAT(e.what(), HasSubstr(path.string())) << path;
      EXPECT_THAT(e.what(), HasSubstr(expected)) << path;
    }
  }
};

TEST_F(PriceFile, YamlMapping) {
  const std::vector<Price> read = read_price_file(file("prices.yaml", "8xTesla-V100: 24.48\nTesla-T4: 0.35\n").string());
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].describe(), "8xTesla-V100 $24.48/h (system)");
  EXPECT_EQ(read[1].describe(), "Tesla-T4 $0.35/device-h");
  EXPECT_EQ(read[1].given_as, (dir_ / "prices.yaml").string() + ": Tesla-T4");
  EXPECT_EQ(read_price_file(file("p.yml", "{A: 1, B: 2}").string()).size(), 2u);
}

TEST_F(PriceFile, CsvWithHeaderAndQuotes) {
  const std::vector<Price> read =
      read_price_file(file("prices.csv", "platform,usd_per_hour\r\n8xTesla-V100,24.48\r\n\"Slow, old GPU\",0.5\r\n\r\n").string());
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].system_devices, 8);
  EXPECT_EQ(read[1].platform, "Slow, old GPU");
  EXPECT_DOUBLE_EQ(read[1].usd_per_hour, 0.5);
  EXPECT_EQ(read[1].given_as, (dir_ / "prices.csv").string() + " line 3");
}

TEST_F(PriceFile, MalformedFilesAreUserErrors) {
  expect_error(file("a.csv", "name,price\nT4,1\n"), "line 1: the first line must be the header platform,usd_per_hour");
  expect_error(file("b.csv", "platform,usd_per_hour\nT4,1\nV100,-2\n"), "line 3: the price '-2' is not a positive number");
  expect_error(file("c.csv", "platform,usd_per_hour\nT4,1,2\n"), "line 2: 3 fields");
  expect_error(file("d.csv", ""), "empty");
  expect_error(file("e.yaml", "- T4\n- V100\n"), "must be a YAML mapping");
  expect_error(file("f.yaml", "T4: [1, 2]\n"), "T4: the price must be a number");
  expect_error(file("g.yaml", "T4: free\n"), "T4: the price 'free' is not a positive number");
  expect_error(file("h.yaml", "T4: {\n"), "not readable YAML");
  expect_error(file("prices.txt", "T4=1\n"), "name a .yaml, .yml");
  expect_error(dir_ / "missing.yaml", "no such file");
}

// ---- Device counts say what they count. ----

TEST(DeviceKinds, CountLabels) {
  EXPECT_EQ(count_label(8, DeviceKind::kGpu), "8 GPUs");
  EXPECT_EQ(count_label(1, DeviceKind::kGpu), "1 GPU");
  EXPECT_EQ(count_label(2, DeviceKind::kCpu), "2 CPU ranks");
  EXPECT_EQ(count_label(1, DeviceKind::kCpu), "1 CPU rank");
  EXPECT_EQ(count_label(8, DeviceKind::kAccelerator), "8 accelerators");
  EXPECT_EQ(count_label(0, DeviceKind::kGpu), "? GPUs");
  EXPECT_EQ(count_label(4, std::nullopt), "4 devices");
  EXPECT_STREQ(to_string(DeviceKind::kAccelerator), "accelerator");
}

TEST(DeviceKinds, ByName) {
  for (const char* gpu : {"NVIDIA V100-SXM2-16GB (300W)", "Nvidia Tesla V100S-PCIe-32GB", "Tesla-V100", "NVIDIA DGX A100",
                          "Test-GPU", "TestGPU", "A100-SXM4-40GB", "AMD Instinct MI250"})
    EXPECT_EQ(device_kind_by_name(gpu), DeviceKind::kGpu) << gpu;
  for (const char* cpu : {"AMD EPYC 7742", "Intel(R) Xeon(R) Gold 6148", "Test-CPU", "cpu"})
    EXPECT_EQ(device_kind_by_name(cpu), DeviceKind::kCpu) << cpu;
  for (const char* other : {"TPU-v3", "Cloud TPU v3-512", "DSS8440", ""})
    EXPECT_EQ(device_kind_by_name(other), std::nullopt) << other;
}

TEST_F(ReportCost, CpuRunsCountRanksEverywhere) {
  write_runs("2xTest-CPU", "cpu", 2, {50, 55, 60}, 10);
  write_runs("1xSlow-GPU", "cuda", 1, {30, 36, 42}, 100);
  const ReportOutcome outcome = report(prices({"2xTest-CPU=0.2"}));
  EXPECT_EQ(outcome.collected.runs.back().device_kind, DeviceKind::kCpu);
  const std::string markdown = out("report.md");
  EXPECT_THAT(markdown, HasSubstr("| gnmt | Test-CPU | 2 CPU ranks |"));
  EXPECT_THAT(markdown, HasSubstr("| Slow-GPU | 1 GPU | Test-CPU | 2 CPU ranks | 36.000 | 55.000 |"));  // against the baseline
  EXPECT_THAT(markdown, HasSubstr("| 0.20 | 0.18 | 180000 |\n"));           // $0.20/h x 55 min; 10/s x 3600 / $0.20
  EXPECT_THAT(markdown, Not(HasSubstr("2 GPUs")));
  EXPECT_THAT(out("summary.csv"), HasSubstr("\ngnmt,Test-CPU,2,cpu,"));
  EXPECT_THAT(out("runs.csv"), HasSubstr("\ngnmt,Test-CPU,2,cpu,"));
  EXPECT_THAT(out("comparison.csv"), HasSubstr(",Test-CPU,slowest,2,cpu,"));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "out/charts/epochs_gnmt_Test-CPU_2cpu.svg"));
  // Two kinds on one axis: devices.
  EXPECT_THAT(read_text(dir_ / "out/charts/time_to_train_gnmt.svg"), HasSubstr(">devices</text>"));
}

TEST_F(ReportCost, APublishedSystemWhoseModelIsNoGpuCountsAccelerators) {
  LogSpec spec;
  spec.platform = "SUBMISSION_PLATFORM_PLACEHOLDER";
  write_text(dir_ / "Google/results/tpu-v3-256/gnmt/result_0.txt", make_log(spec));
  write_text(dir_ / "Google/systems/tpu-v3-256.json",
             R"({"system_name": "tpu-v3-256", "number_of_nodes": "1", "accelerators_per_node": "256",
                 "accelerator_model_name": "TPU v3"})");
  LogSpec dgx = spec;
  dgx.platform = "1xNVIDIA DGX A100";
  write_text(dir_ / "NVIDIA/results/dgxa100/gnmt/result_0.txt", make_log(dgx));
  write_text(dir_ / "NVIDIA/systems/dgxa100.json", R"({"system_name": "dgxa100", "accelerators_per_node": "8"})");

  const RunPlatform tpu = identify_run_platform(summarize_run(read_log_file((dir_ / "Google/results/tpu-v3-256/gnmt/result_0.txt").string())));
  EXPECT_EQ(tpu.device_kind, DeviceKind::kAccelerator);
  EXPECT_EQ(tpu.label_with_kind(), "256xtpu-v3-256: 256 accelerators");
  const RunPlatform a100 = identify_run_platform(summarize_run(read_log_file((dir_ / "NVIDIA/results/dgxa100/gnmt/result_0.txt").string())));
  EXPECT_EQ(a100.device_kind, DeviceKind::kGpu);  // no model named: the platform's name says GPU
  EXPECT_EQ(a100.label_with_kind(), "8xNVIDIA DGX A100: 8 GPUs");

  report({});
  EXPECT_THAT(out("report.md"), HasSubstr("| gnmt | tpu-v3-256 | 256 accelerators | TPU v3 |"));
  EXPECT_THAT(out("summary.csv"), HasSubstr("\ngnmt,tpu-v3-256,256,accelerator,TPU v3,"));
}

}  // namespace
}  // namespace mlh::report
