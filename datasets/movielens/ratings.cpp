#include "datasets/movielens/ratings.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "base/user_error.h"

namespace mlh::movielens {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCsvHeader = "userId,movieId,rating,timestamp";
constexpr std::string_view kFieldNames[4] = {"userId", "movieId", "rating", "timestamp"};

enum class RatingsFormat { kCsv, kDat };

// Raw ids -> 0..N-1 in order of first appearance. MovieLens ids are small non-negative integers, so
// a direct table serves them; anything else goes through a hash map.
class DenseIdMap {
 public:
  int32_t dense_id(int64_t raw_id) {
    if (raw_id >= 0 && raw_id < kDirectTableLimit) {
      const auto slot_index = static_cast<size_t>(raw_id);
      if (slot_index >= direct_.size()) {
        direct_.resize(std::max(slot_index + 1, direct_.size() * 2), -1);
      }
      int32_t& slot = direct_[slot_index];
      if (slot < 0) slot = next_id_++;
      return slot;
    }
    const auto [it, inserted] = sparse_.try_emplace(raw_id, next_id_);
    if (inserted) ++next_id_;
    return it->second;
  }
  int32_t size() const { return next_id_; }

 private:
  static constexpr int64_t kDirectTableLimit = int64_t{1} << 24;
  std::vector<int32_t> direct_;
  std::unordered_map<int64_t, int32_t> sparse_;
  int32_t next_id_ = 0;
};

std::string quoted_excerpt(std::string_view text) {
  constexpr size_t kMaxChars = 80;
  if (text.size() <= kMaxChars) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, kMaxChars)) + "...'";
}

class RatingsParser {
 public:
  RatingsParser(std::string file_path, RatingsFormat format)
      : file_path_(std::move(file_path)),
        format_(format),
        separator_(format == RatingsFormat::kCsv ? "," : "::") {
    table_.source_path = file_path_;
  }

  void reserve_for_file_bytes(uintmax_t file_bytes) {
    const auto expected_rows = static_cast<size_t>(file_bytes / 24);
    table_.user.reserve(expected_rows);
    table_.item.reserve(expected_rows);
    table_.timestamp.reserve(expected_rows);
  }

  void parse_line(std::string_view line) {
    ++line_number_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (format_ == RatingsFormat::kCsv && line_number_ == 1) {
      check_header(line);
      return;
    }
    if (line.empty()) return;
    if (!parse_well_formed_row(line)) parse_rating_row(line);
  }

  RatingsTable finish() {
    if (format_ == RatingsFormat::kCsv && line_number_ == 0) {
      throw UserError(file_path_ + ":1: the file is empty; expected the header '" +
                      std::string(kCsvHeader) + "' followed by rating rows");
    }
    if (table_.user.empty()) {
      throw UserError(file_path_ + ": holds no ratings; expected rows like " +
                      (format_ == RatingsFormat::kCsv ? std::string("'1,31,2.5,1260759144'")
                                                      : std::string("'1::1193::5::978300760'")) +
                      " (download the dataset again)");
    }
    table_.num_users = users_.size();
    table_.num_items = items_.size();
    return std::move(table_);
  }

 private:
  void check_header(std::string_view line) {
    constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";
    if (line.substr(0, kUtf8ByteOrderMark.size()) == kUtf8ByteOrderMark) {
      line.remove_prefix(kUtf8ByteOrderMark.size());
    }
    if (line != kCsvHeader) {
      throw UserError(file_path_ + ":1: expected header '" + std::string(kCsvHeader) + "', found " +
                      quoted_excerpt(line) + "; use the ml-20m/ml-25m ratings.csv");
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw UserError(file_path_ + ":" + std::to_string(line_number_) + ": " + what +
                    "; fix or remove the row");
  }

  int64_t parse_integer_field(std::string_view field, int field_index) const {
    int64_t value = 0;
    const char* end = field.data() + field.size();
    const auto [parsed_end, error] = std::from_chars(field.data(), end, value);
    if (field.empty() || error != std::errc() || parsed_end != end) {
      fail(std::string(kFieldNames[field_index]) + " " + quoted_excerpt(field) +
           " is not an integer");
    }
    return value;
  }

  void check_rating_field(std::string_view field) const {
    double value = 0;
    const char* end = field.data() + field.size();
    const auto [parsed_end, error] = std::from_chars(field.data(), end, value);
    if (field.empty() || error != std::errc() || parsed_end != end || !std::isfinite(value)) {
      fail("rating " + quoted_excerpt(field) + " is not a number");
    }
  }

  // One pass over a row, for the common case; false sends the row to parse_rating_row, which says
  // what is wrong with it.
  bool parse_well_formed_row(std::string_view line) {
    const char* cursor = line.data();
    const char* const end = line.data() + line.size();
    auto skip_separator = [&] {
      if (static_cast<size_t>(end - cursor) < separator_.size() ||
          std::memcmp(cursor, separator_.data(), separator_.size()) != 0) {
        return false;
      }
      cursor += separator_.size();
      return true;
    };
    auto read_integer = [&](int64_t& value) {
      const auto [parsed_end, error] = std::from_chars(cursor, end, value);
      if (error != std::errc() || parsed_end == cursor) return false;
      cursor = parsed_end;
      return true;
    };
    int64_t raw_user = 0;
    int64_t raw_item = 0;
    double rating = 0;
    int64_t timestamp = 0;
    if (!read_integer(raw_user) || !skip_separator() || !read_integer(raw_item) ||
        !skip_separator()) {
      return false;
    }
    const auto [rating_end, rating_error] = std::from_chars(cursor, end, rating);
    if (rating_error != std::errc() || rating_end == cursor || !std::isfinite(rating)) return false;
    cursor = rating_end;
    if (!skip_separator() || !read_integer(timestamp) || cursor != end) return false;
    table_.user.push_back(users_.dense_id(raw_user));
    table_.item.push_back(items_.dense_id(raw_item));
    table_.timestamp.push_back(timestamp);
    return true;
  }

  void parse_rating_row(std::string_view line) {
    std::string_view fields[4];
    int num_fields = 0;
    std::string_view rest = line;
    for (;;) {
      const size_t separator_at = rest.find(separator_);
      const std::string_view field = rest.substr(0, separator_at);
      if (num_fields == 4) {
        num_fields = 5;
        break;
      }
      fields[num_fields++] = field;
      if (separator_at == std::string_view::npos) break;
      rest.remove_prefix(separator_at + separator_.size());
    }
    if (num_fields != 4) {
      fail("expected 4 fields userId" + std::string(separator_) + "movieId" +
           std::string(separator_) + "rating" + std::string(separator_) + "timestamp, found " +
           (num_fields > 4 ? std::string("more than 4") : std::to_string(num_fields)) + " in " +
           quoted_excerpt(line));
    }
    const int64_t raw_user = parse_integer_field(fields[0], 0);
    const int64_t raw_item = parse_integer_field(fields[1], 1);
    check_rating_field(fields[2]);
    const int64_t timestamp = parse_integer_field(fields[3], 3);
    table_.user.push_back(users_.dense_id(raw_user));
    table_.item.push_back(items_.dense_id(raw_item));
    table_.timestamp.push_back(timestamp);
  }

  std::string file_path_;
  RatingsFormat format_;
  std::string_view separator_;
  int64_t line_number_ = 0;
  DenseIdMap users_;
  DenseIdMap items_;
  RatingsTable table_;
};

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

RatingsTable parse_ratings_file(const std::string& file_path, RatingsFormat format) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(file_path.c_str(), "rb"));
  if (!file) {
    throw UserError(file_path + ": cannot be opened (" + std::strerror(errno) +
                    "); check that the file exists and is readable");
  }
  RatingsParser parser(file_path, format);
  std::error_code size_error;
  const uintmax_t file_bytes = fs::file_size(file_path, size_error);
  if (!size_error) parser.reserve_for_file_bytes(file_bytes);

  constexpr size_t kChunkBytes = size_t{1} << 22;
  std::vector<char> buffer(kChunkBytes);
  size_t carried_bytes = 0;  // an unfinished line from the previous chunk, at the buffer's start
  for (;;) {
    if (carried_bytes == buffer.size()) buffer.resize(buffer.size() * 2);
    const size_t read_bytes =
        std::fread(buffer.data() + carried_bytes, 1, buffer.size() - carried_bytes, file.get());
    if (read_bytes == 0) {
      if (std::ferror(file.get())) {
        throw UserError(file_path + ": read failed (" + std::strerror(errno) +
                        "); check the disk and the file");
      }
      break;
    }
    const char* data = buffer.data();
    const size_t available = carried_bytes + read_bytes;
    size_t line_begin = 0;
    for (;;) {
      const void* newline = std::memchr(data + line_begin, '\n', available - line_begin);
      if (newline == nullptr) break;
      const size_t line_end = static_cast<const char*>(newline) - data;
      parser.parse_line(std::string_view(data + line_begin, line_end - line_begin));
      line_begin = line_end + 1;
    }
    carried_bytes = available - line_begin;
    std::memmove(buffer.data(), data + line_begin, carried_bytes);
  }
  if (carried_bytes > 0) parser.parse_line(std::string_view(buffer.data(), carried_bytes));
  return parser.finish();
}

}  // namespace

RatingsTable read_ratings(const std::string& path) {
  std::error_code status_error;
  const fs::file_status status = fs::status(path, status_error);
  if (fs::is_directory(status)) {
    const fs::path folder(path);
    const fs::path csv_path = folder / "ratings.csv";
    const fs::path dat_path = folder / "ratings.dat";
    if (fs::exists(csv_path)) return parse_ratings_file(csv_path.string(), RatingsFormat::kCsv);
    if (fs::exists(dat_path)) return parse_ratings_file(dat_path.string(), RatingsFormat::kDat);
    throw UserError(path +
                    ": holds neither ratings.csv (ml-20m) nor ratings.dat (ml-1m); point the "
                    "dataset path at the unzipped MovieLens folder");
  }
  if (!fs::exists(status)) {
    throw UserError(path +
                    ": no such file or folder; give a MovieLens ratings.csv (ml-20m), ratings.dat "
                    "(ml-1m) or the folder holding one");
  }
  const bool is_dat = fs::path(path).extension() == ".dat";
  return parse_ratings_file(path, is_dat ? RatingsFormat::kDat : RatingsFormat::kCsv);
}

bool LeaveOneOutSplit::rated_in_train(int32_t user, int32_t item) const {
  MLH_ASSERT(user >= 0 && user < num_users);
  const auto begin = user_items_sorted.begin() + user_offset[user];
  const auto end = user_items_sorted.begin() + user_offset[user + 1];
  return std::binary_search(begin, end, item);
}

LeaveOneOutSplit leave_one_out(const RatingsTable& ratings, int min_ratings) {
  const auto num_rows = static_cast<int64_t>(ratings.user.size());
  MLH_ASSERT(ratings.item.size() == ratings.user.size());
  MLH_ASSERT(ratings.timestamp.size() == ratings.user.size());

  std::vector<int64_t> ratings_per_user(ratings.num_users, 0);
  for (const int32_t user : ratings.user) ++ratings_per_user[user];

  LeaveOneOutSplit split;
  std::vector<int32_t> kept_user_id(ratings.num_users, -1);
  for (int32_t user = 0; user < ratings.num_users; ++user) {
    if (ratings_per_user[user] >= min_ratings) kept_user_id[user] = split.num_users++;
  }
  if (split.num_users == 0) {
    throw UserError("no user has at least " + std::to_string(min_ratings) + " ratings in " +
                    ratings.source_path + "; lower min_ratings or use a larger dataset");
  }

  std::vector<int32_t> kept_item_id(ratings.num_items, -1);
  std::vector<int64_t> test_row(split.num_users, -1);
  for (int64_t row = 0; row < num_rows; ++row) {
    const int32_t user = kept_user_id[ratings.user[row]];
    if (user < 0) continue;
    int32_t& item = kept_item_id[ratings.item[row]];
    if (item < 0) item = split.num_items++;
    int64_t& latest = test_row[user];
    if (latest < 0 || ratings.timestamp[row] >= ratings.timestamp[latest]) latest = row;
  }

  split.user_offset.assign(split.num_users + 1, 0);
  for (int32_t user = 0; user < ratings.num_users; ++user) {
    if (kept_user_id[user] >= 0) {
      split.user_offset[kept_user_id[user] + 1] = ratings_per_user[user] - 1;
    }
  }
  for (int32_t user = 0; user < split.num_users; ++user) {
    split.user_offset[user + 1] += split.user_offset[user];
  }

  const int64_t num_train = split.user_offset[split.num_users];
  split.train_user.resize(num_train);
  split.train_item.resize(num_train);
  split.test_item.resize(split.num_users);
  std::vector<int64_t> next_train_slot(split.user_offset.begin(), split.user_offset.end() - 1);
  for (int64_t row = 0; row < num_rows; ++row) {
    const int32_t user = kept_user_id[ratings.user[row]];
    if (user < 0) continue;
    const int32_t item = kept_item_id[ratings.item[row]];
    if (row == test_row[user]) {
      split.test_item[user] = item;
      continue;
    }
    const int64_t slot = next_train_slot[user]++;
    split.train_user[slot] = user;
    split.train_item[slot] = item;
  }

  split.user_items_sorted = split.train_item;
  for (int32_t user = 0; user < split.num_users; ++user) {
    std::sort(split.user_items_sorted.begin() + split.user_offset[user],
              split.user_items_sorted.begin() + split.user_offset[user + 1]);
  }
  return split;
}

}  // namespace mlh::movielens
