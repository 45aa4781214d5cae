// `mlharness check LOG... [--ruleset R]`: MLPerf compliance rules on each log. Prints `PASS path` or
// `FAIL path` followed by every failed rule (indented), then the rules not checked ("  not checked: ")
// and the warnings ("  warning: "), and `ERROR path: why` for a file that cannot be read or is not an
// MLPerf log. Exit 0 when all pass, 1 when any fails, 2 when any is unreadable.
#include <algorithm>
#include <boost/program_options.hpp>
#include <iostream>

#include "compliance/checker.h"
#include "compliance/log_reader.h"
#include "base/user_error.h"
#include "launch/analysis_commands.h"

namespace po = boost::program_options;

namespace mlh {
namespace {

constexpr int kExitAllPass = 0;
constexpr int kExitSomeFail = 1;
constexpr int kExitUnreadable = 2;

const char* kCheckUsage = R"(usage: mlharness check LOG... [--ruleset 0.7.0|0.6.0|0.5.0]

Checks each MLPerf training log against the compliance rules of its ruleset (by default the one of
its line format: :::MLLOG -> 0.7.0, :::MLL -> 0.6.0, :::MLPv0.5.0 -> 0.5.0) and its benchmark
(submission_benchmark). Prints PASS or FAIL per log, each failed rule below it, then what was not
checked (an MLPerf benchmark the ruleset has no rules for: a v0.5 GNMT log, a v0.7 BERT log) and
the warnings (rules marked as warnings, such as v0.5 NCF keys its checker did not demand). A run
resumed from a checkpoint (mlharness_resumed_from) FAILs: its time to train covers only the resumed
part.
Exit status: 0 all pass, 1 some fail, 2 some file unreadable or not a log.
)";

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// Checks one file and prints its verdict; returns its exit status.
int check_one(const std::string& path, const std::string& ruleset) {
  ParsedLog log;
  try {
    log = read_log_file(path);
  } catch (const UserError& error) {
    std::cout << "ERROR " << path << ": " << error.what() << "\n";
    return kExitUnreadable;
  }
  if (log.records.empty() && log.errors.empty()) {
    std::cout << "ERROR " << path << ": not an MLPerf log (no :::MLLOG, :::MLL or :::MLPv0.5.0 lines)\n";
    return kExitUnreadable;
  }
  const CheckResult result = check_log(log, ruleset);
  std::cout << (result.passed ? "PASS " : "FAIL ") << path << "\n";
  for (const RuleFailure& failure : result.failures) std::cout << "  " << failure.to_string() << "\n";
  for (const std::string& reason : result.not_checked) std::cout << "  not checked: " << reason << "\n";
  for (const std::string& warning : result.warnings) std::cout << "  warning: " << warning << "\n";
  return result.passed ? kExitAllPass : kExitSomeFail;
}

}  // namespace

int check_command(const std::vector<std::string>& args) {
  po::options_description options("check options");
  options.add_options()
      ("help,h", "print this help")
      ("ruleset", po::value<std::string>()->default_value(""),
       ("the rule set for every log (default: by each log's line format); known: " +
        join(known_compliance_rulesets())).c_str());
  const po::variables_map vars = parse_with_positionals(args, options, "logs");

  if (vars.count("help")) {
    std::cout << kCheckUsage << "\n" << options;
    return kExitAllPass;
  }
  if (!vars.count("logs")) throw UserError("check: name at least one log file (see mlharness check --help)");
  const std::string ruleset = vars["ruleset"].as<std::string>();
  const std::vector<std::string> known = known_compliance_rulesets();
  if (!ruleset.empty() && std::find(known.begin(), known.end(), ruleset) == known.end()) {
    throw UserError("check: unknown --ruleset '" + ruleset + "' (known: " + join(known) + ")");
  }

  int status = kExitAllPass;
  for (const std::string& path : vars["logs"].as<std::vector<std::string>>()) {
    status = std::max(status, check_one(path, ruleset));
  }
  return status;
}

}  // namespace mlh
