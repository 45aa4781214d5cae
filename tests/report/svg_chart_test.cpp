#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "report/svg_chart.h"

namespace mlh::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Checks that the markup is well-formed XML as far as SVG text goes: every tag closes in order,
// attribute values are quoted, and no raw '<' or '&' sits in text. Returns "" or the problem.
std::string xml_problem(const std::string& xml) {
  std::vector<std::string> open;
  size_t i = 0;
  while (i < xml.size()) {
    if (xml[i] == '&') {
      const size_t end = xml.find(';', i);
      if (end == std::string::npos || end - i > 8) return "bare & at " + std::to_string(i);
      i = end + 1;
      continue;
    }
    if (xml[i] != '<') {
      ++i;
      continue;
    }
    const size_t end = xml.find('>', i);
    if (end == std::string::npos) return "unclosed tag at " + std::to_string(i);
    std::string tag = xml.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return "</" + tag.substr(1) + "> closes nothing open";
      open.pop_back();
      continue;
    }
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0) return "unbalanced quotes in <" + tag + ">";
    static const std::regex attributes(R"(^[a-zA-Z][\w:-]*(\s+[\w:-]+="[^"<]*")*\s*/?$)");
    if (!std::regex_match(tag, attributes)) return "malformed tag <" + tag + ">";
    if (tag.back() == '/') continue;
    open.push_back(tag.substr(0, tag.find_first_of(" \t\n")));
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return "";
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(XmlCheck, CatchesBrokenMarkup) {
  EXPECT_EQ(xml_problem("<svg><g></g></svg>"), "");
  EXPECT_NE(xml_problem("<svg><g></svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>a < b</text></svg>"), "");
  EXPECT_NE(xml_problem("<svg><text>R&D</text></svg>"), "");
}

TEST(NiceTicks, RoundStepsCoverTheRange) {
  EXPECT_EQ(nice_ticks(0, 9.3, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  const std::vector<double> small = nice_ticks(0, 0.26, 5);
  const std::vector<double> expected = {0, 0.1, 0.2, 0.3};
  ASSERT_EQ(small.size(), expected.size());
  for (size_t i = 0; i < small.size(); ++i) EXPECT_NEAR(small[i], expected[i], 1e-12);
  const std::vector<double> large = nice_ticks(0, 14309, 5);
  EXPECT_EQ(large.front(), 0);
  EXPECT_GE(large.back(), 14309);
  EXPECT_EQ(large[1] - large[0], 5000);
  EXPECT_GE(nice_ticks(5, 5, 5).size(), 2u);  // a flat range still gets an axis
}

TEST(FormatNumber, ReadableMagnitudes) {
  EXPECT_EQ(format_number(18.502), "18.5");
  EXPECT_EQ(format_number(0.24), "0.24");
  EXPECT_EQ(format_number(5537), "5537");
  EXPECT_EQ(format_number(14309), "14.3k");
  EXPECT_EQ(format_number(2.5e6), "2.5M");
}

TEST(BarChart, GroupedBarsWithLegendAndAxes) {
  BarChart chart;
  chart.title = "gnmt: time to train <olympic & mean>";
  chart.x_label = "GPU count";
  chart.y_label = "minutes";
  chart.categories = {"1 GPU", "2 GPUs", "4 GPUs"};
  chart.series = {{"T4", {30.0, 17.0, 9.5}}, {"V100", {10.0, std::nullopt, 3.2}}};
  const std::string svg = render_bar_chart(chart);
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_THAT(svg, HasSubstr("<title>gnmt: time to train &lt;olympic &amp; mean&gt;</title>"));
  EXPECT_EQ(count(svg, "class=\"bar\""), 5u);  // the missing V100 value takes no slot
  EXPECT_EQ(count(svg, "data-series=\"T4\""), 3u);
  EXPECT_EQ(count(svg, "data-series=\"V100\""), 2u);
  EXPECT_THAT(svg, HasSubstr("class=\"legend\""));
  EXPECT_THAT(svg, HasSubstr(">T4</text>"));
  EXPECT_THAT(svg, HasSubstr(">V100</text>"));
  EXPECT_THAT(svg, HasSubstr(">minutes</text>"));
  EXPECT_THAT(svg, HasSubstr(">GPU count</text>"));
  EXPECT_THAT(svg, HasSubstr(">4 GPUs</text>"));
  EXPECT_THAT(svg, HasSubstr(">30</text>"));  // the top value, and a y tick covering it
  EXPECT_THAT(svg, HasSubstr("class=\"chart-title\""));
}

TEST(BarChart, KeptSlotsShowTheMissingLabel) {
  BarChart chart;
  chart.title = "epochs per seed";
  chart.categories = {"1", "2", "3"};
  chart.series = {{"epochs", {3.0, std::nullopt, 4.0}}};
  chart.missing_label = "✗";
  const std::string svg = render_bar_chart(chart);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(count(svg, "class=\"bar\""), 2u);
  EXPECT_EQ(count(svg, "class=\"missing\""), 1u);
  EXPECT_THAT(svg, Not(HasSubstr("class=\"legend\"")));  // one series needs no legend
}

TEST(BarChart, ManyCategoriesStayWellFormed) {
  BarChart chart;
  chart.title = "100 seeds";
  BarSeries series{"epochs", {}};
  for (int i = 0; i < 100; ++i) {
    chart.categories.push_back("seed " + std::to_string(1000000 + i));
    series.values.push_back(10.0 + i % 7);
  }
  chart.series.push_back(series);
  const std::string svg = render_bar_chart(chart);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(count(svg, "class=\"bar\""), 100u);
  EXPECT_THAT(svg, HasSubstr("rotate(-40"));  // slanted category labels
}

TEST(LineChart, SeriesPointsAndDashedTarget) {
  LineChart chart;
  chart.title = "gnmt: eval quality per epoch";
  chart.x_label = "epoch";
  chart.y_label = "bleu/100";
  chart.series = {{"seed 1", {{1, 0.1}, {2, 0.2}, {3, 0.25}}},
                  {"seed 2", {{1, 0.12}, {2, 0.22}}},
                  {"seed 3", {{1, 0.08}, {2, 0.19}, {3, 0.23}, {4, 0.26}}}};
  chart.targets = {{0.24, "target 0.24"}};
  const std::string svg = render_line_chart(chart);
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_EQ(count(svg, "class=\"series\""), 3u);
  EXPECT_EQ(count(svg, "class=\"point\""), 9u);
  EXPECT_EQ(count(svg, "class=\"target\""), 1u);
  EXPECT_TRUE(std::regex_search(svg, std::regex("<line class=\"target\"[^>]*stroke-dasharray=")));
  EXPECT_THAT(svg, HasSubstr(">target 0.24</text>"));
  EXPECT_THAT(svg, HasSubstr(">seed 3</text>"));  // legend
  EXPECT_THAT(svg, HasSubstr(">4</text>"));        // whole-epoch ticks up to the last epoch
}

TEST(LineChart, ATargetLinePerMemberOfAQualityOfSeveralNumbers) {
  LineChart chart;
  chart.title = "maskrcnn: eval quality per epoch";
  chart.series = {{"seed 1 BBOX", {{1, 0.30}, {2, 0.379}}}, {"seed 1 SEGM", {{1, 0.28}, {2, 0.341}}}};
  chart.targets = {{0.377, "BBOX target 0.377"}, {0.339, "SEGM target 0.339"}};
  const std::string svg = render_line_chart(chart);
  EXPECT_EQ(xml_problem(svg), "") << svg;
  EXPECT_EQ(count(svg, "class=\"target\""), 2u);
  EXPECT_THAT(svg, HasSubstr(">BBOX target 0.377</text>"));
  EXPECT_THAT(svg, HasSubstr(">SEGM target 0.339</text>"));
}

TEST(LineChart, ManySeriesCapTheLegend) {
  LineChart chart;
  chart.title = "100 seeds";
  for (int i = 0; i < 100; ++i) chart.series.push_back({"seed " + std::to_string(i), {{1, 0.1}, {2, 0.2 + i * 0.001}}});
  const std::string svg = render_line_chart(chart);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(count(svg, "class=\"series\""), 100u);
  EXPECT_THAT(svg, HasSubstr("+ 84 more"));
  EXPECT_EQ(count(svg, "class=\"target\""), 0u);
}

}  // namespace
}  // namespace mlh::report
