#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "base/user_error.h"
#include "tests/test_files.h"
#include "datasets/movielens/ratings.h"
#include "datasets/movielens/synthetic.h"

namespace mlh::movielens {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

using testing_files::contents_of;

fs::path test_folder() { return testing_files::fresh_test_folder("mlh_synthetic_test"); }

SyntheticRatingsSpec small_spec() {
  SyntheticRatingsSpec spec;
  spec.num_users = 150;
  spec.num_items = 300;
  spec.min_ratings_per_user = 5;
  spec.mean_ratings_per_user = 12;
  spec.seed = 4;
  return spec;
}

TEST(SyntheticRatings, ReadsBackThroughTheLoader) {
  const SyntheticRatingsSpec spec = small_spec();
  const fs::path path = test_folder() / "nested" / "ml-synthetic" / "ratings.csv";
  const SyntheticRatingsSummary summary = write_synthetic_ratings(path.string(), spec);
  EXPECT_EQ(summary.num_users, spec.num_users);
  EXPECT_GE(summary.num_ratings, int64_t{spec.num_users} * spec.min_ratings_per_user);
  EXPECT_LE(summary.num_items, spec.num_items);
  EXPECT_FALSE(fs::exists(path.string() + ".partial"));

  const RatingsTable table = read_ratings(path.parent_path().string());
  EXPECT_EQ(table.num_users, spec.num_users);
  EXPECT_EQ(table.num_items, summary.num_items);
  EXPECT_EQ(static_cast<int64_t>(table.user.size()), summary.num_ratings);

  const LeaveOneOutSplit split = leave_one_out(table, spec.min_ratings_per_user);
  EXPECT_EQ(split.num_users, spec.num_users);
  EXPECT_EQ(split.num_train(), summary.num_ratings - spec.num_users);
}

TEST(SyntheticRatings, Ml20mFormat) {
  const fs::path path = test_folder() / "ratings.csv";
  write_synthetic_ratings(path.string(), small_spec());
  std::istringstream lines(contents_of(path));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "userId,movieId,rating,timestamp");
  std::getline(lines, line);
  EXPECT_THAT(line, MatchesRegex("1,[0-9]+,[0-5]\\.[05],[0-9]+"));
  // Movie ids are sparse, so the loader's remapping is exercised.
  int largest_movie_id = 0;
  while (std::getline(lines, line)) {
    const size_t first_comma = line.find(',');
    largest_movie_id = std::max(
        largest_movie_id, std::stoi(line.substr(first_comma + 1, line.find(',', first_comma + 1))));
  }
  EXPECT_GT(largest_movie_id, small_spec().num_items);
}

TEST(SyntheticRatings, DeterministicInTheSeed) {
  const fs::path folder = test_folder();
  SyntheticRatingsSpec spec = small_spec();
  write_synthetic_ratings((folder / "a.csv").string(), spec);
  write_synthetic_ratings((folder / "b.csv").string(), spec);
  spec.seed += 1;
  write_synthetic_ratings((folder / "c.csv").string(), spec);
  const std::string a = contents_of(folder / "a.csv");
  EXPECT_EQ(a, contents_of(folder / "b.csv"));
  EXPECT_NE(a, contents_of(folder / "c.csv"));
}

TEST(SyntheticRatings, RejectsImpossibleSpecs) {
  const std::string path = (test_folder() / "ratings.csv").string();
  auto with = [](auto change) {
    SyntheticRatingsSpec spec = small_spec();
    change(spec);
    return spec;
  };
  EXPECT_THROW(write_synthetic_ratings(path, with([](auto& s) { s.num_users = 0; })), UserError);
  EXPECT_THROW(write_synthetic_ratings(path, with([](auto& s) { s.num_items = -1; })), UserError);
  EXPECT_THROW(write_synthetic_ratings(path, with([](auto& s) { s.num_items = 5; })), UserError);
  EXPECT_THROW(write_synthetic_ratings(path, with([](auto& s) { s.factors = 0; })), UserError);
  EXPECT_THROW(write_synthetic_ratings(path, with([](auto& s) { s.temperature = 0; })), UserError);
  EXPECT_THROW(write_synthetic_ratings(path, with([](auto& s) { s.min_ratings_per_user = 0; })),
               UserError);
  EXPECT_FALSE(fs::exists(path));
}

TEST(SyntheticRatings, UnwritablePath) {
  const fs::path folder = test_folder();
  std::ofstream(folder / "a_file") << "x";
  const std::string path = (folder / "a_file" / "ratings.csv").string();
  try {
    write_synthetic_ratings(path, small_spec());
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_THAT(error.what(), HasSubstr(path));
  }
}

}  // namespace
}  // namespace mlh::movielens
