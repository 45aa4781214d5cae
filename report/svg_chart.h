// Charts as standalone SVG text (no scripts, no external fonts or styles): a grouped bar chart and a
// line chart, each with a title, axes with "nice" ticks, axis labels and a legend. The markup names
// its parts with classes so it can be styled and checked: svg.chart, rect.bar (data-series,
// data-category), polyline.series / circle.point (data-series), line.target (dashed),
// text.chart-title, g.legend.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mlh::report {

struct BarSeries {
  std::string name;
  std::vector<std::optional<double>> values;  // one per category; nullopt: see BarChart::missing_label
};

struct BarChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> categories;
  std::vector<BarSeries> series;
  std::string note;                 // a line under the plot, e.g. how the values were derived
  bool value_labels = true;         // print each bar's value when there is room
  // Empty: a missing value takes no slot (the category's bars close up). Else every series keeps
  // its slot and a missing value shows this text at the baseline (e.g. "✗" for a failed run).
  std::string missing_label;
};

struct LinePoint {
  double x = 0;
  double y = 0;
};

struct LineSeries {
  std::string name;
  std::vector<LinePoint> points;
};

// A dashed horizontal line: a quality target.
struct TargetLine {
  double value = 0;
  std::string label;                // empty: "target <value>"
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<LineSeries> series;
  std::vector<TargetLine> targets;  // one per member of a quality of several numbers
  std::string note;
};

std::string render_bar_chart(const BarChart& chart);
std::string render_line_chart(const LineChart& chart);

// Axis ticks: about `wanted` round values (1, 2, 2.5 or 5 x 10^k steps) covering [low, high].
std::vector<double> nice_ticks(double low, double high, int wanted);

// Escapes &, <, >, " and ' for XML text and attribute values.
std::string xml_escape(const std::string& text);

// A number for people: 3 significant digits, no exponent for everyday magnitudes, thousands as 12.3k.
std::string format_number(double value);

}  // namespace mlh::report
