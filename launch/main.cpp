// The mlharness command: `run` (the default), `bench`, `prepare` and `list` train or measure; `check`,
// `score`, `report` and `coco-eval` read results (launch/analysis_commands.h). Parses the command line with
// Boost.Program_options, finds the config, and hands over to the engine. User errors print one line
// and exit 2; under mpirun an error on any rank ends the whole job with its message.
#include <unistd.h>

#include <cstdlib>

#include <algorithm>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <thread>

#include "base/user_error.h"
#include "configs/embedded_configs.h"
#include "harness/bench.h"
#include "harness/cpu_share.h"
#include "harness/device.h"
#include "harness/driver.h"
#include "harness/platform.h"
#include "harness/results.h"
#include "harness/settings.h"
#include "harness/workload.h"
#include "harness/device_world.h"
#include "harness/world.h"
#include "launch/analysis_commands.h"

namespace po = boost::program_options;

namespace mlh {
namespace {

constexpr int kExitConverged = 0;
constexpr int kExitNotConverged = 1;
constexpr int kExitUserError = 2;
constexpr int kExitInternalError = 3;

const char* kUsage = R"(mlharness: MLPerf-style time-to-accuracy training on LibTorch

usage:
  mlharness [run] --workload NAME [--config NAME|PATH] [--seed N] [--set KEY=VALUE]... [options]
                  [--checkpoint-every N] [--resume DIR]
  mlharness bench --workload NAME [--batch-sizes B1,B2,..] [--precision fp32,amp] [--channels-last]
                  [--inference | --loader] [options]
  mlharness prepare --workload NAME [--KEY VALUE]...  the workload's data folder from raw files
                  (transformer, gnmt: --src train.en --tgt train.de --out DIR; --help lists the keys)
  mlharness list [--json]                     the workloads and their configs (--json: for scripts)
  mlharness check LOG... [--ruleset 0.7.0|0.6.0|...]        MLPerf compliance rules: PASS or FAIL
  mlharness score DIR... [--rcp] [--benchmark NAME]        MLPerf scores, epochs per seed, RCP test
  mlharness report DIR... --out DIR [--baseline PLATFORM]  tables and charts across platforms
  mlharness coco-eval --annotations GT.json --detections DT.json [--iou-type bbox|segm] [--json OUT]
                  COCO box or mask AP of a results file, as pycocotools' COCOeval computes it
  mlharness --workload NAME --help          also lists the workload's config keys

  mpirun -np 4 mlharness --workload ncf --seed 7      one process per device, data parallel

run trains until the workload's quality target is reached (exit 0) or max_epochs pass (exit 1),
writing an MLPerf log <out>/<platform>/<benchmark>/result_<i>.txt and its record result_<i>.json.
Bad input exits 2 with a one-line message. SIGINT or SIGTERM stops after the current step, finishes
the log (run_stop aborted) and exits 128 + the signal; --checkpoint-every N and --resume DIR continue
a run where it stopped.
)";

struct CommandLine {
  std::string command = "run";
  po::variables_map vars;
  std::vector<std::string> unparsed;  // prepare: the workload's own options
};

po::options_description common_options() {
  po::options_description options("common options");
  options.add_options()
      ("help,h", "print this help (with --workload: also the workload's config keys)")
      ("workload,w", po::value<std::string>(), "workload name (see `mlharness list`)")
      ("config,c", po::value<std::string>()->default_value(""),
       "config: a name (`mini`, `ncf-mini`) of an embedded configs/*.yaml, or a YAML file path; "
       "default: the workload's full-scale config")
      ("device", po::value<std::string>(),
       "cpu or cuda (default: auto, a GPU per rank when the build and machine have them; the config key device)")
      ("set,s", po::value<std::vector<std::string>>()->composing(),
       "override a config key, KEY=VALUE (value in YAML syntax); repeatable");
  return options;
}

po::options_description run_options() {
  po::options_description options("run options");
  options.add_options()
      ("seed", po::value<std::string>(), "the seed of every random stream (default: drawn and logged)")
      ("out,o", po::value<std::string>()->default_value("results"), "results folder")
      ("data-dir", po::value<std::string>()->default_value("data"), "where generated datasets are kept")
      ("platform", po::value<std::string>()->default_value(""),
       "platform label for the results path and submission_platform (default: detected, e.g. 1xTesla-T4)")
      ("checkpoint-every", po::value<int64_t>()->default_value(0),
       "write a checkpoint after every N epochs and at the end, in <log stem>.checkpoints/ (0: none)")
      ("keep-checkpoints", po::value<int64_t>()->default_value(2), "keep the newest K checkpoints")
      ("resume", po::value<std::string>(),
       "continue from a checkpoint, or from the newest whole one in a run's .checkpoints folder; give the "
       "same workload, config and rank count (the seed is the checkpoint's). Its log is a new, non-compliant one")
      ("mllog-stdout", "also print the MLPerf log lines to stdout")
      ("quiet,q", "no progress display");
  return options;
}

po::options_description bench_options() {
  po::options_description options("bench options");
  options.add_options()
      ("batch-sizes", po::value<std::string>(), "comma-separated batch sizes per rank (default: the config's)")
      ("batch-size", po::value<std::string>(), "same as --batch-sizes")
      ("precision", po::value<std::string>()->default_value("fp32"), "comma-separated precisions: fp32 (TF32 on Ampere and newer GPUs while allow_tf32 is on), fp32-strict (TF32 off), amp, bf16")
      ("inference", "time forward passes only")
      ("loader", "time the data loader alone (decode and augment), no model")
      ("channels-last", "image workloads: channels-last (NHWC) memory format")
      ("warmup", po::value<int64_t>()->default_value(3), "untimed steps before measuring")
      ("steps", po::value<int64_t>()->default_value(10), "steps per timed window")
      ("repeats", po::value<int64_t>()->default_value(3), "timed windows; the median is reported")
      ("json", po::value<std::string>()->default_value(""), "also write the results as JSON to this file");
  return options;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : text + ",") {
    if (c == ',') {
      if (!part.empty()) parts.push_back(part);
      part.clear();
    } else if (c != ' ') {
      part.push_back(c);
    }
  }
  return parts;
}

int64_t parse_integer(const std::string& text, const std::string& what) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    throw UserError(what + " '" + text + "' is not an integer");
  return value;
}

uint64_t parse_seed(const std::string& text) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    throw UserError("--seed '" + text + "' is not a non-negative integer");
  return value;
}

// The config for `--config VALUE`: an existing file path, or an embedded name (`mini` means
// `<workload>-mini`, empty means `<workload>`). Returns the map and a label for the record.
std::pair<ConfigMap, std::string> load_config(const std::string& workload, const std::string& value) {
  WorkloadRegistry::instance().create(workload);  // an unknown workload is the first thing to report
  if (value.find('/') != std::string::npos || value.find(".yaml") != std::string::npos ||
      value.find(".yml") != std::string::npos) {
    if (!std::filesystem::exists(value)) throw UserError("config file '" + value + "' does not exist");
    return {ConfigMap::from_file(value), value};
  }
  const auto& configs = embedded_configs();
  for (const std::string& name : {value.empty() ? workload : workload + "-" + value, value}) {
    const auto found = configs.find(name);
    if (!name.empty() && found != configs.end())
      return {ConfigMap::from_yaml_text(found->second, "configs/" + name + ".yaml"), name};
  }
  std::string known;
  for (const auto& [name, text] : configs)
    if (name == workload || name.rfind(workload + "-", 0) == 0) known += (known.empty() ? "" : ", ") + name;
  throw UserError("no config '" + value + "' for workload '" + workload + "'; configs: " +
                  (known.empty() ? "none" : known) + ", or a path to a YAML file");
}

std::string require_workload(const po::variables_map& vars) {
  if (!vars.count("workload")) throw UserError("--workload NAME is required (see `mlharness list`)");
  return vars["workload"].as<std::string>();
}

ConfigMap configured(const po::variables_map& vars, const std::string& workload, std::string* label) {
  auto [config, config_label] = load_config(workload, vars["config"].as<std::string>());
  if (vars.count("set"))
    for (const auto& assignment : vars["set"].as<std::vector<std::string>>()) config.apply_override(assignment);
  if (vars.count("device")) config.apply_override("device=" + vars["device"].as<std::string>());
  if (label) *label = config_label;
  return std::move(config);
}

// The registered workloads with their embedded configs; as JSON ([{name, description, configs}]) for
// the scripts and checks that iterate over them.
int list_command(bool as_json) {
  nlohmann::json workloads = nlohmann::json::array();
  for (const auto& [name, entry] : WorkloadRegistry::instance().entries()) {
    std::vector<std::string> configs;
    for (const auto& [config, text] : embedded_configs())
      if (config == name || config.rfind(name + "-", 0) == 0) configs.push_back(config);
    workloads.push_back({{"name", name}, {"description", entry.description}, {"configs", configs}});
  }
  if (as_json) {
    std::printf("%s\n", workloads.dump(2).c_str());
    return 0;
  }
  std::printf("workloads:\n");
  for (const nlohmann::json& workload : workloads) {
    std::string configs;
    for (const std::string config : workload["configs"]) configs += (configs.empty() ? "" : ", ") + config;
    std::printf("  %-12s %s\n  %-12s configs: %s\n", workload["name"].get<std::string>().c_str(),
                workload["description"].get<std::string>().c_str(), "", configs.c_str());
  }
  return 0;
}

void print_workload_keys(const po::variables_map& vars) {
  std::string label;
  const std::string workload_name = require_workload(vars);
  ConfigMap config = configured(vars, workload_name, &label);
  auto workload = WorkloadRegistry::instance().create(workload_name);
  EngineSettings engine;
  engine.bind(config);
  workload->bind_settings(config);
  std::printf("\nconfig keys of %s (values from %s):\n", workload_name.c_str(), label.c_str());
  for (const auto& [key, help] : config.help())
    std::printf("  %-34s %-22s %s\n", key.c_str(), config.effective()[key].dump().c_str(), help.c_str());
}

int run_command(const po::variables_map& vars) {
  RunOptions options;
  options.workload = require_workload(vars);
  if (vars.count("seed")) options.seed = parse_seed(vars["seed"].as<std::string>());
  options.out_dir = vars["out"].as<std::string>();
  options.data_dir = vars["data-dir"].as<std::string>();
  options.platform = vars["platform"].as<std::string>();
  options.mllog_stdout = vars.count("mllog-stdout") > 0;
  options.quiet = vars.count("quiet") > 0;
  options.checkpoint_every_epochs = vars["checkpoint-every"].as<int64_t>();
  options.checkpoints_kept = vars["keep-checkpoints"].as<int64_t>();
  if (vars.count("resume")) options.resume = vars["resume"].as<std::string>();
  ConfigMap config = configured(vars, options.workload, &options.config_label);
  auto workload = WorkloadRegistry::instance().create(options.workload);

  const World world = World::from_mpi();
  const proto::RunResult result = run_to_target(*workload, config, world, options);
  if (world.is_root()) std::fputs(format_run_summary(result).c_str(), stdout);
  if (result.interrupt_signal() != 0) return 128 + result.interrupt_signal();
  return result.converged() ? kExitConverged : kExitNotConverged;
}

// `--key value` and `--key=value` pairs as a config (the flag --dev-pairs is the key dev_pairs).
ConfigMap flags_as_config(const std::vector<std::string>& args, const std::string& source_name) {
  YAML::Emitter yaml;
  yaml << YAML::BeginMap;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].rfind("--", 0) != 0 || args[i].size() == 2)
      throw UserError(source_name + ": unexpected argument '" + args[i] + "' (options are --key value)");
    std::string key = args[i].substr(2), value;
    const size_t equals = key.find('=');
    if (equals != std::string::npos) {
      value = key.substr(equals + 1);
      key.resize(equals);
    } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
      value = args[++i];
    } else {
      throw UserError(source_name + ": --" + key + " needs a value");
    }
    std::replace(key.begin(), key.end(), '-', '_');
    yaml << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
  }
  yaml << YAML::EndMap;
  return ConfigMap::from_yaml_text(yaml.c_str(), source_name);
}

// The workloads that have a prepare step, for messages.
std::string workloads_with_prepare() {
  std::string names;
  for (const auto& [name, entry] : WorkloadRegistry::instance().entries()) {
    ConfigMap scratch;
    if (entry.factory()->bind_prepare_options(scratch)) names += (names.empty() ? "" : ", ") + name;
  }
  return names;
}

int prepare_command(const CommandLine& line) {
  const std::string name = require_workload(line.vars);
  auto workload = WorkloadRegistry::instance().create(name);
  ConfigMap options = flags_as_config(line.unparsed, "prepare options");
  if (!workload->bind_prepare_options(options))
    throw UserError("workload '" + name + "' has no prepare step (workloads with one: " + workloads_with_prepare() + ")");
  if (line.vars.count("help")) {
    std::printf("prepare options of %s:\n", name.c_str());
    for (const auto& [key, help] : options.help()) {
      std::string flag = key;
      std::replace(flag.begin(), flag.end(), '_', '-');
      std::printf("  --%-24s %-12s %s\n", flag.c_str(), options.effective()[key].dump().c_str(), help.c_str());
    }
    return 0;
  }
  options.check_all_bound();
  std::fputs(workload->prepare().c_str(), stdout);
  return 0;
}

int bench_command(const po::variables_map& vars) {
  const std::string workload_name = require_workload(vars);
  ConfigMap config = configured(vars, workload_name, nullptr);
  auto workload = WorkloadRegistry::instance().create(workload_name);
  EngineSettings engine;
  engine.bind(config);
  workload->bind_settings(config);
  config.check_all_bound();

  BenchOptions options;
  std::string sizes;
  if (vars.count("batch-sizes")) sizes = vars["batch-sizes"].as<std::string>();
  if (vars.count("batch-size")) sizes += (sizes.empty() ? "" : ",") + vars["batch-size"].as<std::string>();
  for (const auto& size : split_commas(sizes)) options.batch_sizes.push_back(parse_integer(size, "batch size"));
  if (vars.count("inference") && options.batch_sizes.empty() && config.effective().contains("eval_batch_size"))
    options.batch_sizes.push_back(config.effective()["eval_batch_size"].get<int64_t>());
  if (options.batch_sizes.empty()) {
    const auto& effective = config.effective();
    if (!effective.contains("global_batch_size"))
      throw UserError("--batch-sizes is required for workload '" + workload_name + "'");
    // global_batch_size 0 means `local_batch_size` per rank (GNMT's recipe: 128 pairs per GPU).
    const int64_t global = effective["global_batch_size"].get<int64_t>();
    options.batch_sizes.push_back(global == 0 && effective.contains("local_batch_size")
                                      ? effective["local_batch_size"].get<int64_t>()
                                      : global);
  }
  options.precisions = split_commas(vars["precision"].as<std::string>());
  if (vars.count("inference") && vars.count("loader"))
    throw UserError("--inference and --loader exclude each other");
  options.mode = vars.count("inference") ? BenchMode::kInference
                 : vars.count("loader")  ? BenchMode::kLoader
                                         : BenchMode::kTrain;
  options.channels_last = vars.count("channels-last") > 0;
  options.data_root = vars["data-dir"].as<std::string>();
  options.warmup_steps = vars["warmup"].as<int64_t>();
  options.timed_steps = vars["steps"].as<int64_t>();
  options.repeats = vars["repeats"].as<int64_t>();
  options.json_path = vars["json"].as<std::string>();
  options.blas_threads = static_cast<int>(engine.blas_threads);
  options.intra_op_threads = static_cast<int>(engine.intra_op_threads);
  engine.validate();

  const World launched_world = World::from_mpi();
  options.device = rank_device(launched_world, engine.device);
  configure_gpu_math(engine.gpu_math);
  const World world = world_on_device(launched_world, options.device);
  const std::string platform = vars["platform"].as<std::string>().empty()
                                   ? detect_platform(world.size(), options.device).label()
                                   : sanitize_path_component(vars["platform"].as<std::string>());
  const BenchReport report = run_bench(*workload, workload_name, world, options, platform);
  if (world.is_root()) {
    std::fputs(format_bench_table(report).c_str(), stdout);
    if (!options.json_path.empty()) {
      write_text_file(options.json_path, bench_report_to_json(report).dump(2) + "\n");
      std::printf("wrote %s\n", options.json_path.c_str());
    }
  }
  return 0;
}

CommandLine parse_command_line(int argc, char** argv) {
  CommandLine line;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "run" || args[0] == "bench" || args[0] == "prepare" || args[0] == "list")) {
    line.command = args[0];
    args.erase(args.begin());
  } else if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
    throw UserError("unknown command '" + args[0] +
                    "'; commands: run, bench, prepare, list, check, score, report, coco-eval (see --help)");
  }
  po::options_description all;
  all.add(common_options());
  if (line.command == "prepare") {
    // The workload binds its own prepare options (Workload::bind_prepare_options).
    const po::parsed_options parsed = po::command_line_parser(args).options(all).allow_unregistered().run();
    po::store(parsed, line.vars);
    po::notify(line.vars);
    line.unparsed = po::collect_unrecognized(parsed.options, po::include_positional);
    return line;
  } else if (line.command == "bench") {
    all.add(bench_options());
    all.add_options()("platform", po::value<std::string>()->default_value(""), "platform label")(
        "data-dir", po::value<std::string>()->default_value("data"), "where generated datasets are kept");
  } else if (line.command == "list") {
    all.add_options()("json", po::bool_switch(), "print the workloads as JSON");
  } else {
    all.add(run_options());
  }
  po::store(po::command_line_parser(args).options(all).run(), line.vars);
  po::notify(line.vars);
  return line;
}

// What libraries read once, as they load, is put in place by running this program again before MPI
// starts: the rank's own CPUs in place of OpenMPI's default one-core binding (libgomp counts the CPUs
// its threads may spin on then, OpenBLAS sizes its pool), and a config's openmp_spin_count as
// GOMP_SPINCOUNT (a value already in the environment wins). A config that cannot be read is left for
// the command to report. Neither change happens twice, so the second start runs on.
int64_t configured_openmp_spin_count(const CommandLine& line) {
  if (std::getenv("GOMP_SPINCOUNT") != nullptr || !line.vars.count("workload") || line.command == "prepare") return -1;
  try {
    ConfigMap config = configured(line.vars, line.vars["workload"].as<std::string>(), nullptr);
    EngineSettings engine;
    engine.bind(config);
    return engine.openmp_spin_count;
  } catch (const std::exception&) {
    return -1;
  }
}

void start_again_with_what_libraries_read_as_they_load(const CommandLine& line, char** argv) {
  bool again = take_rank_cpus_before_libraries_start();
  const int64_t spin_count = configured_openmp_spin_count(line);
  if (spin_count >= 0) {
    setenv("GOMP_SPINCOUNT", std::to_string(spin_count).c_str(), 1);
    again = true;
  }
  if (again) execv("/proc/self/exe", argv);  // returns only on failure: then World moves every thread
}

using AnalysisCommand = int (*)(const std::vector<std::string>&);

// The commands that read results; each parses its own options.
const std::map<std::string, AnalysisCommand>& analysis_commands() {
  static const std::map<std::string, AnalysisCommand> commands = {
      {"check", check_command}, {"score", score_command}, {"report", report_command},
      {"coco-eval", coco_eval_command}};
  return commands;
}

int dispatch(int argc, char** argv) {
  if (argc > 1) {
    const auto command = analysis_commands().find(argv[1]);
    if (command != analysis_commands().end()) return command->second(std::vector<std::string>(argv + 2, argv + argc));
  }
  const CommandLine line = parse_command_line(argc, argv);
  if (!line.vars.count("help") && line.command != "list") start_again_with_what_libraries_read_as_they_load(line, argv);
  if (line.command == "prepare" && line.vars.count("workload")) return prepare_command(line);
  if (line.vars.count("help")) {
    std::cout << kUsage << "\n" << common_options() << "\n" << run_options() << "\n" << bench_options() << "\n"
              << "prepare options: `mlharness prepare --workload NAME --help` lists a workload's own\n";
    if (line.vars.count("workload")) print_workload_keys(line.vars);
    return 0;
  }
  if (line.command == "list") return list_command(line.vars["json"].as<bool>());
  if (line.command == "prepare") return prepare_command(line);
  configure_host_allocator();
  // A file-size limit (ulimit -f) then fails the write with EFBIG, reported as a user error, instead
  // of killing the process mid-write.
  std::signal(SIGXFSZ, SIG_IGN);
  MpiSession mpi(&argc, &argv);
  try {
    return line.command == "bench" ? bench_command(line.vars) : run_command(line.vars);
  } catch (...) {
    // Under mpirun the failing rank ends the job: the others may sit in a collective (a gradient
    // all-reduce) that this rank will never join, so no collective here: one would meet theirs and
    // corrupt memory (seen: "stack smashing detected" in a communicator split). Only a message to
    // rank 0 on a communicator of its own, which no collective uses.
    const int size = MpiSession::world_size();
    const int rank = MpiSession::world_rank();
    if (size == 1) throw;
    // When every rank fails alike, let rank 0 speak: its exit ends the others before they print
    // (Open MPI's mpirun kills them about a second after).
    if (rank != 0) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    std::string kind = "error";
    std::string message;
    int exit_code = kExitUserError;
    try {
      throw;
    } catch (const UserError& e) {
      message = e.what();
    } catch (const boost::program_options::error& e) {
      message = std::string(e.what()) + " (see --help)";
    } catch (const std::exception& e) {
      kind = "internal error";
      message = e.what();
      exit_code = kExitInternalError;
    } catch (...) {
      kind = "internal error";
      message = "an exception of unknown type";
      exit_code = kExitInternalError;
    }
    std::fprintf(stderr, "mlharness: %s (rank %d): %s\n", kind.c_str(), rank, message.c_str());
    std::fflush(stderr);
    // Rank 0, perhaps waiting in a collective, removes its partial log as an error of its own does.
    MpiSession::tell_root_of_error(message, std::chrono::milliseconds(250));
    MpiSession::abort_job(exit_code);
  }
}

}  // namespace
}  // namespace mlh

int main(int argc, char** argv) {
  try {
    return mlh::dispatch(argc, argv);
  } catch (const mlh::UserError& e) {
    std::fprintf(stderr, "mlharness: error: %s\n", e.what());
    return mlh::kExitUserError;
  } catch (const boost::program_options::error& e) {
    std::fprintf(stderr, "mlharness: error: %s (see --help)\n", e.what());
    return mlh::kExitUserError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlharness: internal error: %s\n", e.what());
    return mlh::kExitInternalError;
  }
}
