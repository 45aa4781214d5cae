// report.html as a browser shows it: headless Chromium renders the page, and every chart must be in
// the rendered DOM with its title; a screenshot must come out. Skips without /usr/bin/chromium.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "report/report.h"
#include "tests/report/report_test_logs.h"

namespace mlh::report {
namespace {

namespace fs = std::filesystem;
using report_test::LogSpec;
using report_test::make_log;
using report_test::write_text;

const char* const kChromium = "/usr/bin/chromium";

std::string read(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

int run_chromium(const std::string& arguments, const fs::path& stdout_file) {
  const std::string command = std::string("timeout 120 ") + kChromium +
                              " --headless --no-sandbox --disable-gpu --user-data-dir='" +
                              (stdout_file.parent_path() / "chromium-profile").string() + "' " + arguments + " >'" +
                              stdout_file.string() + "' 2>/dev/null";
  return std::system(command.c_str());
}

TEST(HtmlRender, EveryChartIsInTheRenderedPage) {
  if (!fs::exists(kChromium)) GTEST_SKIP() << kChromium << " is absent (apt-get install chromium)";
  const fs::path dir = fs::path(::testing::TempDir()) / "report_html_render";
  fs::remove_all(dir);
  int index = 0;
  for (const char* platform : {"1xSlow-GPU", "1xFast-GPU", "2xFast-GPU"}) {
    for (int seed = 1; seed <= 3; ++seed) {
      LogSpec spec;
      spec.platform = platform;
      spec.seed = seed;
      spec.minutes = 10.0 / (platform[3] == 'a' ? 3 : 1) + seed;
      spec.evals = {{1, 0.1}, {2, 0.2}, {3, 0.2 + 0.02 * seed}};
      write_text(dir / "runs" / platform / "gnmt" / ("result_" + std::to_string(index++) + ".txt"), make_log(spec));
    }
  }
  const ReportOutcome outcome = make_report({{(dir / "runs").string()}, (dir / "out").string(), ""});
  const std::string html = read(dir / "out/report.html");
  // Self-contained: nothing fetched.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);

  std::vector<std::string> titles;
  const std::regex chart_title(R"(<svg [^>]*class="chart"[^>]*><title>([^<]*)</title>)");
  for (std::sregex_iterator it(html.begin(), html.end(), chart_title), end; it != end; ++it) titles.push_back((*it)[1]);
  // Time to train + epochs per seed x 3 groups + quality x 3 groups (no throughput without records).
  ASSERT_EQ(titles.size(), 7u);

  const fs::path dom_file = dir / "dom.html";
  ASSERT_EQ(run_chromium("--dump-dom 'file://" + (dir / "out/report.html").string() + "'", dom_file), 0);
  const std::string dom = read(dom_file);
  size_t rendered = 0;
  for (size_t at = dom.find("<svg "); at != std::string::npos; at = dom.find("<svg ", at + 1)) ++rendered;
  EXPECT_EQ(rendered, titles.size());
  for (const std::string& title : titles) EXPECT_NE(dom.find("<title>" + title + "</title>"), std::string::npos) << title;
  EXPECT_THAT(dom, ::testing::HasSubstr("gnmt: time to train (olympic mean)"));
  EXPECT_THAT(dom, ::testing::HasSubstr("class=\"target\""));

  const fs::path screenshot = dir / "report.png";
  ASSERT_EQ(run_chromium("--screenshot='" + screenshot.string() + "' --window-size=1400,3000 'file://" +
                             (dir / "out/report.html").string() + "'",
                         dir / "screenshot.log"),
            0);
  ASSERT_TRUE(fs::is_regular_file(screenshot));
  EXPECT_GT(fs::file_size(screenshot), 10000u);
}

}  // namespace
}  // namespace mlh::report
