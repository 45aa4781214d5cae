#include "compliance/mllogger.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "compliance/log_reader.h"
#include "compliance/mllog_keys.h"
#include "base/user_error.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

constexpr int64_t kStartMs = 1593020254857;

// A fresh folder per test, removed afterwards.
class MLLoggerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("mlh_mllogger_" + std::string(info->name()) + "_" +
                                        std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Options writing to `name` in the test folder, with a clock that ticks 1 ms per event.
  MLLogger::Options file_options(const std::string& name) {
    MLLogger::Options options;
    options.log_path = (dir_ / name).string();
    options.clock_ms = [this] { return kStartMs + ticks_++; };
    return options;
  }

  static std::vector<std::string> read_lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  fs::path dir_;
  int64_t ticks_ = 0;
};

TEST(MLLoggerFormat, FormatLineMatchesMlperfLoggingFieldOrderAndSpacing) {
  // The example line of spec/mlperf-logging.md section 2, as mlperf_logging writes it.
  ordered_json metadata = {{"file", "train.py"}, {"lineno", 562}, {"epoch_num", 4}};
  EXPECT_EQ(MLLogger::format_line("", 1593020254857, "eval_accuracy", 0.2435, metadata),
            R"(:::MLLOG {"namespace": "", "time_ms": 1593020254857, )"
            R"("event_type": "POINT_IN_TIME", "key": "eval_accuracy", "value": 0.2435, )"
            R"("metadata": {"file": "train.py", "lineno": 562, "epoch_num": 4}})");
}

TEST(MLLoggerFormat, FormatLineWritesNullValueAndNestedValues) {
  ordered_json metadata = {{"file", "harness/driver.cpp"}, {"lineno", 7}};
  EXPECT_EQ(MLLogger::format_line("ns", 5, "run_start", nullptr, metadata),
            R"(:::MLLOG {"namespace": "ns", "time_ms": 5, "event_type": "INTERVAL_START", )"
            R"("key": "run_start", "value": null, "metadata": {"file": "harness/driver.cpp", )"
            R"("lineno": 7}})");
  EXPECT_EQ(MLLogger::format_line("", 5, "opt_learning_rate_decay_steps", json::array({1, 2}),
                                  metadata),
            R"(:::MLLOG {"namespace": "", "time_ms": 5, "event_type": "POINT_IN_TIME", )"
            R"("key": "opt_learning_rate_decay_steps", "value": [1, 2], "metadata": )"
            R"({"file": "harness/driver.cpp", "lineno": 7}})");
}

TEST(MLLoggerFormat, FloatsAreValidJson) {
  const ordered_json metadata = {{"file", "a.cpp"}, {"lineno", 1}};
  const std::string epsilon = MLLogger::format_line("", 1, "opt_adam_epsilon", 1e-9, metadata);
  EXPECT_NE(epsilon.find(R"("value": 1e-09,)"), std::string::npos) << epsilon;
  const std::string nan = MLLogger::format_line(
      "", 1, "eval_accuracy", std::numeric_limits<double>::quiet_NaN(), metadata);
  EXPECT_NE(nan.find(R"("value": null,)"), std::string::npos) << nan;
  for (const std::string& line : {epsilon, nan}) {
    LogParseError error;
    EXPECT_TRUE(parse_log_line(line, 1, &error).has_value()) << error.message;
  }
}

TEST(MLLoggerFormat, NonAsciiIsEscapedAndRoundTrips) {
  const std::string line = MLLogger::format_line("", 1, "submission_org", "Société",
                                                 ordered_json{{"file", "a.cpp"}, {"lineno", 1}});
  EXPECT_NE(line.find(R"("Soci\u00e9t\u00e9")"), std::string::npos) << line;
  const auto record = parse_log_line(line, 1, nullptr);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->value, "Société");
}

TEST(MLLoggerFormat, EventTypeFollowsKeySuffix) {
  EXPECT_STREQ(MLLogger::event_type_for(keys::kInitStart), "INTERVAL_START");
  EXPECT_STREQ(MLLogger::event_type_for(keys::kBlockStart), "INTERVAL_START");
  EXPECT_STREQ(MLLogger::event_type_for(keys::kRunStop), "INTERVAL_END");
  EXPECT_STREQ(MLLogger::event_type_for(keys::kEpochStop), "INTERVAL_END");
  EXPECT_STREQ(MLLogger::event_type_for(keys::kEvalAccuracy), "POINT_IN_TIME");
  EXPECT_STREQ(MLLogger::event_type_for(keys::kCacheClear), "POINT_IN_TIME");
  EXPECT_STREQ(MLLogger::event_type_for("start"), "POINT_IN_TIME");
}

TEST(MLLoggerFormat, LogFileNameIsProjectRelative) {
  EXPECT_EQ(MLLogger::log_file_name("/work/main/harness/driver.cpp"), "harness/driver.cpp");
  EXPECT_EQ(MLLogger::log_file_name("/home/me/harness/mlharness/workloads/resnet/model.cpp"),
            "workloads/resnet/model.cpp");
  EXPECT_EQ(MLLogger::log_file_name("/src/mlharness/compliance/mllogger.cpp"),
            "compliance/mllogger.cpp");
  EXPECT_EQ(MLLogger::log_file_name("/src/mlharness/tests/compliance/mllogger_test.cpp"),
            "tests/compliance/mllogger_test.cpp");
  EXPECT_EQ(MLLogger::log_file_name("/src/mlharness/tests/e2e/run_test.cpp"),
            "tests/e2e/run_test.cpp");
  EXPECT_EQ(MLLogger::log_file_name("launch/main.cpp"), "launch/main.cpp");
  EXPECT_EQ(MLLogger::log_file_name("/opt/other/train.cpp"), "train.cpp");
  EXPECT_EQ(MLLogger::log_file_name("train.cpp"), "train.cpp");
}

TEST_F(MLLoggerTest, EveryLineParsesBackWithTheReader) {
  const MLLogger::Options options = file_options("run.log");
  struct Expected {
    std::string key;
    json value;
    json extra_metadata;
  };
  std::vector<Expected> expected;
  {
    MLLogger logger(options);
    logger.event(keys::kSubmissionOrg, "mlharness");
    expected.push_back({keys::kSubmissionOrg, "mlharness", json::object()});
    logger.event(keys::kCacheClear, true);
    expected.push_back({keys::kCacheClear, true, json::object()});
    logger.start(keys::kInitStart);
    expected.push_back({keys::kInitStart, nullptr, json::object()});
    logger.event(keys::kGlobalBatchSize, 3264);
    expected.push_back({keys::kGlobalBatchSize, 3264, json::object()});
    logger.event(keys::kOptAdamEpsilon, 1e-9);
    expected.push_back({keys::kOptAdamEpsilon, 1e-9, json::object()});
    logger.event(keys::kMaxSequenceLength, 75, {{keys::kMetaMethod, "discard"}});
    expected.push_back({keys::kMaxSequenceLength, 75, {{"method", "discard"}}});
    logger.start(keys::kBlockStart, {{keys::kMetaFirstEpochNum, 1}, {keys::kMetaEpochCount, 4}});
    expected.push_back({keys::kBlockStart, nullptr, {{"first_epoch_num", 1}, {"epoch_count", 4}}});
    logger.event(keys::kEvalAccuracy, 0.2435, {{keys::kMetaEpochNum, 4}});
    expected.push_back({keys::kEvalAccuracy, 0.2435, {{"epoch_num", 4}}});
    logger.event(keys::kEvalAccuracy, {{"BBOX", 0.377}, {"SEGM", 0.339}},
                 {{keys::kMetaEpochNum, 5}});
    expected.push_back(
        {keys::kEvalAccuracy, {{"BBOX", 0.377}, {"SEGM", 0.339}}, {{"epoch_num", 5}}});
    logger.event(keys::kModelHpMlpLayerSizes, json::array({256, 256, 128, 64}));
    expected.push_back({keys::kModelHpMlpLayerSizes, json::array({256, 256, 128, 64}),
                        json::object()});
    logger.end(keys::kRunStop, {{keys::kMetaStatus, keys::kStatusSuccess}});
    expected.push_back({keys::kRunStop, nullptr, {{"status", "success"}}});
  }

  const ParsedLog log = read_log_file(options.log_path);
  EXPECT_TRUE(log.errors.empty());
  EXPECT_FALSE(log.truncated_last_line);
  ASSERT_EQ(log.records.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].key);
    const LogRecord& record = log.records[i];
    EXPECT_EQ(record.format, LogFormat::kMllog);
    EXPECT_EQ(record.key, expected[i].key);
    EXPECT_EQ(record.value, expected[i].value);
    EXPECT_EQ(record.time_ms, static_cast<double>(kStartMs + static_cast<int64_t>(i)));
    EXPECT_EQ(record.line_number, static_cast<int>(i) + 1);
    EXPECT_EQ(record.metadata.at("file"), "tests/compliance/mllogger_test.cpp");
    EXPECT_TRUE(record.metadata.at("lineno").is_number_integer());
    json extra = record.metadata;
    extra.erase("file");
    extra.erase("lineno");
    EXPECT_EQ(extra, expected[i].extra_metadata);
  }
}

TEST_F(MLLoggerTest, EachLineCarriesEventType) {
  const MLLogger::Options options = file_options("types.log");
  {
    MLLogger logger(options);
    logger.start(keys::kInitStart);
    logger.end(keys::kRunStop, {{keys::kMetaStatus, keys::kStatusAborted}});
    logger.event(keys::kEvalAccuracy, 0.5, {{keys::kMetaEpochNum, 1}});
  }
  const std::vector<std::string> lines = read_lines(options.log_path);
  ASSERT_EQ(lines.size(), 3u);
  const std::string prefix = ":::MLLOG ";
  std::vector<std::string> types;
  for (const std::string& line : lines) {
    ASSERT_EQ(line.rfind(prefix, 0), 0u) << line;
    types.push_back(json::parse(line.substr(prefix.size())).at("event_type").get<std::string>());
  }
  EXPECT_EQ(types, (std::vector<std::string>{"INTERVAL_START", "INTERVAL_END", "POINT_IN_TIME"}));
}

TEST_F(MLLoggerTest, MetadataHoldsCallSiteThenCallerFieldsInOrder) {
  const MLLogger::Options options = file_options("site.log");
  const ordered_json block = {{keys::kMetaFirstEpochNum, 1}, {keys::kMetaEpochCount, 4}};
  int call_line = 0;
  {
    MLLogger logger(options);
    call_line = __LINE__ + 1;
    logger.start(keys::kBlockStart, block);
  }
  const std::vector<std::string> lines = read_lines(options.log_path);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            R"(:::MLLOG {"namespace": "", "time_ms": 1593020254857, )"
            R"("event_type": "INTERVAL_START", "key": "block_start", "value": null, )"
            R"("metadata": {"file": "tests/compliance/mllogger_test.cpp", "lineno": )" +
                std::to_string(call_line) + R"(, "first_epoch_num": 1, "epoch_count": 4}})");
}

TEST_F(MLLoggerTest, CallSiteLineIsTheCallersLine) {
  const MLLogger::Options options = file_options("lines.log");
  int event_line = 0;
  int start_line = 0;
  int end_line = 0;
  {
    MLLogger logger(options);
    event_line = __LINE__ + 1;
    logger.event(keys::kSeed, 42, {{keys::kMetaEpochNum, 0}});
    start_line = __LINE__ + 1;
    logger.start(keys::kRunStart);
    end_line = __LINE__ + 1;
    logger.end(keys::kRunStop, {{keys::kMetaStatus, keys::kStatusSuccess}});
  }
  const ParsedLog log = read_log_file(options.log_path);
  ASSERT_EQ(log.records.size(), 3u);
  EXPECT_EQ(log.records[0].metadata.at("lineno"), event_line);
  EXPECT_EQ(log.records[1].metadata.at("lineno"), start_line);
  EXPECT_EQ(log.records[2].metadata.at("lineno"), end_line);
  EXPECT_EQ(log.records[0].metadata.at("epoch_num"), 0);
  EXPECT_EQ(log.records[2].metadata.at("status"), "success");
}

TEST_F(MLLoggerTest, ReturnsTheLoggedTimeAndUsesTheNamespace) {
  MLLogger::Options options = file_options("ns.log");
  options.log_namespace = "worker";
  {
    MLLogger logger(options);
    EXPECT_EQ(logger.event(keys::kSeed, 1), kStartMs);
    EXPECT_EQ(logger.event(keys::kSeed, 2), kStartMs + 1);
  }
  const std::vector<std::string> lines = read_lines(options.log_path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find(R"({"namespace": "worker", "time_ms": 1593020254857,)"),
            std::string::npos);
}

TEST_F(MLLoggerTest, DefaultClockIsMillisecondsSinceEpoch) {
  MLLogger::Options options;
  options.log_path = (dir_ / "clock.log").string();
  MLLogger logger(options);
  const int64_t logged = logger.event(keys::kSeed, 1);
  EXPECT_GT(logged, int64_t{1'600'000'000'000});  // after 2020
  EXPECT_LT(logged, int64_t{4'000'000'000'000});  // not microseconds
}

// Two threads log while a third closes the log midway (rank 0's peer-error watch ends the log while
// the main thread may still log): every line in the file is whole, and nothing follows the close.
TEST_F(MLLoggerTest, ThreadsLogWholeLinesAndNothingAfterClose) {
  MLLogger::Options options = file_options("threads.log");
  std::atomic<int64_t> ticks{0};
  options.clock_ms = [&ticks] { return kStartMs + ticks++; };
  MLLogger logger(options);
  const std::string value(300, 'v');
  std::atomic<int> logged{0};
  auto log_many = [&] {
    for (int i = 0; i < 3000; ++i) {
      logger.event(keys::kSubmissionOrg, value, {{keys::kMetaEpochNum, i}});
      ++logged;
    }
  };
  std::thread first(log_many), second(log_many);
  while (logged < 2000) std::this_thread::yield();
  logger.close();
  const int64_t lines_at_close = static_cast<int64_t>(read_lines(options.log_path).size());
  first.join();
  second.join();

  const ParsedLog log = read_log_file(options.log_path);
  EXPECT_TRUE(log.errors.empty()) << log.errors.size() << " lines fail to parse";
  EXPECT_FALSE(log.truncated_last_line);
  EXPECT_GE(log.records.size(), 2000u);
  EXPECT_LT(log.records.size(), 6000u);
  EXPECT_EQ(static_cast<int64_t>(log.records.size()), lines_at_close);
  for (const LogRecord& record : log.records) EXPECT_EQ(record.value, value);
}

TEST_F(MLLoggerTest, EachLineIsFlushedImmediately) {
  const MLLogger::Options options = file_options("flush.log");
  MLLogger logger(options);
  logger.event(keys::kSubmissionOrg, "org");
  EXPECT_EQ(read_lines(options.log_path).size(), 1u);
  logger.event(keys::kSubmissionPlatform, "cpu");
  EXPECT_EQ(read_lines(options.log_path).size(), 2u);
}

TEST_F(MLLoggerTest, TruncatesAnExistingLog) {
  const MLLogger::Options options = file_options("old.log");
  std::ofstream(options.log_path) << "stale line\n";
  {
    MLLogger logger(options);
    logger.event(keys::kSeed, 3);
  }
  const std::vector<std::string> lines = read_lines(options.log_path);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find(R"("key": "seed")"), std::string::npos);
}

TEST_F(MLLoggerTest, DisabledLoggerWritesNothingAnywhere) {
  MLLogger::Options options = file_options("rank1.log");
  options.enabled = false;
  options.also_stdout = true;
  ::testing::internal::CaptureStdout();
  {
    MLLogger logger(options);
    EXPECT_FALSE(logger.enabled());
    EXPECT_EQ(logger.event(keys::kSeed, 1), kStartMs);
    logger.start(keys::kInitStart);
    logger.end(keys::kRunStop, {{keys::kMetaStatus, keys::kStatusSuccess}});
  }
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_FALSE(fs::exists(options.log_path));
}

TEST_F(MLLoggerTest, DisabledLoggerNeverOpensAnUnwritablePath) {
  MLLogger::Options options = file_options("missing_folder/rank1.log");
  options.enabled = false;
  EXPECT_NO_THROW(MLLogger logger(options));
}

TEST_F(MLLoggerTest, UnwritablePathThrowsUserErrorNamingIt) {
  const MLLogger::Options options = file_options("missing_folder/run.log");
  try {
    MLLogger logger(options);
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'" + options.log_path + "'"), std::string::npos)
        << e.what();
  }
}

TEST_F(MLLoggerTest, AlsoStdoutEchoesEveryLine) {
  MLLogger::Options options = file_options("echo.log");
  options.also_stdout = true;
  ::testing::internal::CaptureStdout();
  {
    MLLogger logger(options);
    logger.event(keys::kSeed, 9);
    logger.start(keys::kRunStart);
  }
  const std::string echoed = ::testing::internal::GetCapturedStdout();
  std::string file_text;
  for (const std::string& line : read_lines(options.log_path)) file_text += line + "\n";
  EXPECT_EQ(echoed, file_text);
  EXPECT_EQ(parse_log_text(echoed).records.size(), 2u);
}

TEST_F(MLLoggerTest, StdoutOnlyLoggerAndCloseIsIdempotent) {
  MLLogger::Options options;
  options.also_stdout = true;
  options.clock_ms = [] { return int64_t{1000}; };
  ::testing::internal::CaptureStdout();
  MLLogger logger(options);
  logger.event(keys::kSeed, 1);
  logger.close();
  logger.close();
  logger.event(keys::kSeed, 2);
  const ParsedLog log = parse_log_text(::testing::internal::GetCapturedStdout());
  ASSERT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.records[1].value, 2);
  EXPECT_EQ(log.records[1].time_ms, 1000.0);
}

TEST_F(MLLoggerTest, EventsAfterCloseSkipTheFile) {
  const MLLogger::Options options = file_options("closed.log");
  MLLogger logger(options);
  logger.event(keys::kSeed, 1);
  logger.close();
  logger.event(keys::kSeed, 2);
  EXPECT_EQ(read_lines(options.log_path).size(), 1u);
}

}  // namespace
}  // namespace mlh
