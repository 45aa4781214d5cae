// The report as a format-neutral document: sections of paragraphs, bullet lists, tables and charts
// (SVG text). The Markdown and HTML writers render the same document, so both say the same thing.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "report/report_data.h"
#include "report/report_tables.h"

namespace mlh::report {

struct Paragraph {
  std::string text;
};

struct Bullets {
  std::vector<std::string> items;
};

struct DocTable {
  std::vector<std::string> header;
  std::vector<bool> numeric;          // per column: right-aligned
  std::vector<std::vector<std::string>> rows;
};

struct DocChart {
  std::string file_stem;              // charts/<file_stem>.svg beside report.md
  std::string title;
  std::string svg;
};

using DocBlock = std::variant<Paragraph, Bullets, DocTable, DocChart>;

struct DocSection {
  std::string heading;
  int level = 2;                      // 2: a section, 3: a subsection
  std::vector<DocBlock> blocks;
};

struct ReportDocument {
  std::string title;
  std::vector<DocSection> sections;
};

// At most this many charts of each per-group kind (epochs per seed, quality per epoch); the rest
// are named in a note.
inline constexpr size_t kMaxChartsPerKind = 40;

ReportDocument build_report_document(const CollectedRuns& collected, const ReportTables& tables,
                                     const std::vector<std::string>& inputs);

}  // namespace mlh::report
