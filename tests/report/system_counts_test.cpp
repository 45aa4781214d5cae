// Accelerator counts as each published submission counts them, from every form of system description
// the rounds used. The JSON below is real: each string is a file of github.com/mlcommons/
// training_results_v0.5, v0.6 or v0.7 at the path its comment names, with the fields that say nothing
// about the hardware's size or model left out (the rest verbatim, trailing commas included).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "compliance/log_reader.h"
#include "compliance/result_groups.h"
#include "compliance/run_summary.h"
#include "report/report_data.h"
#include "report/system_description.h"
#include "tests/report/report_test_logs.h"
#include "tests/test_paths.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;
using report_test::LogSpec;
using report_test::make_log;
using report_test::write_text;
using ::testing::HasSubstr;

// v0.5.0/google/research_v3.32/resnet-tpuv3-32/results/tpu/entry.json
constexpr const char* kV05TpuV3x32Entry = R"json({
    "division": "closed",
    "status": "research",
    "hardware": "tpuv3-32 + tpuv2-8",
    "framework": "TensorFlow 1.12",
    "nodes": [
            {
                "num_nodes": 2,
                "cpu": "Intel Skylake",
                "num_cores": 0,
                "num_vcpus": 32,
                "accelerator": "tpuv3-32",
                "num_accelerators": 32,
                "notes": ""
            }
    ]
})json";

// v0.5.0/google/cloud_v2.512/resnet-tpuv2-512/results/tpu/entry.json
constexpr const char* kV05TpuV2x512Entry = R"json({
    "hardware": "tpuv2-512 + tpuv2-8",
    "nodes": [
            {
                "num_nodes": 64,
                "cpu": "Intel Skylake",
                "accelerator": "tpuv2-512",
                "num_accelerators": 512
            }
    ]
})json";

// v0.5.0/google/cloud_v100x8/results/8xV100/entry.json
constexpr const char* kV05Google8xV100Entry = R"json({
    "hardware": "n1-highmem-96 w/8xV100",
    "nodes": [
            {
                "num_nodes": 1,
                "cpu": "Intel Skylake",
                "num_cores": 48,
                "accelerator": "Tesla V100-SXM2-16GB",
                "num_accelerators": 8
            }
    ]
})json";

// v0.5.0/nvidia/submission/results/dgx1_multi_ngc18.11_mxnet/entry.json: the whole SaturnV pod of 128
// DGX-1s, of which the ResNet-50 runs used 80 (config_DGX1_multi.sh: DGXNNODES=80; each log has 80
// run_clear_caches lines).
constexpr const char* kV05NvidiaDgx1MultiEntry = R"json({
    "hardware": "DGX-1V - SaturnV",
    "nodes": [
            {
                "num_nodes": 128,
                "cpu": "2x Intel(R) Xeon(R) CPU E5-2698 v4 @ 2.20GHz",
                "num_cores": 40,
                "accelerator": "Tesla V100-SXM2-16GB",
                "num_accelerators": 8
            }
    ]
})json";

// v0.5.0/nvidia/submission/results/dgx2h_multi_ngc18.11_pytorch/entry.json: a pod of 36 DGX-2Hs; the
// SSD runs used 8 of them with 8 GPUs each (config_DGX2_multi.sh: DGXNNODES=8, DGXNGPU=8).
constexpr const char* kV05NvidiaDgx2hPodEntry = R"json({
    "hardware": "DGX-2H Pod",
    "nodes": [
            {
                "num_nodes": 36,
                "cpu": "2x Intel(R) Xeon(R) Platinum 8174 CPU @ 3.10GHz",
                "num_cores": 48,
                "num_vcpus": 96,
                "accelerator": "Tesla V100-SXM3-H-32GB",
                "num_accelerators": 16
            }
    ]
})json";

// v0.5.0/intel/intel_resnet_submission/results/skx_8180_2s_8x/entry.json
constexpr const char* kV05IntelEntry = R"json({
    "hardware": "8-nodes 2x Intel(R) Xeon(R) Platinum 8180 processor",
    "nodes": [
            {
                "num_nodes": 8,
                "cpu": "Intel(R) Xeon(R) Platinum 8180 CPU @ 2.50GHz",
                "num_cores": 56,
                "num_vcpus": "NA",
                "accelerator": "NA",
                "num_accelerators": 0
            }
    ]
})json";

// v0.6/Fujitsu/systems/abci_2048xV100_mxnet.json
constexpr const char* kV06FujitsuAbci = R"json({
    "division": "open",
    "status": "research",
    "hardware": "CX2570-m4 ABCI(AIST)",
    "nodes": [
            {
                "num_nodes": 512,
                "cpu": "2x Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz",
                "num_cores": 40,
                "num_vcpus": 80,
                "accelerator": "Tesla V100-SXM2-16GB",
                "num_accelerators": 4
            }
    ]
})json";

// v0.6/Google/systems/tpu-v3-128.json: 64 chips of two cores each.
constexpr const char* kV06TpuV3x128 = R"json({
    "submitter": "Google",
    "system_name": "tpu-v3",
    "number_of_nodes": "1",
    "host_processors_per_node": "1",
    "host_processor_model_name": "Intel Skylake",
    "accelerators_per_node": "64",
    "accelerator_model_name": "tpu-v3",
    "accelerator_core_count": "2"
})json";

// v0.6/Intel/systems/clx-8260l-2s-x32.json
constexpr const char* kV06IntelClx = R"json({
    "system_name": "CLX-8260L-2S",
    "number of nodes": "32",
    "host_processors_per_node": "2",
    "host_processor_model_name": "Intel(R) Xeon(R) Platinum 8260L CPU @ 2.40GHz",
    "nodes": [{"num_nodes": 32, "cpu": "Intel(R) Xeon(R) Platinum 8260L CPU @ 2.40GHz", "num_cores": 48,
               "accelerator": "NA", "num_accelerators": 0}]
})json";

// v0.7/Google/systems/tpu-v3-1024-TF.json: 64 hosts of 8 chips.
constexpr const char* kV07TpuV3x1024 = R"json({
  "submitter": "Google",
  "system_name": "TPU v3-1024",
  "number_of_nodes": "64",
  "host_processors_per_node": "2",
  "host_processor_model_name": "",
  "accelerators_per_node": "8",
  "accelerator_model_name": "TPU v3"
})json";

// v0.7/Alibaba/systems/n160_pai_eflops.json (not strict JSON: a trailing comma)
constexpr const char* kV07AlibabaPai = R"json({
  "submitter"                         : "Alibaba",
  "system_name"                       : "PAI_EFLOPS",
  "number_of_nodes"                   : "160",
  "host_processors_per_node"          : "2",
  "accelerators_per_node"             : "8",
  "accelerator_model_name"            : "NVIDIA V100-SXM2-32GB",
  "other_software_stack"              : {
        "cuda_driver_version": "418.87",
        "cudnn_version": "7.6",
        "cuda_version": "10.1.105",
    },
  "operating_system"                  : "AliOS"
})json";

// v0.7/Intel/systems/8-nodes-32s-cpx-tensorflow.json
constexpr const char* kV07IntelCpx = R"json({
    "system_name": "8-nodes-32s-cpx-tensorflow",
    "number_of_nodes": "8",
    "host_processor_model_name": "Pre-released Intel® Xeon Scalable processor codenamed Cooper Lake-6",
    "host_processors_per_node": "4",
    "accelerators_per_node": "0",
    "accelerator_model_name": "N/A"
})json";

// A v0.5 log (`:::MLPv0.5.0` lines) that converged, with `clears` run_clear_caches lines.
std::string v05_log(const std::string& benchmark, int clears = 1) {
  const auto line = [&](double seconds, const std::string& rest) {
    return ":::MLPv0.5.0 " + benchmark + " " + std::to_string(seconds) + " (<string>:1) " + rest + "\n";
  };
  std::string text;
  for (int i = 0; i < clears; ++i) text += line(1541720273.0 + i * 0.01, "run_clear_caches");
  text += line(1541720300.0, "run_start");
  text += line(1541720400.0, "eval_accuracy: {\"epoch\": 1, \"value\": 0.76}");
  text += line(1541720401.0, "run_stop: {\"success\": true}");
  return text;
}

class SystemCounts : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("system_counts_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  RunPlatform platform_of(const fs::path& log) const {
    return identify_run_platform(summarize_run(read_log_file((dir_ / log).string())));
  }
  fs::path dir_;
};

TEST_F(SystemCounts, V05TpuSlicesCountTheirCoresOnceWhateverTheirHosts) {
  write_text(dir_ / "research_v3.32/resnet-tpuv3-32/results/tpu/entry.json", kV05TpuV3x32Entry);
  write_text(dir_ / "research_v3.32/resnet-tpuv3-32/results/tpu/resnet/result_0.txt", v05_log("resnet"));
  const RunPlatform v3 = platform_of("research_v3.32/resnet-tpuv3-32/results/tpu/resnet/result_0.txt");
  EXPECT_EQ(v3.device_count, 32);  // v0.5 counted TPU cores: not 2 hosts x 32
  EXPECT_EQ(v3.device_kind, DeviceKind::kAccelerator);
  EXPECT_EQ(v3.platform, "tpuv3-32");  // every v0.5 Google system folder is "tpu"
  EXPECT_EQ(v3.platform_source, "entry.json accelerator");
  EXPECT_EQ(v3.label_with_kind(), "32xtpuv3-32: 32 accelerators");
  EXPECT_EQ(v3.device_count_source, "entry.json (nodes list: the TPU slice's num_accelerators)");

  write_text(dir_ / "cloud_v2.512/resnet-tpuv2-512/results/tpu/entry.json", kV05TpuV2x512Entry);
  write_text(dir_ / "cloud_v2.512/resnet-tpuv2-512/results/tpu/resnet/result_0.txt", v05_log("resnet"));
  EXPECT_EQ(platform_of("cloud_v2.512/resnet-tpuv2-512/results/tpu/resnet/result_0.txt").device_count, 512);
}

TEST_F(SystemCounts, V05GpuEntryCountsNodesTimesGpusPerNode) {
  write_text(dir_ / "cloud_v100x8/results/8xV100/entry.json", kV05Google8xV100Entry);
  write_text(dir_ / "cloud_v100x8/results/8xV100/resnet/result_0.txt", v05_log("resnet"));
  const RunPlatform v100 = platform_of("cloud_v100x8/results/8xV100/resnet/result_0.txt");
  EXPECT_EQ(v100.label_with_kind(), "8xV100: 8 GPUs");
  EXPECT_EQ(v100.device_model, "Tesla V100-SXM2-16GB");
  EXPECT_EQ(v100.device_count_source, "entry.json (nodes list: num_nodes x num_accelerators)");
}

TEST_F(SystemCounts, V05MultiNodeEntryCountsTheNodesTheLogShowsNotThePod) {
  write_text(dir_ / "nvidia/results/dgx1_multi_ngc18.11_mxnet/entry.json", kV05NvidiaDgx1MultiEntry);
  write_text(dir_ / "nvidia/results/dgx1_multi_ngc18.11_mxnet/resnet/result_0.txt", v05_log("resnet", 80));
  const RunPlatform eighty = platform_of("nvidia/results/dgx1_multi_ngc18.11_mxnet/resnet/result_0.txt");
  EXPECT_EQ(eighty.device_count, 640);  // 80 DGX-1s x 8, not the pod's 128 x 8
  EXPECT_EQ(eighty.device_kind, DeviceKind::kGpu);
  EXPECT_THAT(eighty.device_count_source, HasSubstr("x 80 nodes (one run_clear_caches each in the log; the entry names a 128-node pod)"));
  // A log that shows no nodes keeps the entry's count.
  write_text(dir_ / "nvidia/results/dgx1_multi_ngc18.11_mxnet/resnet/result_1.txt", v05_log("resnet", 1));
  EXPECT_EQ(platform_of("nvidia/results/dgx1_multi_ngc18.11_mxnet/resnet/result_1.txt").device_count, 1024);

  // The PyTorch logs keep their launch lines (this one, shortened, from the SSD result_0.txt): 8 ranks
  // on each of the 8 DGX-2Hs, not the entry's 16 GPUs per node.
  write_text(dir_ / "nvidia/results/dgx2h_multi_ngc18.11_pytorch/entry.json", kV05NvidiaDgx2hPodEntry);
  write_text(dir_ / "nvidia/results/dgx2h_multi_ngc18.11_pytorch/ssd/result_0.txt",
             "+ python -m bind_launch --nsockets_per_node 2 --ncores_per_socket 24 --nproc_per_node 8 --nnodes=8 "
             "--node_rank=0 --master_addr=10.0.1.27 --master_port=4242 train.py --use-fp16\n" +
                 v05_log("ssd", 8));
  const RunPlatform ssd = platform_of("nvidia/results/dgx2h_multi_ngc18.11_pytorch/ssd/result_0.txt");
  EXPECT_EQ(ssd.label_with_kind(), "64xdgx2h_multi_ngc18.11_pytorch: 64 GPUs");
  EXPECT_THAT(ssd.device_count_source, HasSubstr("8 ranks per node (the log's launch lines; entry.json: 16 GPUs per node) x 8 nodes"));
}

TEST_F(SystemCounts, V06NvidiaSystemsLinesAreTheSubmissionEntry) {
  // NVIDIA's v0.6 systems files are log lines, not JSON (tests/data/mlperf-results has one, whole).
  const fs::path lines = fs::path(test_paths::source_dir()) / "tests/data/mlperf-results/v0.6/NVIDIA/systems/dgx1_ngc19.05_pytorch.json";
  std::string problem;
  const auto described = read_system_file(lines.string(), &problem);
  ASSERT_TRUE(described) << problem;
  EXPECT_TRUE(described->from_log_lines);
  EXPECT_EQ(described->accelerator_count(), 8);
  EXPECT_EQ(described->system_name, "1xDGX-1 with V100");

  // A log without a submission_entry of its own takes the file's; with one, its own.
  fs::create_directories(dir_ / "NVIDIA/systems");
  fs::copy_file(lines, dir_ / "NVIDIA/systems/dgx1_ngc19.05_pytorch.json", fs::copy_options::overwrite_existing);
  LogSpec spec;
  spec.platform = "1xDGX-1 with V100";
  write_text(dir_ / "NVIDIA/results/dgx1_ngc19.05_pytorch/gnmt/result_0.txt", make_log(spec));
  const RunPlatform dgx1 = platform_of("NVIDIA/results/dgx1_ngc19.05_pytorch/gnmt/result_0.txt");
  EXPECT_EQ(dgx1.label_with_kind(), "8xDGX-1 with V100: 8 GPUs");
  EXPECT_EQ(dgx1.device_count_source, "system JSON entry line");
  const CollectedRuns runs = collect_runs({(dir_ / "NVIDIA").string()});
  EXPECT_TRUE(runs.issues.empty()) << runs.issues.front().path << ": " << runs.issues.front().reason;
}

TEST_F(SystemCounts, CpuOnlySystemsCountTheirProcessors) {
  write_text(dir_ / "intel/results/skx_8180_2s_8x/entry.json", kV05IntelEntry);
  write_text(dir_ / "intel/results/skx_8180_2s_8x/resnet/result_0.txt", v05_log("resnet"));
  const RunPlatform v05 = platform_of("intel/results/skx_8180_2s_8x/resnet/result_0.txt");
  EXPECT_EQ(v05.label_with_kind(), "16xskx_8180_2s_8x: 16 CPU sockets");  // 8 nodes x "2x" Xeon 8180
  EXPECT_EQ(v05.device_model, "Intel(R) Xeon(R) Platinum 8180 CPU @ 2.50GHz");

  LogSpec spec;
  spec.benchmark = "minigo";
  spec.platform = "32xCLX-8260L_CPUs";  // the v0.6 logs' label counts nodes
  write_text(dir_ / "Intel/systems/clx-8260l-2s-x32.json", kV06IntelClx);
  write_text(dir_ / "Intel/results/clx-8260l-2s-x32/minigo/result_0.txt", make_log(spec));
  const RunPlatform v06 = platform_of("Intel/results/clx-8260l-2s-x32/minigo/result_0.txt");
  EXPECT_EQ(v06.device_count, 64);
  EXPECT_EQ(v06.device_kind, DeviceKind::kCpuSocket);
  EXPECT_EQ(v06.device_count_source, "system JSON (host_processors_per_node x number_of_nodes)");

  spec.platform = "8-nodes-32s-cpx-tensorflow";
  write_text(dir_ / "Intel/systems/8-nodes-32s-cpx-tensorflow.json", kV07IntelCpx);
  write_text(dir_ / "Intel/results/8-nodes-32s-cpx-tensorflow/minigo/result_0.txt", make_log(spec));
  const RunPlatform v07 = platform_of("Intel/results/8-nodes-32s-cpx-tensorflow/minigo/result_0.txt");
  EXPECT_EQ(v07.label_with_kind(), "32x8-nodes-32s-cpx-tensorflow: 32 CPU sockets");
  EXPECT_EQ(count_label(1, DeviceKind::kCpuSocket), "1 CPU socket");
  EXPECT_STREQ(to_string(DeviceKind::kCpuSocket), "cpu_socket");
}

TEST_F(SystemCounts, V06NodesListAndTpuChips) {
  LogSpec spec;
  spec.benchmark = "resnet";
  spec.platform = "abci_2048xV100";
  write_text(dir_ / "Fujitsu/systems/abci_2048xV100_mxnet.json", kV06FujitsuAbci);
  write_text(dir_ / "Fujitsu/results/abci_2048xV100_mxnet/resnet/result_0.txt", make_log(spec));
  const RunPlatform abci = platform_of("Fujitsu/results/abci_2048xV100_mxnet/resnet/result_0.txt");
  EXPECT_EQ(abci.device_count, 2048);  // 512 nodes x 4
  EXPECT_EQ(abci.device_kind, DeviceKind::kGpu);
  EXPECT_EQ(abci.device_count_source, "system JSON (nodes list: num_nodes x num_accelerators)");

  spec.platform = "tpu-v3-128";
  write_text(dir_ / "Google/systems/tpu-v3-128.json", kV06TpuV3x128);
  write_text(dir_ / "Google/results/tpu-v3-128/resnet/result_0.txt", make_log(spec));
  EXPECT_EQ(platform_of("Google/results/tpu-v3-128/resnet/result_0.txt").label_with_kind(),
            "64xtpu-v3-128: 64 accelerators");  // chips, as v0.6 counted
}

TEST_F(SystemCounts, V07TpuChipsAndLenientJson) {
  LogSpec spec;
  spec.benchmark = "maskrcnn";
  spec.platform = "tpu-v3-1024";
  write_text(dir_ / "Google/systems/tpu-v3-1024-TF.json", kV07TpuV3x1024);
  write_text(dir_ / "Google/results/tpu-v3-1024-TF/maskrcnn/result_0.txt", make_log(spec));
  const RunPlatform tpu = platform_of("Google/results/tpu-v3-1024-TF/maskrcnn/result_0.txt");
  EXPECT_EQ(tpu.device_count, 512);  // 64 hosts x 8 chips
  EXPECT_EQ(tpu.device_count_source, "system JSON");

  write_text(dir_ / "n160_pai_eflops.json", kV07AlibabaPai);
  std::string problem;
  const auto pai = read_system_file((dir_ / "n160_pai_eflops.json").string(), &problem);
  ASSERT_TRUE(pai) << problem;
  EXPECT_EQ(pai->accelerator_count(), 1280);
  EXPECT_EQ(pai->system_name, "PAI_EFLOPS");
}

// Counts beyond any system (a million nodes of a million GPUs) give no count rather than overflow.
TEST_F(SystemCounts, CountsBeyondAnySystemAreNotCounts) {
  std::string problem;
  write_text(dir_ / "huge.json", R"({"system_name": "Huge", "number_of_nodes": "999999", "accelerators_per_node": "999999",
                                     "accelerator_model_name": "X"})");
  const auto huge = read_system_file((dir_ / "huge.json").string(), &problem);
  ASSERT_TRUE(huge) << problem;
  EXPECT_EQ(huge->accelerator_count(), std::nullopt);
  write_text(dir_ / "nodes.json", R"({"nodes": [{"num_nodes": 999999, "num_accelerators": 999999, "accelerator": "V100"},
                                                {"num_nodes": 2, "num_accelerators": 8, "accelerator": "V100"}]})");
  const auto listed = read_system_file((dir_ / "nodes.json").string(), &problem);
  ASSERT_TRUE(listed) << problem;
  EXPECT_EQ(listed->accelerator_count(), std::nullopt);
  write_text(dir_ / "cpus.json", R"({"system_name": "Cpus", "number_of_nodes": "999999", "host_processors_per_node": "999999",
                                     "accelerator_model_name": "N/A"})");
  const auto cpus = read_system_file((dir_ / "cpus.json").string(), &problem);
  ASSERT_TRUE(cpus) << problem;
  EXPECT_EQ(cpus->processor_count(), std::nullopt);
}

TEST_F(SystemCounts, NamesGiveCountsWhenNothingElseDoes) {
  // Alibaba's v0.7 logs sit in results/v100-1280/ with no benchmark folder and no systems JSON of that name.
  LogSpec spec;
  spec.benchmark = "resnet";
  spec.platform = "PAI_EFLOPS";
  write_text(dir_ / "Alibaba/results/v100-1280/result_1.txt", make_log(spec));
  const RunPlatform pai = platform_of("Alibaba/results/v100-1280/result_1.txt");
  EXPECT_EQ(pai.label_with_kind(), "1280xPAI_EFLOPS: 1280 GPUs");
  EXPECT_EQ(pai.device_count_source, "folder name 'v100-1280' (GPUs)");

  spec.platform = "abci_2048xV100";
  write_text(dir_ / "abci/resnet/result_0.txt", make_log(spec));
  EXPECT_EQ(platform_of("abci/resnet/result_0.txt").label_with_kind(), "2048xabci_2048xV100: 2048 GPUs");

  // A TPU slice's name counts cores: a v0.5 log counts them so, a later one counts chips (half).
  spec.platform = "tpu-v3-128";
  write_text(dir_ / "tpu-v3-128/resnet/result_0.txt", make_log(spec));
  const RunPlatform chips = platform_of("tpu-v3-128/resnet/result_0.txt");
  EXPECT_EQ(chips.device_count, 64);
  EXPECT_EQ(chips.device_kind, DeviceKind::kAccelerator);
  write_text(dir_ / "x/tpu-v3-128/resnet/result_0.txt", v05_log("resnet"));
  EXPECT_EQ(platform_of("x/tpu-v3-128/resnet/result_0.txt").device_count, 128);
  // v0.5 Google's layout without its entry.json: the submission folder names the slice.
  write_text(dir_ / "research_v3.32/gnmt-tpuv3-32/results/tpu/gnmt/result_0.txt", v05_log("gnmt"));
  const RunPlatform v05 = platform_of("research_v3.32/gnmt-tpuv3-32/results/tpu/gnmt/result_0.txt");
  EXPECT_EQ(v05.device_count, 32);
  EXPECT_EQ(v05.device_count_source, "submission folder name 'gnmt-tpuv3-32' (TPU cores, as v0.5 counted them)");

  EXPECT_EQ(tpu_slice_cores("TPU v3-1024"), 1024);
  EXPECT_EQ(tpu_slice_cores("tpuv2-8"), 8);
  EXPECT_EQ(tpu_slice_cores("tpu-v4-128-TF"), 128);
  EXPECT_EQ(tpu_slice_cores("tpu-v3"), std::nullopt);
}

TEST_F(SystemCounts, ReportReadsTheFilesScoreReads) {
  // Intel's v0.7 DLRM logs: result_<i>_<ranks>_<batch>_<time>.txt.
  LogSpec spec;
  spec.benchmark = "gnmt";
  for (int i = 2; i >= 1; --i) {
    spec.seed = i;
    write_text(dir_ / "Intel/results/4-nodes/gnmt" / ("result_" + std::to_string(i) + "_4n16r_32k_159311.txt"), make_log(spec));
  }
  spec.seed = 3;
  write_text(dir_ / "Intel/results/4-nodes/gnmt/result_first.txt", make_log(spec));
  write_text(dir_ / "Intel/results/4-nodes/gnmt/notes.txt", "not a log\n");
  const CollectedRuns runs = collect_runs({dir_.string()});
  ASSERT_EQ(runs.logs_found, static_cast<int>(find_result_files(dir_.string()).size()));
  ASSERT_EQ(runs.runs.size(), 3u);
  EXPECT_EQ(runs.runs[0].result_index, 0);  // no number: first
  EXPECT_EQ(runs.runs[1].result_index, 1);
  EXPECT_EQ(runs.runs[2].result_index, 2);
  EXPECT_THAT(runs.runs[2].log_path, HasSubstr("result_2_4n16r_32k_159311.txt"));
}

}  // namespace
}  // namespace mlh::report
