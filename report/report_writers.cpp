#include "report/report_writers.h"

#include <cstdio>
#include <sstream>

#include "report/svg_chart.h"

namespace mlh::report {
namespace {

std::string number(const std::optional<double>& value) {
  if (!value) return "";
  char text[64];
  std::snprintf(text, sizeof text, "%.10g", *value);
  return text;
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? separator : "") + parts[i];
  return text;
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + csv_field(fields[i]);
  return line + "\n";
}

std::string markdown_cell(const std::string& text) {
  std::string cell;
  for (char c : text) {
    if (c == '|') cell += "\\|";
    else if (c == '\n') cell += ' ';
    else cell += c;
  }
  return cell;
}

struct MarkdownBlock {
  std::ostringstream& out;
  void operator()(const Paragraph& p) const { out << p.text << "\n\n"; }
  void operator()(const Bullets& b) const {
    for (const std::string& item : b.items) out << "- " << item << "\n";
    out << "\n";
  }
  void operator()(const DocTable& t) const {
    out << "|";
    for (const std::string& h : t.header) out << " " << markdown_cell(h) << " |";
    out << "\n|";
    for (size_t i = 0; i < t.header.size(); ++i) out << (i < t.numeric.size() && t.numeric[i] ? " ---: |" : " --- |");
    out << "\n";
    for (const auto& row : t.rows) {
      out << "|";
      for (const std::string& cell : row) out << " " << markdown_cell(cell) << " |";
      out << "\n";
    }
    out << "\n";
  }
  void operator()(const DocChart& c) const { out << "![" << c.title << "](charts/" << c.file_stem << ".svg)\n\n"; }
};

struct HtmlBlock {
  std::ostringstream& out;
  void operator()(const Paragraph& p) const { out << "<p>" << xml_escape(p.text) << "</p>\n"; }
  void operator()(const Bullets& b) const {
    out << "<ul>\n";
    for (const std::string& item : b.items) out << "<li>" << xml_escape(item) << "</li>\n";
    out << "</ul>\n";
  }
  void operator()(const DocTable& t) const {
    const auto align = [&](size_t i) { return i < t.numeric.size() && t.numeric[i] ? " class=\"num\"" : ""; };
    out << "<div class=\"table-wrap\"><table>\n<thead><tr>";
    for (size_t i = 0; i < t.header.size(); ++i) out << "<th" << align(i) << ">" << xml_escape(t.header[i]) << "</th>";
    out << "</tr></thead>\n<tbody>\n";
    for (const auto& row : t.rows) {
      out << "<tr>";
      for (size_t i = 0; i < row.size(); ++i) out << "<td" << align(i) << ">" << xml_escape(row[i]) << "</td>";
      out << "</tr>\n";
    }
    out << "</tbody></table></div>\n";
  }
  void operator()(const DocChart& c) const {
    out << "<figure id=\"" << xml_escape(c.file_stem) << "\">" << c.svg << "</figure>\n";
  }
};

constexpr const char* kStyle = R"(
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; color: #222; margin: 24px auto; max-width: 1320px;
       padding: 0 24px; line-height: 1.45; font-size: 14px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; }
ul { padding-left: 22px; }
li { margin: 2px 0; }
.table-wrap { overflow-x: auto; margin: 8px 0 16px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #d6d6d6; padding: 4px 8px; vertical-align: top; text-align: left; }
th { background: #f2f4f7; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafafa; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
figure { margin: 0; border: 1px solid #e3e3e3; border-radius: 4px; background: #fff; }
figure svg { display: block; }
)";

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string render_markdown(const ReportDocument& document) {
  std::ostringstream out;
  out << "# " << document.title << "\n\n";
  for (const DocSection& section : document.sections) {
    out << std::string(static_cast<size_t>(section.level), '#') << " " << section.heading << "\n\n";
    for (const DocBlock& block : section.blocks) std::visit(MarkdownBlock{out}, block);
  }
  return out.str();
}

std::string render_html(const ReportDocument& document) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << xml_escape(document.title)
      << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>" << xml_escape(document.title) << "</h1>\n";
  for (const DocSection& section : document.sections) {
    out << "<section>\n<h" << section.level << ">" << xml_escape(section.heading) << "</h" << section.level << ">\n";
    bool in_charts = false;
    for (const DocBlock& block : section.blocks) {
      const bool chart = std::holds_alternative<DocChart>(block);
      if (chart != in_charts) out << (chart ? "<div class=\"charts\">\n" : "</div>\n");
      in_charts = chart;
      std::visit(HtmlBlock{out}, block);
    }
    if (in_charts) out << "</div>\n";
    out << "</section>\n";
  }
  out << "</body>\n</html>\n";
  return out.str();
}

std::string runs_csv(const std::vector<RunRow>& runs, const ReportTables& tables) {
  bool energy = false;
  for (const RunRow& run : runs) energy = energy || run.energy_joules || run.mean_power_watts || run.samples_per_joule;
  std::vector<std::string> header = {"benchmark", "platform", "devices", "device_kind", "device_model", "seed", "result_index",
                                     "global_batch_size", "converged", "status", "epochs_to_converge", "epochs_run",
                                     "time_to_train_minutes", "train_samples_per_second", "train_samples_per_second_per_device",
                                     "throughput_source", "quality_name", "quality_target", "final_quality", "log_format",
                                     "log_path", "record_path", "platform_source", "devices_source", "device",
                                     "throughput_withheld"};
  if (energy) header.insert(header.end(), {"energy_joules", "mean_power_watts", "samples_per_joule", "energy_source"});
  if (tables.any_price) header.insert(header.end(), {"usd_per_hour", "price_basis", "cost_usd", "samples_per_usd"});
  if (tables.any_energy_cost) header.push_back("energy_cost_usd");
  std::string text = csv_line(header);
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunRow& run = runs[i];
    std::optional<double> per_device;
    if (run.train_samples_per_second && run.device_count > 0) per_device = *run.train_samples_per_second / run.device_count;
    const std::optional<double> final_quality = run.evals.empty() ? std::nullopt : std::optional<double>(run.evals.back().value);
    std::string quality_name = run.quality_name, quality_target = number(run.quality_target), final_text = number(final_quality);
    if (!run.quality_members.empty()) {  // several numbers: each field lists the members, ';'-separated
      std::vector<std::string> names, targets, finals;
      for (size_t m = 0; m < run.quality_members.size(); ++m) {
        names.push_back(run.quality_members[m].name);
        targets.push_back(number(run.quality_members[m].value));
        const bool has = !run.evals.empty() && m < run.evals.back().members.size() && run.evals.back().members[m];
        finals.push_back(has ? number(run.evals.back().members[m]) : "NA");
      }
      quality_name = join(names, ";");
      quality_target = join(targets, ";");
      final_text = run.evals.empty() ? "" : join(finals, ";");
    }
    std::vector<std::string> fields = {
        run.benchmark, run.platform, run.device_count > 0 ? std::to_string(run.device_count) : "", to_string(run.device_kind),
        run.device_model, run.seed ? std::to_string(*run.seed) : "", std::to_string(run.result_index),
        run.global_batch_size ? std::to_string(*run.global_batch_size) : "", run.converged ? "true" : "false",
        run.status, number(run.epochs_to_converge), number(run.epochs_run), number(run.time_to_train_minutes),
        number(run.train_samples_per_second), number(per_device), to_string(run.throughput_source),
        quality_name, quality_target, final_text, run.log_format, run.log_path,
        run.record_path, run.platform_source, run.device_count_source, run.device, run.throughput_withheld};
    if (energy)
      fields.insert(fields.end(), {number(run.energy_joules), number(run.mean_power_watts), number(run.samples_per_joule),
                                   run.energy_source});
    const RunCost cost = i < tables.run_costs.size() ? tables.run_costs[i] : RunCost{};
    if (tables.any_price)
      fields.insert(fields.end(), {number(cost.usd_per_hour), cost.price_basis, number(cost.cost_usd), number(cost.samples_per_usd)});
    if (tables.any_energy_cost) fields.push_back(number(cost.energy_cost_usd));
    text += csv_line(fields);
  }
  return text;
}

std::string summary_csv(const ReportTables& tables, const std::vector<RunRow>& runs) {
  std::vector<std::string> header = {"benchmark", "platform", "devices", "device_kind", "device_model", "global_batch_sizes",
                                     "runs", "converged_runs", "epochs_to_converge", "epochs_mean", "epochs_sd",
                                     "olympic_mean_minutes", "olympic_invalid_reason", "mean_converged_minutes",
                                     "train_samples_per_second", "train_samples_per_second_per_device", "throughput_derived",
                                     "scaling_efficiency", "scaling_reference_devices", "device", "throughput_withheld"};
  if (tables.any_energy)
    header.insert(header.end(), {"energy_runs", "energy_joules_mean", "mean_power_watts", "samples_per_joule"});
  if (tables.any_price)
    header.insert(header.end(), {"usd_per_hour", "price_basis", "cost_usd", "cost_is_olympic", "samples_per_usd"});
  if (tables.any_energy_cost) header.push_back("energy_cost_usd");
  std::string text = csv_line(header);
  for (const GroupSummary& g : tables.groups) {
    std::string batches, epochs;
    for (int64_t b : g.global_batch_sizes) batches += (batches.empty() ? "" : ";") + std::to_string(b);
    for (size_t i : g.run_indices) {
      const RunRow& run = runs[i];
      epochs += (epochs.empty() ? "" : ";") + (run.converged && run.epochs_to_converge ? number(run.epochs_to_converge) : "NA");
    }
    std::vector<std::string> fields = {
        g.benchmark, g.platform, g.device_count > 0 ? std::to_string(g.device_count) : "", to_string(g.device_kind),
        g.device_model, batches, std::to_string(g.run_indices.size()), std::to_string(g.converged_runs), epochs,
        number(g.epochs_mean), number(g.epochs_sd), number(g.olympic_mean_minutes), g.olympic_invalid_reason,
        number(g.mean_converged_minutes), number(g.train_samples_per_second),
        number(g.train_samples_per_second_per_device), g.throughput_derived ? "true" : "false",
        number(g.scaling_efficiency), g.scaling_efficiency ? std::to_string(g.scaling_reference_devices) : "", g.device,
        g.throughput_withheld ? "true" : "false"};
    if (tables.any_energy)
      fields.insert(fields.end(), {std::to_string(g.energy_runs), number(g.energy_joules_mean), number(g.mean_power_watts),
                                   number(g.samples_per_joule)});
    if (tables.any_price)
      fields.insert(fields.end(), {number(g.usd_per_hour), g.price_basis, number(g.cost_usd),
                                   g.cost_usd ? (g.olympic_mean_minutes ? "true" : "false") : "", number(g.samples_per_usd)});
    if (tables.any_energy_cost) fields.push_back(number(g.energy_cost_usd));
    text += csv_line(fields);
  }
  return text;
}

std::string comparison_csv(const ReportTables& tables) {
  std::vector<std::string> header = {"benchmark", "platform", "devices", "device_kind", "baseline_platform", "baseline_chosen_by",
                                     "baseline_devices", "baseline_device_kind", "time_to_train_minutes",
                                     "baseline_time_to_train_minutes", "times_are_olympic", "speedup", "throughput_ratio",
                                     "throughput_per_device_ratio"};
  if (tables.any_price) header.insert(header.end(), {"cost_usd", "baseline_cost_usd", "cost_ratio"});
  std::string text = csv_line(header);
  for (const ComparisonRow& row : tables.comparisons) {
    std::string chosen_by = "slowest";
    for (const BaselineChoice& choice : tables.baselines)
      if (choice.benchmark == row.benchmark && choice.chosen_by_user) chosen_by = "--baseline";
    std::vector<std::string> fields = {
        row.benchmark, row.platform, row.device_count > 0 ? std::to_string(row.device_count) : "", to_string(row.device_kind),
        row.baseline_platform, chosen_by, row.baseline_device_count > 0 ? std::to_string(row.baseline_device_count) : "",
        to_string(row.baseline_device_kind), number(row.minutes), number(row.baseline_minutes),
        row.minutes_are_olympic ? "true" : "false", number(row.speedup), number(row.throughput_ratio),
        number(row.throughput_per_device_ratio)};
    if (tables.any_price)
      fields.insert(fields.end(), {number(row.cost_usd), number(row.baseline_cost_usd), number(row.cost_ratio)});
    text += csv_line(fields);
  }
  return text;
}

}  // namespace mlh::report
