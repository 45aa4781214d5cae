#include "compliance/log_reader.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "base/user_error.h"

namespace mlh {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Shaped like NVIDIA's v0.7 ssd result log: launcher noise, a rank prefix, MLLOG lines.
constexpr const char* kMllogText =
    "Beginning trial 1 of 1\n"
    "Clearing caches\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1592641540100, \"event_type\": \"POINT_IN_TIME\", "
    "\"key\": \"cache_clear\", \"value\": true, \"metadata\": {\"file\": \"<string>\", "
    "\"lineno\": 4}}\n"
    "0: :::MLLOG {\"namespace\": \"\", \"time_ms\": 1592641544303, "
    "\"event_type\": \"INTERVAL_START\", \"key\": \"init_start\", \"value\": null, "
    "\"metadata\": {\"file\": \"train.py\", \"lineno\": 434}}\n"
    "epoch 50 loss 3.1\n"
    "[rank0] :::MLLOG {\"namespace\": \"\", \"time_ms\": 1592642814482, \"event_type\": "
    "\"POINT_IN_TIME\", \"key\": \"eval_accuracy\", \"value\": 0.2315845924031008, \"metadata\": "
    "{\"file\": \"train.py\", \"lineno\": 88, \"epoch_num\": 50}}\n"
    ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1592642814788, \"event_type\": \"INTERVAL_END\", "
    "\"key\": \"run_stop\", \"value\": null, \"metadata\": {\"file\": \"train.py\", "
    "\"lineno\": 449, \"status\": \"success\"}}\n"
    "ENDING TIMING RUN AT 2020-06-20 01:20:16 AM\n";

// Shaped like NVIDIA's v0.6 gnmt result log.
constexpr const char* kMllText =
    "Run vars: id 12 gpus 8 mparams\n"
    ":::MLL 1560822324.507 submission_benchmark: {\"value\": \"gnmt\", \"metadata\": {\"file\": "
    "\"mlperf_log_utils.py\", \"lineno\": 176}}\n"
    ":::MLL 1560822378.320 max_sequence_length: {\"value\": 75, \"metadata\": {\"method\": "
    "\"discard\", \"file\": \"train.py\", \"lineno\": 413}}\n"
    ":::MLL 1560823603.538 eval_accuracy: {\"value\": 24.1, \"metadata\": {\"epoch_num\": 4, "
    "\"file\": \"train.py\", \"lineno\": 535}}\n"
    ":::MLL 1560823603.540 run_stop: {\"value\": null, \"metadata\": {\"status\": \"success\", "
    "\"file\": \"train.py\", \"lineno\": 568}}\n";

// Shaped like NVIDIA's v0.5 ncf result log (blank lines between records, as there).
constexpr const char* kMlpText =
    ":::MLPv0.5.0 ncf 1541731848.585105896 (<string>:1) run_clear_caches\n"
    "Launching on node node-02\n"
    "\n"
    ":::MLPv0.5.0 ncf 1541731851.806846857 (ncf.py:228) preproc_hp_num_eval: 999\n"
    "\n"
    ":::MLPv0.5.0 ncf 1541731862.446722269 (/workspace/recommendation/neumf.py:57) "
    "model_hp_mlp_layer_sizes: [256, 256, 128, 64]\n"
    ":::MLPv0.5.0 ncf 1541731864.014801979 (ncf.py:347) opt_name: \"Adam\"\n"
    ":::MLPv0.5.0 ncf 1541731867.072517872 (ncf.py:450) eval_accuracy: {\"epoch\": 0, \"value\": "
    "0.43023113081527586}\n"
    ":::MLPv0.5.0 ncf 1541731885.447123289 (ncf.py:460) run_stop: {\"success\": true}\n"
    ":::MLPv0.5.0 ncf 1538683217 (./ncf.py:284) run_final\n";

TEST(LogReader, FormatNames) {
  EXPECT_STREQ(to_string(LogFormat::kMllog), ":::MLLOG");
  EXPECT_STREQ(to_string(LogFormat::kMll), ":::MLL");
  EXPECT_STREQ(to_string(LogFormat::kMlpV05), ":::MLPv0.5.0");
  EXPECT_STREQ(to_string(LogFormat::kMllogSeconds), ":::MLLOG with time_s");
  EXPECT_STREQ(to_string(LogFormat::kAlibabaV06), "MLPerf: (Alibaba v0.6)");
}

// Alibaba's v0.7 logs (tests/data/mlperf-rounds/v0.7/Alibaba): seconds in time_s, the rest :::MLLOG.
TEST(LogReader, ReadsMllogLinesWithSecondsInTimeS) {
  const ParsedLog log = parse_log_text(
      R"(:::MLLOG {"metadata": {"file": "fit.py", "lineno": 976, "status": "success"}, "value": null, "key": "run_stop", "namespace": "", "time_s": 1593354661.616, "event_type": "INTERVAL_END" })"
      "\n");
  ASSERT_TRUE(log.errors.empty());
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].format, LogFormat::kMllogSeconds);
  EXPECT_DOUBLE_EQ(log.records[0].time_ms, 1593354661616.0);
  EXPECT_EQ(log.records[0].metadata.at("status"), "success");
  // time_ms wins where both are given; neither, or a time_s that is no number, is an error.
  EXPECT_EQ(parse_log_line(R"(:::MLLOG {"time_ms": 5, "time_s": 9, "key": "k", "value": 1, "metadata": {}})", 1, nullptr)
                ->format,
            LogFormat::kMllog);
  LogParseError error;
  EXPECT_FALSE(parse_log_line(R"(:::MLLOG {"time_s": "x", "key": "k", "value": 1, "metadata": {}})", 3, &error));
  EXPECT_NE(error.message.find("time_ms"), std::string::npos) << error.message;
}

// Alibaba's v0.6 logs (tests/data/mlperf-rounds/v0.6/Alibaba): a clock to the second, values that are
// JSON, percentages or free text, and lines of prose after the time.
TEST(LogReader, ReadsAlibabasV06Lines) {
  const ParsedLog log = parse_log_text(
      "MLPerf: resnet [06/13/19 00:30:56], run_start\n"
      "MLPerf: resnet [06/13/19 00:30:57], input_batch_size: 256\n"
      "MLPerf: resnet [06/13/19 00:30:57], run_set_random_seed:2019\n"
      "MLPerf: resnet [06/13/19 00:30:57], model_hp_conv2d_fixed_padding: (224, 224, 3) -> (112, 112, 64)\n"
      "MLPerf: resnet [06/13/19 00:55:21], eval_accuracy: {\"value\": 75.98000%, \"epoch\": 79}\n"
      "MLPerf: resnet [06/13/19 00:55:21], run_stop\n"
      "MLPerf: resnet [06/13/19 00:55:21], Total runtime: 24.409763 minutes\n"
      "A line of prose that says MLPerf: resnet is fast\n");
  ASSERT_TRUE(log.errors.empty()) << log.errors.front().message;
  ASSERT_EQ(log.records.size(), 6u);
  for (const LogRecord& record : log.records) {
    EXPECT_EQ(record.format, LogFormat::kAlibabaV06);
    EXPECT_EQ(record.benchmark, "resnet");
  }
  EXPECT_EQ(log.records[0].key, "run_start");
  EXPECT_TRUE(log.records[0].value.is_null());
  EXPECT_DOUBLE_EQ(log.records[0].time_ms, 1560385856000.0);  // 2019-06-13T00:30:56Z
  EXPECT_EQ(log.records[1].value, 256);
  EXPECT_EQ(log.records[2].key, "run_set_random_seed");
  EXPECT_EQ(log.records[2].value, 2019);
  EXPECT_EQ(log.records[3].value, "(224, 224, 3) -> (112, 112, 64)");
  EXPECT_DOUBLE_EQ(log.records[4].value.at("value").get<double>(), 0.7598);
  EXPECT_EQ(log.records[4].value.at("epoch"), 79);
  EXPECT_DOUBLE_EQ(log.records[5].time_ms - log.records[0].time_ms, 1465000.0);  // 24 min 25 s
  // A broken clock is an error on its line.
  LogParseError error;
  EXPECT_FALSE(parse_log_line("MLPerf: resnet [13/13/19 00:30:56], run_start", 7, &error));
  EXPECT_EQ(error.line_number, 7);
  EXPECT_NE(error.message.find("bad date"), std::string::npos) << error.message;
  EXPECT_FALSE(parse_log_line("MLPerf: resnet [06/13/19], run_start", 8, &error));
  EXPECT_NE(error.message.find("mm/dd/yy"), std::string::npos) << error.message;
}

TEST(LogReader, ParsesMllogLinesAndIgnoresEverythingElse) {
  const ParsedLog log = parse_log_text(kMllogText);
  EXPECT_TRUE(log.errors.empty());
  EXPECT_FALSE(log.truncated_last_line);
  EXPECT_TRUE(log.path.empty());
  ASSERT_EQ(log.records.size(), 4u);

  EXPECT_EQ(log.records[0].key, "cache_clear");
  EXPECT_EQ(log.records[0].value, true);
  EXPECT_EQ(log.records[0].time_ms, 1592641540100.0);
  EXPECT_EQ(log.records[0].line_number, 3);
  EXPECT_EQ(log.records[0].metadata, json({{"file", "<string>"}, {"lineno", 4}}));

  EXPECT_EQ(log.records[2].key, "eval_accuracy");
  EXPECT_DOUBLE_EQ(log.records[2].value.get<double>(), 0.2315845924031008);
  EXPECT_EQ(log.records[2].metadata.at("epoch_num"), 50);
  EXPECT_EQ(log.records[2].line_number, 6);

  EXPECT_EQ(log.records[3].key, "run_stop");
  EXPECT_TRUE(log.records[3].value.is_null());
  EXPECT_EQ(log.records[3].metadata.at("status"), "success");
  for (const LogRecord& record : log.records) {
    EXPECT_EQ(record.format, LogFormat::kMllog);
    EXPECT_TRUE(record.benchmark.empty());
  }
}

TEST(LogReader, DropsRankPrefixes) {
  const ParsedLog log = parse_log_text(kMllogText);
  ASSERT_EQ(log.records.size(), 4u);
  EXPECT_EQ(log.records[1].key, "init_start");
  EXPECT_EQ(log.records[1].line_number, 4);
  EXPECT_EQ(log.records[1].time_ms, 1592641544303.0);
  EXPECT_EQ(log.records[2].key, "eval_accuracy");
}

TEST(LogReader, ParsesMllLinesWithSecondsAsMilliseconds) {
  const ParsedLog log = parse_log_text(kMllText);
  EXPECT_TRUE(log.errors.empty());
  ASSERT_EQ(log.records.size(), 4u);
  for (const LogRecord& record : log.records) EXPECT_EQ(record.format, LogFormat::kMll);

  EXPECT_EQ(log.records[0].key, "submission_benchmark");
  EXPECT_EQ(log.records[0].value, "gnmt");
  EXPECT_NEAR(log.records[0].time_ms, 1560822324507.0, 1e-3);
  EXPECT_EQ(log.records[0].line_number, 2);

  EXPECT_EQ(log.records[1].key, "max_sequence_length");
  EXPECT_EQ(log.records[1].value, 75);
  EXPECT_NEAR(log.records[1].time_ms, 1560822378320.0, 1e-3);
  EXPECT_EQ(log.records[1].metadata,
            json({{"method", "discard"}, {"file", "train.py"}, {"lineno", 413}}));

  EXPECT_EQ(log.records[2].value, 24.1);
  EXPECT_EQ(log.records[2].metadata.at("epoch_num"), 4);
  EXPECT_TRUE(log.records[3].value.is_null());
  EXPECT_EQ(log.records[3].metadata.at("status"), "success");
}

TEST(LogReader, ParsesMlpV05LinesWithCallSiteAsMetadata) {
  const ParsedLog log = parse_log_text(kMlpText);
  EXPECT_TRUE(log.errors.empty());
  ASSERT_EQ(log.records.size(), 7u);
  for (const LogRecord& record : log.records) {
    EXPECT_EQ(record.format, LogFormat::kMlpV05);
    EXPECT_EQ(record.benchmark, "ncf");
  }

  const LogRecord& clear = log.records[0];
  EXPECT_EQ(clear.key, "run_clear_caches");
  EXPECT_TRUE(clear.value.is_null());
  EXPECT_EQ(clear.metadata, json({{"file", "<string>"}, {"lineno", 1}}));
  EXPECT_NEAR(clear.time_ms, 1541731848585.105896, 1e-3);
  EXPECT_EQ(clear.line_number, 1);

  EXPECT_EQ(log.records[1].key, "preproc_hp_num_eval");
  EXPECT_EQ(log.records[1].value, 999);
  EXPECT_EQ(log.records[1].line_number, 4);

  EXPECT_EQ(log.records[2].value, json::array({256, 256, 128, 64}));
  EXPECT_EQ(log.records[2].metadata,
            json({{"file", "/workspace/recommendation/neumf.py"}, {"lineno", 57}}));
  EXPECT_EQ(log.records[3].value, "Adam");

  const LogRecord& accuracy = log.records[4];
  EXPECT_EQ(accuracy.key, "eval_accuracy");
  EXPECT_EQ(accuracy.value, json({{"epoch", 0}, {"value", 0.43023113081527586}}));
  EXPECT_EQ(accuracy.metadata, json({{"file", "ncf.py"}, {"lineno", 450}}));

  EXPECT_EQ(log.records[5].value, json({{"success", true}}));

  const LogRecord& final_record = log.records[6];
  EXPECT_EQ(final_record.key, "run_final");
  EXPECT_TRUE(final_record.value.is_null());
  EXPECT_EQ(final_record.time_ms, 1538683217000.0);
  EXPECT_EQ(final_record.metadata, json({{"file", "./ncf.py"}, {"lineno", 284}}));
}

TEST(LogReader, MlpCallSiteMayContainColonsAndParentheses) {
  const auto record = parse_log_line(
      ":::MLPv0.5.0 ncf 1.5 (C:/a (copy)/ncf.py:12) eval_target: 0.635", 9, nullptr);
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->metadata, json({{"file", "C:/a (copy)/ncf.py"}, {"lineno", 12}}));
  EXPECT_EQ(record->key, "eval_target");
  EXPECT_EQ(record->value, 0.635);
  EXPECT_EQ(record->time_ms, 1500.0);
  EXPECT_EQ(record->line_number, 9);
}

TEST(LogReader, AcceptsCrlfLineEndings) {
  const ParsedLog log = parse_log_text(
      ":::MLL 1560822324.5 seed: {\"value\": 3, \"metadata\": {\"file\": \"a.py\", "
      "\"lineno\": 1}}\r\n"
      ":::MLPv0.5.0 ncf 1 (a.py:2) run_final\r\n"
      ":::MLLOG {\"namespace\": \"\", \"time_ms\": 7, \"event_type\": \"POINT_IN_TIME\", \"key\": "
      "\"seed\", \"value\": 4, \"metadata\": {\"file\": \"a.cpp\", \"lineno\": 3}}\r\n");
  EXPECT_TRUE(log.errors.empty());
  ASSERT_EQ(log.records.size(), 3u);
  EXPECT_EQ(log.records[1].key, "run_final");
  EXPECT_EQ(log.records[2].value, 4);
}

TEST(LogReader, LinesWithoutMarkerAreNotErrors) {
  LogParseError error;
  EXPECT_FALSE(parse_log_line("epoch 3 loss 0.25", 5, &error).has_value());
  EXPECT_EQ(error.line_number, 0);
  EXPECT_FALSE(parse_log_line("", 6, &error).has_value());
  EXPECT_FALSE(parse_log_line(":::MLLOG", 7, &error).has_value());
  EXPECT_EQ(error.line_number, 0);
  const ParsedLog log = parse_log_text("hello\nworld\n\n:::ML nothing\n");
  EXPECT_TRUE(log.records.empty());
  EXPECT_TRUE(log.errors.empty());
}

TEST(LogReader, MalformedJsonIsAnErrorWithItsLineNumber) {
  const std::string text = std::string(kMllogText) +
                           ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1, \"key\": \"seed\",, }\n"
                           ":::MLL 1560822324.507 seed: {\"value\": 3, \"metadata\": {\n"
                           ":::MLPv0.5.0 ncf 1541731851.8 (ncf.py:228) opt_name: Adam\n"
                           "trailing noise\n";
  const ParsedLog log = parse_log_text(text);
  EXPECT_EQ(log.records.size(), 4u);
  ASSERT_EQ(log.errors.size(), 3u);
  EXPECT_EQ(log.errors[0].line_number, 9);
  EXPECT_EQ(log.errors[1].line_number, 10);
  EXPECT_EQ(log.errors[2].line_number, 11);
  for (const LogParseError& error : log.errors) {
    EXPECT_NE(error.message.find("malformed JSON"), std::string::npos) << error.message;
  }
  EXPECT_FALSE(log.truncated_last_line);
}

TEST(LogReader, MllogLinesNeedKeyTimeValueAndObjectMetadata) {
  struct Case {
    const char* line;
    const char* message;
  };
  const Case cases[] = {
      {R"(:::MLLOG {"namespace": "", "time_ms": 1, "key": "seed", "value": 1})", "no metadata"},
      {R"(:::MLLOG {"time_ms": 1, "key": "seed", "value": 1, "metadata": 3})", "metadata"},
      {R"(:::MLLOG {"time_ms": 1, "value": 1, "metadata": {}})", "key"},
      {R"(:::MLLOG {"key": "seed", "value": 1, "metadata": {}})", "time_ms"},
      {R"(:::MLLOG {"time_ms": "soon", "key": "seed", "value": 1, "metadata": {}})", "time_ms"},
      {R"(:::MLLOG {"time_ms": 1, "key": "seed", "metadata": {}})", "value"},
      {R"(:::MLLOG [1, 2])", "object"},
      {R"(:::MLL 12.5 seed: {"value": 1})", "no metadata"},
      {R"(:::MLL 12.5 seed: 7)", "object"},
      {R"(:::MLL soon seed: {"value": 1, "metadata": {}})", "timestamp"},
      {R"(:::MLL 12.5 seed {"value": 1, "metadata": {}})", "':'"},
      {R"(:::MLPv0.5.0 ncf 12.5 ncf.py:3 run_final)", "(<file>:<line>)"},
      {R"(:::MLPv0.5.0 ncf 12.5 (ncf.py) run_final)", "(<file>:<line>)"},
      {R"(:::MLPv0.5.0 ncf 12.5 (ncf.py:3) run_final:)", "no value"},
      {R"(:::MLPv0.5.0 ncf 12.5 (ncf.py:3) run_final extra)", "after the key"},
  };
  for (const Case& c : cases) {
    LogParseError error;
    EXPECT_FALSE(parse_log_line(c.line, 42, &error).has_value()) << c.line;
    EXPECT_EQ(error.line_number, 42) << c.line;
    EXPECT_NE(error.message.find(c.message), std::string::npos)
        << c.line << " -> " << error.message;
  }
  EXPECT_FALSE(parse_log_line(cases[0].line, 1, nullptr).has_value());
}

TEST(LogReader, TruncatedLastLineIsFlagged) {
  const std::string text = std::string(kMllogText) +
                           ":::MLLOG {\"namespace\": \"\", \"time_ms\": 1592642814790, \"event_t";
  const ParsedLog log = parse_log_text(text);
  EXPECT_TRUE(log.truncated_last_line);
  EXPECT_EQ(log.records.size(), 4u);
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].line_number, 9);
}

TEST(LogReader, LastLineIsNotTruncatedWhenItEndsTheTextProperly) {
  const std::string complete_without_newline =
      std::string(kMllText) +
      ":::MLL 1560823603.541 seed: {\"value\": 1, \"metadata\": {\"file\": \"a.py\", "
      "\"lineno\": 2}}";
  EXPECT_FALSE(parse_log_text(complete_without_newline).truncated_last_line);
  EXPECT_EQ(parse_log_text(complete_without_newline).records.size(), 5u);

  const std::string broken_with_newline = std::string(kMllText) + ":::MLL 1560823603.541 se\n";
  const ParsedLog broken = parse_log_text(broken_with_newline);
  EXPECT_FALSE(broken.truncated_last_line);
  EXPECT_EQ(broken.errors.size(), 1u);

  const std::string plain_text_last = std::string(kMllText) + ":::MLL 1.0 se\nDone";
  EXPECT_FALSE(parse_log_text(plain_text_last).truncated_last_line);
  EXPECT_FALSE(parse_log_text("").truncated_last_line);
}

class LogFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("mlh_log_reader_" + std::string(info->name()) + "_" +
                                        std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(LogFileTest, ReadsAFileAndRemembersItsPath) {
  const std::string path = (dir_ / "result_0.txt").string();
  std::ofstream(path, std::ios::binary) << kMlpText;
  const ParsedLog log = read_log_file(path);
  EXPECT_EQ(log.path, path);
  EXPECT_EQ(log.records.size(), 7u);
  EXPECT_TRUE(log.errors.empty());
}

TEST_F(LogFileTest, MissingFileThrowsUserErrorNamingIt) {
  const std::string path = (dir_ / "missing.txt").string();
  try {
    read_log_file(path);
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read log file '" + path + "': No such file or directory");
  }
}

TEST_F(LogFileTest, FolderThrowsUserError) {
  try {
    read_log_file(dir_.string());
    FAIL() << "expected UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot read log file '" + dir_.string() + "'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace mlh
