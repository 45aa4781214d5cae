// The commands that read results instead of training: check (compliance rules), score (MLPerf
// scores and reference convergence points), report (tables and charts across platforms) and
// coco-eval (COCO detection metrics of a results file). Each
// takes the arguments after its command word and returns the exit status; a bad command line or
// unreadable input throws UserError (exit 2).
#pragma once

#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace mlh {

// Parses `args` against `options` plus any number of positional arguments, returned under
// `positional_name` (absent when none was given). Throws boost::program_options::error.
inline boost::program_options::variables_map parse_with_positionals(
    const std::vector<std::string>& args, const boost::program_options::options_description& options,
    const std::string& positional_name) {
  namespace po = boost::program_options;
  po::options_description all;
  all.add(options).add_options()(positional_name.c_str(), po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add(positional_name.c_str(), -1);
  po::variables_map vars;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vars);
  po::notify(vars);
  return vars;
}

int check_command(const std::vector<std::string>& args);
int score_command(const std::vector<std::string>& args);
int report_command(const std::vector<std::string>& args);
int coco_eval_command(const std::vector<std::string>& args);

}  // namespace mlh
