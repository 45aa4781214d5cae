#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace mlh::report {
namespace {

constexpr double kWidth = 640;
constexpr double kMaxBarWidth = 56;
constexpr double kPlotHeight = 270;
constexpr double kMarginRight = 24;
constexpr double kTickFont = 11;
constexpr double kLabelFont = 12;
constexpr double kTitleFont = 15;
constexpr size_t kLegendMaxEntries = 16;
constexpr const char* kFont = "DejaVu Sans, Helvetica, Arial, sans-serif";

// Tableau 10: distinguishable, and still apart for the common colour-vision deficiencies.
const char* series_colour(size_t i) {
  static const char* colours[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return colours[i % (sizeof colours / sizeof colours[0])];
}

// Dash patterns that tell series apart once the colours repeat.
const char* series_dash(size_t i) {
  static const char* dashes[] = {"", "6 3", "2 3", "8 3 2 3"};
  return dashes[(i / 10) % 4];
}

double text_width(const std::string& text, double font_size) { return static_cast<double>(text.size()) * font_size * 0.6; }

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

// Tick labels share one scale: once the axis reaches 10,000 every label is in k (or M).
std::string tick_label(double value, double step, double largest) {
  if (std::fabs(value) < step * 1e-6) return "0";
  char text[32];
  if (largest >= 1e6) std::snprintf(text, sizeof text, "%gM", value / 1e6);
  else if (largest >= 1e4) std::snprintf(text, sizeof text, "%gk", value / 1e3);
  else std::snprintf(text, sizeof text, "%g", value);
  return text;
}

double largest_magnitude(const std::vector<double>& ticks) {
  double largest = 0;
  for (double t : ticks) largest = std::max(largest, std::fabs(t));
  return largest;
}

struct Frame {
  double left = 0, top = 0, width = 0, height = 0;
  double bottom() const { return top + height; }
  double right() const { return left + width; }
};

struct Legend {
  std::string markup;
  double height = 0;
};

// Swatches and names in rows under the title; more than kLegendMaxEntries end in "+ N more".
Legend legend(const std::vector<std::string>& names, double top, bool lines) {
  Legend result;
  if (names.size() < 2 && !lines) return result;
  if (names.empty()) return result;
  std::ostringstream out;
  out << "<g class=\"legend\" font-size=\"" << kLabelFont << "\">";
  double x = 16, y = top;
  const size_t shown = std::min(names.size(), kLegendMaxEntries);
  auto place = [&](double width) {
    if (x + width > kWidth - kMarginRight && x > 16) {
      x = 16;
      y += 18;
    }
  };
  for (size_t i = 0; i < shown; ++i) {
    const double width = 20 + text_width(names[i], kLabelFont) + 16;
    place(width);
    if (lines) {
      out << "<line x1=\"" << num(x) << "\" y1=\"" << num(y + 6) << "\" x2=\"" << num(x + 14) << "\" y2=\"" << num(y + 6)
          << "\" stroke=\"" << series_colour(i) << "\" stroke-width=\"2.5\"";
      if (*series_dash(i)) out << " stroke-dasharray=\"" << series_dash(i) << "\"";
      out << "/>";
    } else {
      out << "<rect x=\"" << num(x) << "\" y=\"" << num(y) << "\" width=\"12\" height=\"12\" fill=\"" << series_colour(i)
          << "\"/>";
    }
    out << "<text x=\"" << num(x + 18) << "\" y=\"" << num(y + 10) << "\">" << xml_escape(names[i]) << "</text>";
    x += width;
  }
  if (names.size() > shown) {
    const std::string more = "+ " + std::to_string(names.size() - shown) + " more";
    place(text_width(more, kLabelFont));
    out << "<text x=\"" << num(x) << "\" y=\"" << num(y + 10) << "\" fill=\"#555\">" << xml_escape(more) << "</text>";
  }
  out << "</g>";
  result.markup = out.str();
  result.height = y + 18 - top;
  return result;
}

std::string open_svg(const std::string& title, double height) {
  std::ostringstream out;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" << kWidth << "\" height=\"" << num(height)
      << "\" viewBox=\"0 0 " << kWidth << " " << num(height) << "\" role=\"img\" aria-label=\"" << xml_escape(title)
      << "\" font-family=\"" << kFont << "\" fill=\"#222\">"
      << "<title>" << xml_escape(title) << "</title>"
      << "<rect x=\"0\" y=\"0\" width=\"" << kWidth << "\" height=\"" << num(height) << "\" fill=\"#fff\"/>";
  return out.str();
}

std::string title_text(const std::string& title) {
  const double size = text_width(title, kTitleFont) > kWidth - 32 ? 13 : kTitleFont;
  std::ostringstream out;
  out << "<text class=\"chart-title\" x=\"16\" y=\"24\" font-size=\"" << size << "\" font-weight=\"bold\">"
      << xml_escape(title) << "</text>";
  return out.str();
}

// Horizontal grid lines with their labels, the y axis label, and the axis lines.
std::string y_axis(const Frame& frame, const std::vector<double>& ticks, double low, double high, const std::string& label) {
  std::ostringstream out;
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  out << "<g class=\"y-axis\" font-size=\"" << kTickFont << "\">";
  for (double tick : ticks) {
    const double y = frame.bottom() - (tick - low) / (high - low) * frame.height;
    out << "<line x1=\"" << num(frame.left) << "\" y1=\"" << num(y) << "\" x2=\"" << num(frame.right()) << "\" y2=\""
        << num(y) << "\" stroke=\"#e3e3e3\"/>";
    out << "<text x=\"" << num(frame.left - 6) << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\">"
        << tick_label(tick, step, largest_magnitude(ticks)) << "</text>";
  }
  out << "</g>";
  out << "<text class=\"axis-label\" font-size=\"" << kLabelFont << "\" text-anchor=\"middle\" transform=\"translate(16,"
      << num(frame.top + frame.height / 2) << ") rotate(-90)\">" << xml_escape(label) << "</text>";
  out << "<line x1=\"" << num(frame.left) << "\" y1=\"" << num(frame.top) << "\" x2=\"" << num(frame.left) << "\" y2=\""
      << num(frame.bottom()) << "\" stroke=\"#444\"/>";
  out << "<line x1=\"" << num(frame.left) << "\" y1=\"" << num(frame.bottom()) << "\" x2=\"" << num(frame.right())
      << "\" y2=\"" << num(frame.bottom()) << "\" stroke=\"#444\"/>";
  return out.str();
}

double left_margin(const std::vector<double>& ticks) {
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  double widest = 0;
  for (double t : ticks) widest = std::max(widest, text_width(tick_label(t, step, largest_magnitude(ticks)), kTickFont));
  return 30 + widest + 8;
}

// The plot area below the title and `key`, right of the y tick labels, kPlotHeight tall.
Frame plot_frame(const Legend& key, const std::vector<double>& y_ticks) {
  Frame frame;
  frame.top = 40 + key.height + 14;
  frame.left = left_margin(y_ticks);
  frame.width = kWidth - frame.left - kMarginRight;
  frame.height = kPlotHeight;
  return frame;
}

std::string bottom_text(double y, const std::string& x_label, const std::string& note, double center) {
  std::ostringstream out;
  out << "<text class=\"axis-label\" x=\"" << num(center) << "\" y=\"" << num(y) << "\" font-size=\"" << kLabelFont
      << "\" text-anchor=\"middle\">" << xml_escape(x_label) << "</text>";
  if (!note.empty())
    out << "<text class=\"chart-note\" x=\"16\" y=\"" << num(y + 20) << "\" font-size=\"" << kTickFont
        << "\" fill=\"#555\">" << xml_escape(note) << "</text>";
  return out.str();
}

// Axis range [low, high] for data in [lo, hi], with the ticks that cover it.
std::vector<double> covering_ticks(double lo, double hi, int wanted, double* low, double* high) {
  std::vector<double> ticks = nice_ticks(lo, hi, wanted);
  *low = ticks.front();
  *high = ticks.back();
  return ticks;
}

}  // namespace

std::vector<double> nice_ticks(double low, double high, int wanted) {
  if (!std::isfinite(low) || !std::isfinite(high)) return {0, 1};
  if (high < low) std::swap(low, high);
  if (high - low < 1e-12) {
    const double pad = std::fabs(high) > 0 ? std::fabs(high) * 0.1 : 1;
    low -= pad;
    high += pad;
  }
  const double rough = (high - low) / std::max(1, wanted);
  const double magnitude = std::pow(10.0, std::floor(std::log10(rough)));
  double step = 10 * magnitude;
  for (double factor : {1.0, 2.0, 2.5, 5.0}) {
    if (factor * magnitude >= rough * 0.999) {
      step = factor * magnitude;
      break;
    }
  }
  const double first = std::floor(low / step + 1e-9);
  const double last = std::ceil(high / step - 1e-9);
  std::vector<double> ticks;
  for (double i = first; i <= last + 1e-9; i += 1) ticks.push_back(std::round(i * step / magnitude * 1e6) / 1e6 * magnitude);
  if (ticks.size() < 2) ticks.push_back(ticks.back() + step);
  return ticks;
}

std::string xml_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_number(double value) {
  if (!std::isfinite(value)) return "n/a";
  char text[32];
  const double magnitude = std::fabs(value);
  if (magnitude >= 1e6) std::snprintf(text, sizeof text, "%.3gM", value / 1e6);
  else if (magnitude >= 1e4) std::snprintf(text, sizeof text, "%.3gk", value / 1e3);
  else if (magnitude >= 1000) std::snprintf(text, sizeof text, "%.0f", value);
  else std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

std::string render_bar_chart(const BarChart& chart) {
  const size_t categories = std::max<size_t>(1, chart.categories.size());
  const bool keep_slots = !chart.missing_label.empty();
  const auto value_at = [&](size_t s, size_t c) -> std::optional<double> {
    const auto& values = chart.series[s].values;
    if (c >= values.size() || !values[c] || !std::isfinite(*values[c])) return std::nullopt;
    return values[c];
  };
  // The series that take a slot in each category, left to right.
  std::vector<std::vector<size_t>> slots(chart.categories.size());
  size_t widest_group = 1;
  double highest = 0;
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    for (size_t s = 0; s < chart.series.size(); ++s) {
      const auto value = value_at(s, c);
      if (value) highest = std::max(highest, *value);
      if (value || keep_slots) slots[c].push_back(s);
    }
    widest_group = std::max(widest_group, slots[c].size());
  }
  double low = 0, high = 1;
  const std::vector<double> ticks = covering_ticks(0, highest > 0 ? highest * 1.08 : 1, 5, &low, &high);

  std::vector<std::string> names;
  for (const BarSeries& s : chart.series) names.push_back(s.name);
  const Legend key = legend(names, 40, false);

  const Frame frame = plot_frame(key, ticks);
  const double group_width = frame.width / static_cast<double>(categories);
  const double bar_width = std::min(kMaxBarWidth, group_width * 0.8 / static_cast<double>(widest_group));

  // Category labels: flat when they fit, else slanted; thinned out when even slanted ones crowd.
  double widest_label = 0;
  for (const std::string& c : chart.categories) widest_label = std::max(widest_label, text_width(c, kTickFont));
  const bool slanted = widest_label > group_width - 6;
  const size_t label_every = slanted ? static_cast<size_t>(std::ceil(14.0 / group_width)) : 1;
  const double label_space = slanted ? std::min(widest_label, 200.0) * 0.66 + 22 : 20;
  const double x_label_y = frame.bottom() + label_space + 18;
  const double height = x_label_y + (chart.note.empty() ? 14 : 34);

  std::ostringstream out;
  out << open_svg(chart.title, height) << title_text(chart.title) << key.markup;
  out << y_axis(frame, ticks, low, high, chart.y_label);
  out << "<g class=\"bars\">";
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    const double center = frame.left + group_width * (static_cast<double>(c) + 0.5);
    const double group_left = center - bar_width * static_cast<double>(slots[c].size()) / 2;
    for (size_t slot = 0; slot < slots[c].size(); ++slot) {
      const size_t s = slots[c][slot];
      const double x = group_left + bar_width * static_cast<double>(slot);
      const std::optional<double> value = value_at(s, c);
      if (!value) {
        out << "<text class=\"missing\" x=\"" << num(x + bar_width / 2) << "\" y=\"" << num(frame.bottom() - 4)
            << "\" font-size=\"" << (bar_width >= 10 ? 11 : 8) << "\" fill=\"#c00\" text-anchor=\"middle\">"
            << xml_escape(chart.missing_label) << "</text>";
        continue;
      }
      const double bar_height = std::max(0.0, (*value - low) / (high - low) * frame.height);
      const double y = frame.bottom() - bar_height;
      out << "<rect class=\"bar\" data-series=\"" << xml_escape(chart.series[s].name) << "\" data-category=\""
          << xml_escape(chart.categories[c]) << "\" x=\"" << num(x + 0.5) << "\" y=\"" << num(y) << "\" width=\""
          << num(std::max(1.0, bar_width - 1)) << "\" height=\"" << num(bar_height) << "\" fill=\"" << series_colour(s)
          << "\"><title>" << xml_escape(chart.series[s].name + ", " + chart.categories[c] + ": " + format_number(*value))
          << "</title></rect>";
      const std::string label = format_number(*value);
      if (chart.value_labels && text_width(label, 10) <= bar_width + 2)
        out << "<text class=\"value\" x=\"" << num(x + bar_width / 2) << "\" y=\"" << num(y - 4)
            << "\" font-size=\"10\" text-anchor=\"middle\" fill=\"#333\">" << label << "</text>";
    }
  }
  out << "</g><g class=\"x-axis\" font-size=\"" << kTickFont << "\">";
  for (size_t c = 0; c < chart.categories.size(); c += label_every) {
    const double x = frame.left + group_width * (static_cast<double>(c) + 0.5);
    const double y = frame.bottom() + 16;
    if (slanted)
      out << "<text x=\"" << num(x + 3) << "\" y=\"" << num(y) << "\" text-anchor=\"end\" transform=\"rotate(-40 "
          << num(x + 3) << " " << num(y) << ")\">" << xml_escape(chart.categories[c]) << "</text>";
    else
      out << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" text-anchor=\"middle\">"
          << xml_escape(chart.categories[c]) << "</text>";
  }
  out << "</g>" << bottom_text(x_label_y, chart.x_label, chart.note, frame.left + frame.width / 2) << "</svg>";
  return out.str();
}

std::string render_line_chart(const LineChart& chart) {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo;
  double y_lo = x_lo, y_hi = -x_lo;
  bool whole_x = true;
  for (const LineSeries& s : chart.series)
    for (const LinePoint& p : s.points) {
      x_lo = std::min(x_lo, p.x);
      x_hi = std::max(x_hi, p.x);
      y_lo = std::min(y_lo, p.y);
      y_hi = std::max(y_hi, p.y);
      whole_x = whole_x && std::floor(p.x) == p.x;
    }
  for (const TargetLine& target : chart.targets) {
    y_lo = std::min(y_lo, target.value);
    y_hi = std::max(y_hi, target.value);
  }
  if (!std::isfinite(x_lo)) x_lo = 0, x_hi = 1;
  if (!std::isfinite(y_lo)) y_lo = 0, y_hi = 1;
  double x_low = 0, x_high = 1, y_low = 0, y_high = 1;
  std::vector<double> x_ticks;
  if (whole_x && x_hi - x_lo <= 12) {
    x_low = x_lo == x_hi ? x_lo - 1 : x_lo;
    x_high = x_lo == x_hi ? x_hi + 1 : x_hi;
    for (double x = x_low; x <= x_high + 1e-9; x += 1) x_ticks.push_back(x);
  } else {
    x_ticks = covering_ticks(x_lo, x_hi, 8, &x_low, &x_high);
    if (whole_x && x_ticks.size() > 1 && std::floor(x_ticks[1] - x_ticks[0]) != x_ticks[1] - x_ticks[0])
      x_ticks = covering_ticks(x_lo, x_hi, 4, &x_low, &x_high);  // whole epochs: no 2.5-epoch steps
  }
  const std::vector<double> y_ticks = covering_ticks(y_lo, y_hi + (y_hi - y_lo) * 0.04, 5, &y_low, &y_high);

  std::vector<std::string> names;
  for (const LineSeries& s : chart.series) names.push_back(s.name);
  const Legend key = legend(names, 40, true);
  const Frame frame = plot_frame(key, y_ticks);
  const auto px = [&](double x) { return frame.left + (x - x_low) / (x_high - x_low) * frame.width; };
  const auto py = [&](double y) { return frame.bottom() - (y - y_low) / (y_high - y_low) * frame.height; };
  const double x_label_y = frame.bottom() + 38;
  const double height = x_label_y + (chart.note.empty() ? 14 : 34);

  std::ostringstream out;
  out << open_svg(chart.title, height) << title_text(chart.title) << key.markup;
  out << y_axis(frame, y_ticks, y_low, y_high, chart.y_label);
  out << "<g class=\"x-axis\" font-size=\"" << kTickFont << "\">";
  const double x_step = x_ticks.size() > 1 ? x_ticks[1] - x_ticks[0] : 1;
  for (double tick : x_ticks) {
    out << "<line x1=\"" << num(px(tick)) << "\" y1=\"" << num(frame.bottom()) << "\" x2=\"" << num(px(tick)) << "\" y2=\""
        << num(frame.bottom() + 4) << "\" stroke=\"#444\"/>";
    out << "<text x=\"" << num(px(tick)) << "\" y=\"" << num(frame.bottom() + 17) << "\" text-anchor=\"middle\">"
        << tick_label(tick, x_step, largest_magnitude(x_ticks)) << "</text>";
  }
  out << "</g>";
  size_t total_points = 0;
  for (const LineSeries& s : chart.series) total_points += s.points.size();
  out << "<g class=\"lines\" fill=\"none\">";
  for (size_t s = 0; s < chart.series.size(); ++s) {
    const LineSeries& series = chart.series[s];
    out << "<polyline class=\"series\" data-series=\"" << xml_escape(series.name) << "\" stroke=\"" << series_colour(s)
        << "\" stroke-width=\"2\"";
    if (*series_dash(s)) out << " stroke-dasharray=\"" << series_dash(s) << "\"";
    out << " points=\"";
    for (size_t i = 0; i < series.points.size(); ++i)
      out << (i ? " " : "") << num(px(series.points[i].x)) << "," << num(py(series.points[i].y));
    out << "\"><title>" << xml_escape(series.name) << "</title></polyline>";
    if (total_points > 400) continue;
    for (const LinePoint& p : series.points)
      out << "<circle class=\"point\" data-series=\"" << xml_escape(series.name) << "\" cx=\"" << num(px(p.x)) << "\" cy=\""
          << num(py(p.y)) << "\" r=\"3\" fill=\"" << series_colour(s) << "\"><title>" << xml_escape(series.name)
          << ": " << format_number(p.x) << ", " << format_number(p.y) << "</title></circle>";
  }
  out << "</g>";
  for (const TargetLine& target : chart.targets) {
    const double y = py(target.value);
    const std::string label = target.label.empty() ? "target " + format_number(target.value) : target.label;
    out << "<line class=\"target\" x1=\"" << num(frame.left) << "\" y1=\"" << num(y) << "\" x2=\"" << num(frame.right())
        << "\" y2=\"" << num(y) << "\" stroke=\"#c00\" stroke-width=\"1.5\" stroke-dasharray=\"7 5\"/>";
    // At the left end, where quality curves start low; a white halo keeps it readable over lines.
    out << "<text class=\"target-label\" x=\"" << num(frame.left + 6) << "\" y=\"" << num(y - 5)
        << "\" font-size=\"" << kTickFont << "\" fill=\"#c00\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">"
        << xml_escape(label) << "</text>";
  }
  out << bottom_text(x_label_y, chart.x_label, chart.note, frame.left + frame.width / 2) << "</svg>";
  return out.str();
}

}  // namespace mlh::report
