// `mlharness coco-eval --annotations GT.json --detections DT.json [--iou-type bbox|segm] [--json OUT]`:
// COCO detection metrics as pycocotools computes them (datasets/coco/coco_eval.h), for anyone who
// scores COCO results with COCOeval today. Prints summarize()'s 12 lines to stdout and what was read
// and how long it took to stderr; --json writes the 12 numbers. Exit 0; a bad command line or a bad
// file (one line naming the file and the field) exits 2.
#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <nlohmann/json.hpp>
#include <system_error>
#include <thread>

#include "base/user_error.h"
#include "datasets/coco/annotations.h"
#include "datasets/coco/coco_eval.h"
#include "datasets/coco/detections_json.h"
#include "launch/analysis_commands.h"

namespace po = boost::program_options;

namespace mlh {
namespace {

const char* kCocoEvalUsage = R"(usage: mlharness coco-eval --annotations GT.json --detections DT.json [--iou-type bbox|segm] [--json OUT]

Scores COCO detection results against COCO instance annotations, number for number as pycocotools'
COCO.loadRes and COCOeval (evaluate, accumulate, summarize) do, and prints the 12 lines summarize()
prints. --iou-type bbox measures box overlap, segm mask overlap (results with "segmentation" as
compressed RLE; ground-truth polygons are rasterised as pycocotools rasterises them). Every image of
GT.json is evaluated, as COCOeval does by default. Results read as loadRes reads them: when the first
entry has a "bbox", areas come from the boxes, even under segm (pycocotools' behaviour; leave "bbox"
out of mask results to have mask areas).
Exit status: 0 evaluated, 2 bad command line or bad file.
)";

constexpr const char* kStatNames[12] = {"AP",   "AP50", "AP75",  "APs",  "APm",  "APl",
                                        "AR1",  "AR10", "AR100", "ARs",  "ARm",  "ARl"};

coco::IouType iou_type_of(const std::string& name) {
  if (name == "bbox") return coco::IouType::kBox;
  if (name == "segm") return coco::IouType::kSegmentation;
  throw UserError("coco-eval: --iou-type '" + name + "' is neither bbox nor segm");
}

void write_stats_json(const std::string& path, coco::IouType iou_type, const coco::CocoEvalStats& stats) {
  nlohmann::json out;
  out["iou_type"] = coco::iou_type_name(iou_type);
  const std::array<double, 12> values = stats.as_array();
  out["stats"] = values;  // COCOeval.stats, in its order
  for (size_t i = 0; i < values.size(); ++i) out[kStatNames[i]] = values[i];
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    if (!file) throw UserError(path + ": cannot be written; check that its folder exists and is writable");
    file << out.dump(1) << "\n";
    if (!file.flush()) throw UserError(path + ": cannot be written (disk full?)");
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) throw UserError(path + ": cannot be written: " + error.message());
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int coco_eval_command(const std::vector<std::string>& args) {
  po::options_description options("coco-eval options");
  options.add_options()
      ("help,h", "print this help")
      ("annotations", po::value<std::string>(), "COCO instances file (ground truth)")
      ("detections", po::value<std::string>(), "COCO results file (a list of detections)")
      ("iou-type", po::value<std::string>()->default_value("bbox"), "bbox or segm")
      ("json", po::value<std::string>(), "also write the 12 numbers to this JSON file");
  po::variables_map vars;
  try {
    po::store(po::command_line_parser(args).options(options).run(), vars);
    po::notify(vars);
  } catch (const po::error& error) {
    throw UserError(std::string("coco-eval: ") + error.what() + " (see mlharness coco-eval --help)");
  }
  if (vars.count("help")) {
    std::cout << kCocoEvalUsage << "\n" << options;
    return 0;
  }
  for (const char* required : {"annotations", "detections"}) {
    if (!vars.count(required)) {
      throw UserError(std::string("coco-eval: give --") + required + " (see mlharness coco-eval --help)");
    }
  }
  const coco::IouType iou_type = iou_type_of(vars["iou-type"].as<std::string>());

  const auto start = std::chrono::steady_clock::now();
  // The two files are read side by side; a bad annotations file is reported first, as it is named first.
  std::future<coco::Annotations> reading_ground_truth = std::async(std::launch::async, [&vars] {
    coco::ReadOptions read_options;
    read_options.keep_images_without_annotations = true;  // COCOeval evaluates every image of the file
    return coco::read_annotations(vars["annotations"].as<std::string>(), read_options);
  });
  std::vector<coco::Detection> detections;
  std::exception_ptr detections_failure;
  try {
    detections = coco::read_detections_json(vars["detections"].as<std::string>());
  } catch (const UserError&) {
    detections_failure = std::current_exception();
  }
  const coco::Annotations ground_truth = reading_ground_truth.get();
  if (detections_failure) std::rethrow_exception(detections_failure);
  if (iou_type == coco::IouType::kSegmentation) {
    for (size_t i = 0; i < detections.size(); ++i) {
      if (detections[i].segmentation.counts.empty()) {
        throw UserError(vars["detections"].as<std::string>() + ": [" + std::to_string(i) +
                        "].segmentation is missing: --iou-type segm scores mask results");
      }
    }
  }
  const double read_seconds = seconds_since(start);
  const int num_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const coco::CocoEvalStats stats = coco::evaluate_detections(ground_truth, detections, iou_type, {}, num_threads);
  std::fprintf(stderr, "coco-eval: %s, %zu images, %zu annotations, %zu detections: read %.2f s, evaluated %.2f s\n",
               coco::iou_type_name(iou_type), ground_truth.images.size(), ground_truth.annotations.size(),
               detections.size(), read_seconds, seconds_since(start) - read_seconds);
  std::cout << coco::format_coco_eval_stats(stats) << std::flush;
  if (vars.count("json")) write_stats_json(vars["json"].as<std::string>(), iou_type, stats);
  return 0;
}

}  // namespace mlh
