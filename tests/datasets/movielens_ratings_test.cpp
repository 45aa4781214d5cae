#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "base/user_error.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"
#include "datasets/movielens/ratings.h"

namespace mlh::movielens {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path test_folder() { return testing_files::fresh_test_folder("mlh_ratings_test"); }

std::string write_file(const fs::path& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
  return path.string();
}

std::string read_error(const std::string& path) {
  return user_error_of([&] { read_ratings(path); });
}

TEST(ReadRatings, CsvRemapsIdsInFirstAppearanceOrder) {
  const std::string path = write_file(test_folder() / "ratings.csv",
                                      "userId,movieId,rating,timestamp\n"
                                      "10,50,4.0,1000\n"
                                      "3,20,3.5,1001\n"
                                      "10,20,5,1002\n"
                                      "7,99,0.5,999\n");
  const RatingsTable table = read_ratings(path);
  EXPECT_EQ(table.num_users, 3);
  EXPECT_EQ(table.num_items, 3);
  EXPECT_EQ(table.user, (std::vector<int32_t>{0, 1, 0, 2}));
  EXPECT_EQ(table.item, (std::vector<int32_t>{0, 1, 1, 2}));
  EXPECT_EQ(table.timestamp, (std::vector<int64_t>{1000, 1001, 1002, 999}));
  EXPECT_EQ(table.source_path, path);
}

TEST(ReadRatings, FolderWithCsvToleratesCrlfAndNoFinalNewline) {
  const fs::path folder = test_folder();
  write_file(folder / "ratings.csv",
             "userId,movieId,rating,timestamp\r\n1,31,2.5,1260759144\r\n1,1029,3.0,1260759179");
  const RatingsTable table = read_ratings(folder.string());
  EXPECT_EQ(table.user.size(), 2u);
  EXPECT_EQ(table.timestamp.back(), 1260759179);
  EXPECT_EQ(table.source_path, (folder / "ratings.csv").string());
}

TEST(ReadRatings, FolderWithDat) {
  const fs::path folder = test_folder();
  write_file(folder / "ratings.dat",
             "1::1193::5::978300760\n2::661::3::978302109\n1::661::4::978301968\n");
  const RatingsTable table = read_ratings(folder.string());
  EXPECT_EQ(table.num_users, 2);
  EXPECT_EQ(table.num_items, 2);
  EXPECT_EQ(table.user, (std::vector<int32_t>{0, 1, 0}));
  EXPECT_EQ(table.item, (std::vector<int32_t>{0, 1, 1}));
  EXPECT_EQ(table.timestamp[1], 978302109);
}

TEST(ReadRatings, LargeAndNegativeIdsAreRemapped) {
  const std::string path = write_file(test_folder() / "ratings.csv",
                                      "userId,movieId,rating,timestamp\n"
                                      "5000000000,-4,1,1\n"
                                      "2,123456789012,1,2\n"
                                      "5000000000,123456789012,1,3\n");
  const RatingsTable table = read_ratings(path);
  EXPECT_EQ(table.user, (std::vector<int32_t>{0, 1, 0}));
  EXPECT_EQ(table.item, (std::vector<int32_t>{0, 1, 1}));
}

TEST(ReadRatings, RowsAcrossReadChunks) {
  // Over 4 MiB, so lines straddle the reader's chunk boundaries.
  std::string contents = "userId,movieId,rating,timestamp\n";
  const int num_rows = 300000;
  for (int row = 0; row < num_rows; ++row) {
    contents += std::to_string(row % 1000 + 1) + "," + std::to_string(row % 777 + 1) + ",3.5," +
                std::to_string(1000000000 + row) + "\n";
  }
  ASSERT_GT(contents.size(), size_t{4} << 20);
  const RatingsTable table = read_ratings(write_file(test_folder() / "ratings.csv", contents));
  ASSERT_EQ(table.user.size(), static_cast<size_t>(num_rows));
  EXPECT_EQ(table.num_users, 1000);
  EXPECT_EQ(table.num_items, 777);
  for (int row = 0; row < num_rows; ++row) {
    ASSERT_EQ(table.timestamp[row], 1000000000 + row);
    ASSERT_EQ(table.user[row], row % 1000);
    ASSERT_EQ(table.item[row], row % 777);
  }
}

TEST(ReadRatings, MissingFileOrFolder) {
  const fs::path folder = test_folder();
  const std::string missing = (folder / "nowhere" / "ratings.csv").string();
  EXPECT_THAT(read_error(missing), HasSubstr(missing));
  const std::string message = read_error(folder.string());
  EXPECT_THAT(message, HasSubstr(folder.string()));
  EXPECT_THAT(message, HasSubstr("ratings.csv"));
  EXPECT_THAT(message, HasSubstr("ratings.dat"));
}

TEST(ReadRatings, WrongHeader) {
  const std::string path =
      write_file(test_folder() / "ratings.csv", "user,movie,rating,timestamp\n1,2,3.0,4\n");
  const std::string message = read_error(path);
  EXPECT_THAT(message, HasSubstr(path + ":1:"));
  EXPECT_THAT(message, HasSubstr("expected header 'userId,movieId,rating,timestamp'"));
  EXPECT_THAT(message, HasSubstr("found 'user,movie,rating,timestamp'"));
}

TEST(ReadRatings, ShortRow) {
  const std::string path = write_file(test_folder() / "ratings.csv",
                                      "userId,movieId,rating,timestamp\n1,2,3.0,4\n1,3,4.0\n");
  const std::string message = read_error(path);
  EXPECT_THAT(message, HasSubstr(path + ":3:"));
  EXPECT_THAT(message, HasSubstr("expected 4 fields"));
  EXPECT_THAT(message, HasSubstr("found 3"));
}

TEST(ReadRatings, LongRow) {
  const std::string path =
      write_file(test_folder() / "ratings.csv", "userId,movieId,rating,timestamp\n1,2,3.0,4,5\n");
  EXPECT_THAT(read_error(path), HasSubstr(path + ":2: expected 4 fields"));
}

TEST(ReadRatings, ShortDatRow) {
  const std::string path =
      write_file(test_folder() / "ratings.dat", "1::1193::5::978300760\n1::1193::5\n");
  const std::string message = read_error(path);
  EXPECT_THAT(message, HasSubstr(path + ":2:"));
  EXPECT_THAT(message, HasSubstr("expected 4 fields"));
}

TEST(ReadRatings, NonNumericFieldsNameTheFieldAndLine) {
  const fs::path folder = test_folder();
  struct Case {
    std::string bad_row;
    std::string field;
  };
  const Case cases[] = {{"x1,2,3.0,4", "userId 'x1'"},     {"1,,3.0,4", "movieId ''"},
                        {"1,2,three,4", "rating 'three'"}, {"1,2,3.0,12x", "timestamp '12x'"},
                        {"1,2.5,3.0,4", "movieId '2.5'"},  {"1,2,3.0, 4", "timestamp ' 4'"}};
  for (const Case& bad : cases) {
    const std::string path =
        write_file(folder / "ratings.csv",
                   "userId,movieId,rating,timestamp\n1,2,3.0,4\n" + bad.bad_row + "\n5,6,1.0,7\n");
    const std::string message = read_error(path);
    EXPECT_THAT(message, HasSubstr(path + ":3:")) << bad.bad_row;
    EXPECT_THAT(message, HasSubstr(bad.field)) << bad.bad_row;
  }
}

TEST(ReadRatings, EmptyFiles) {
  const fs::path folder = test_folder();
  const std::string empty_csv = write_file(folder / "empty.csv", "");
  EXPECT_THAT(read_error(empty_csv), HasSubstr(empty_csv));
  const std::string header_only =
      write_file(folder / "header_only.csv", "userId,movieId,rating,timestamp\n\n");
  EXPECT_THAT(read_error(header_only), HasSubstr("no ratings"));
  const std::string empty_dat = write_file(folder / "ratings.dat", "");
  EXPECT_THAT(read_error(empty_dat), HasSubstr(empty_dat + ": holds no ratings"));
}

RatingsTable table_of(std::vector<int32_t> users, std::vector<int32_t> items,
                      std::vector<int64_t> timestamps) {
  RatingsTable table;
  table.user = std::move(users);
  table.item = std::move(items);
  table.timestamp = std::move(timestamps);
  for (const int32_t user : table.user) table.num_users = std::max(table.num_users, user + 1);
  for (const int32_t item : table.item) table.num_items = std::max(table.num_items, item + 1);
  table.source_path = "memory/ratings.csv";
  return table;
}

TEST(LeaveOneOut, LatestRatingIsTestAndTiesGoToTheLaterRow) {
  // User 0: latest is item 2 (t=30). User 1: items 3 and 1 tie at t=50; the later row (item 1)
  // wins.
  const RatingsTable table =
      table_of({0, 1, 0, 1, 0, 1}, {0, 3, 2, 1, 1, 0}, {10, 50, 30, 50, 20, 40});
  const LeaveOneOutSplit split = leave_one_out(table, 1);
  EXPECT_EQ(split.num_users, 2);
  EXPECT_EQ(split.num_items, 4);
  // Items are remapped in first appearance: 0->0, 3->1, 2->2, 1->3.
  EXPECT_EQ(split.test_item, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(split.user_offset, (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(split.train_user, (std::vector<int32_t>{0, 0, 1, 1}));
  EXPECT_EQ(split.train_item, (std::vector<int32_t>{0, 3, 1, 0}));
  EXPECT_EQ(split.user_items_sorted, (std::vector<int32_t>{0, 3, 0, 1}));
  EXPECT_EQ(split.num_train(), 4);
  EXPECT_TRUE(split.rated_in_train(0, 3));
  EXPECT_FALSE(split.rated_in_train(0, 2));  // user 0's test item
  EXPECT_TRUE(split.rated_in_train(1, 1));
  EXPECT_FALSE(split.rated_in_train(1, 3));
}

TEST(LeaveOneOut, DropsUsersBelowMinRatingsAndKeepsIdsDense) {
  // User 0 has 3 ratings, user 1 has 2, user 2 has 3. Item 5 is rated only by user 1.
  const RatingsTable table =
      table_of({1, 0, 1, 2, 0, 2, 0, 2}, {5, 4, 4, 1, 1, 4, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const LeaveOneOutSplit split = leave_one_out(table, 3);
  EXPECT_EQ(split.num_users, 2);  // old 0 -> 0, old 2 -> 1
  EXPECT_EQ(split.num_items, 3);  // 4 -> 0, 1 -> 1, 2 -> 2; 5 is gone
  EXPECT_EQ(split.test_item, (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(split.train_user, (std::vector<int32_t>{0, 0, 1, 1}));
  EXPECT_EQ(split.train_item, (std::vector<int32_t>{0, 1, 1, 0}));
  EXPECT_EQ(split.user_items_sorted, (std::vector<int32_t>{0, 1, 0, 1}));
}

TEST(LeaveOneOut, NoUserLeft) {
  const RatingsTable table = table_of({0, 1, 0}, {0, 1, 1}, {1, 2, 3});
  EXPECT_THAT(user_error_of([&] { leave_one_out(table, 5); }),
              HasSubstr("no user has at least 5 ratings in memory/ratings.csv"));
}

}  // namespace
}  // namespace mlh::movielens
