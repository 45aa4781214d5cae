#include "datasets/movielens/synthetic.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <system_error>
#include <vector>

#include "base/user_error.h"

namespace mlh::movielens {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kFirstTimestampSeconds = 946684800;  // 2000-01-01
constexpr int64_t kTimestampSpreadSeconds = 300000000;
constexpr int64_t kMaxGapSeconds = 200000;
constexpr int32_t kMovieIdStride =
    7;  // sparse movie ids, as in MovieLens, so the loader must remap
constexpr double kPi = 3.14159265358979323846;

// Every draw comes from mt19937_64 (whose output the standard fixes) through these functions, so
// the file is the same on every platform; std::*_distribution would not be.
class PortableRandom {
 public:
  explicit PortableRandom(uint64_t seed) : generator_(seed) {}

  double uniform_open_closed() {  // (0, 1]
    return static_cast<double>((generator_() >> 11) + 1) * 0x1.0p-53;
  }
  uint64_t below(uint64_t bound) {
    const uint64_t rejection_threshold = (0 - bound) % bound;
    for (;;) {
      const uint64_t draw = generator_();
      if (draw >= rejection_threshold) return draw % bound;
    }
  }
  double normal() {  // Box-Muller, the second value kept for the next call
    if (has_spare_normal_) {
      has_spare_normal_ = false;
      return spare_normal_;
    }
    const double radius = std::sqrt(-2.0 * std::log(uniform_open_closed()));
    const double angle = 2.0 * kPi * uniform_open_closed();
    spare_normal_ = radius * std::sin(angle);
    has_spare_normal_ = true;
    return radius * std::cos(angle);
  }

 private:
  std::mt19937_64 generator_;
  double spare_normal_ = 0.0;
  bool has_spare_normal_ = false;
};

struct SyntheticRating {
  int32_t item = 0;
  double stars = 0.0;
  int64_t timestamp_seconds = 0;
};

void check_spec(const SyntheticRatingsSpec& spec) {
  auto require = [](bool holds, const std::string& what) {
    if (!holds) throw UserError("synthetic ratings: " + what);
  };
  require(spec.num_users > 0,
          "num_users is " + std::to_string(spec.num_users) + "; set it positive");
  require(spec.num_items > 0,
          "num_items is " + std::to_string(spec.num_items) + "; set it positive");
  require(spec.factors > 0, "factors is " + std::to_string(spec.factors) + "; set it positive");
  require(
      spec.min_ratings_per_user > 0,
      "min_ratings_per_user is " + std::to_string(spec.min_ratings_per_user) + "; set it positive");
  require(spec.mean_ratings_per_user >= spec.min_ratings_per_user,
          "mean_ratings_per_user " + std::to_string(spec.mean_ratings_per_user) +
              " is below min_ratings_per_user " + std::to_string(spec.min_ratings_per_user) +
              "; raise the mean");
  require(spec.num_items > spec.min_ratings_per_user,
          "num_items " + std::to_string(spec.num_items) + " must exceed min_ratings_per_user " +
              std::to_string(spec.min_ratings_per_user) + " so every user has unrated items");
  require(spec.temperature > 0,
          "temperature is " + std::to_string(spec.temperature) + "; set it positive");
  require(
      spec.popularity_sigma >= 0,
      "popularity_sigma is " + std::to_string(spec.popularity_sigma) + "; set it to zero or more");
}

// Draws items without replacement with probability proportional to their weights (successive
// sampling), in O(log n) a draw over a Fenwick tree of the weights not drawn yet.
class WeightedDrawWithoutReplacement {
 public:
  void reset(const std::vector<double>& weights) {
    weights_ = weights;
    top_step_ = 1;
    while (top_step_ * 2 <= static_cast<int64_t>(weights_.size())) top_step_ *= 2;
    rebuild();
  }

  int32_t draw(double uniform_open_closed) {
    const auto num_items = static_cast<int32_t>(weights_.size());
    double remaining_total = prefix_total(num_items);
    // Subtracting drawn weights leaves rounding residue; rebuild before it matters.
    if (remaining_total < 1e-6 * total_at_build_) {
      rebuild();
      remaining_total = total_at_build_;
    }
    if (!(remaining_total > 0)) return take(nth_undrawn(uniform_open_closed));
    double target = uniform_open_closed * remaining_total;
    int64_t position = 0;
    for (int64_t step = top_step_; step > 0; step /= 2) {
      if (position + step <= num_items && tree_[position + step] < target) {
        position += step;
        target -= tree_[position];
      }
    }
    auto item = static_cast<int32_t>(std::min<int64_t>(position, num_items - 1));
    if (weights_[item] > 0) return take(item);
    // Landed on a drawn item through rounding: take the nearest undrawn one, then resum exactly.
    int32_t nearest = item;
    while (nearest < num_items && !(weights_[nearest] > 0)) ++nearest;
    if (nearest == num_items) {
      nearest = item;
      while (nearest >= 0 && !(weights_[nearest] > 0)) --nearest;
    }
    MLH_ASSERT(nearest >= 0);
    const int32_t taken = take(nearest);
    rebuild();
    return taken;
  }

 private:
  void rebuild() {
    const auto num_items = static_cast<int64_t>(weights_.size());
    tree_.assign(num_items + 1, 0.0);
    for (int64_t i = 1; i <= num_items; ++i) {
      tree_[i] += std::max(weights_[i - 1], 0.0);
      const int64_t parent = i + (i & -i);
      if (parent <= num_items) tree_[parent] += tree_[i];
    }
    total_at_build_ = prefix_total(num_items);
  }

  double prefix_total(int64_t end) const {
    double total = 0.0;
    for (int64_t i = end; i > 0; i -= i & -i) total += tree_[i];
    return total;
  }

  int32_t take(int32_t item) {
    const double weight = weights_[item];
    weights_[item] = -1.0;  // drawn; below any weight still in play
    const auto num_items = static_cast<int64_t>(weights_.size());
    if (weight > 0) {
      for (int64_t i = item + 1; i <= num_items; i += i & -i) tree_[i] -= weight;
    }
    return item;
  }

  // Every undrawn weight underflowed to zero: fall back to a uniform draw among them.
  int32_t nth_undrawn(double uniform_open_closed) {
    std::vector<int32_t> undrawn;
    for (int32_t item = 0; item < static_cast<int32_t>(weights_.size()); ++item) {
      if (weights_[item] >= 0) undrawn.push_back(item);
    }
    MLH_ASSERT(!undrawn.empty());
    const auto index =
        static_cast<size_t>(uniform_open_closed * static_cast<double>(undrawn.size()));
    return undrawn[std::min(index, undrawn.size() - 1)];
  }

  std::vector<double> weights_;  // -1 once drawn
  std::vector<double> tree_;     // 1-based Fenwick tree over max(weight, 0)
  double total_at_build_ = 0.0;
  int64_t top_step_ = 1;
};

// The latent factor model of synthetic.h, and the users drawn from it one at a time, in file order.
class SyntheticRatingsModel {
 public:
  explicit SyntheticRatingsModel(const SyntheticRatingsSpec& spec)
      : spec_(spec),
        random_(spec.seed ^ 0x5eed5eed5eed5eedULL),
        factor_scale_(1.0 / std::sqrt(static_cast<double>(spec.factors))),
        item_vectors_(static_cast<size_t>(spec.num_items) * spec.factors),
        item_log_popularity_(spec.num_items),
        user_vector_(spec.factors),
        item_weights_(spec.num_items) {
    for (double& log_popularity : item_log_popularity_) {
      log_popularity = spec.popularity_sigma * random_.normal();
    }
    for (double& value : item_vectors_) value = factor_scale_ * random_.normal();
  }

  // The next user's ratings, earliest first.
  const std::vector<SyntheticRating>& next_user() {
    for (double& value : user_vector_) value = factor_scale_ * random_.normal();
    const int32_t num_ratings = draw_num_ratings();

    const double inverse_temperature = 1.0 / spec_.temperature;
    double largest_score = -std::numeric_limits<double>::infinity();
    for (int32_t item = 0; item < spec_.num_items; ++item) {
      item_weights_[item] = affinity(item) * inverse_temperature + item_log_popularity_[item];
      largest_score = std::max(largest_score, item_weights_[item]);
    }
    for (double& weight : item_weights_) weight = std::exp(weight - largest_score);
    draw_without_replacement_.reset(item_weights_);
    chosen_items_.resize(num_ratings);
    for (int32_t& item : chosen_items_) {
      item = draw_without_replacement_.draw(random_.uniform_open_closed());
    }
    // The draw order favours the likeliest items first; timestamps follow a random order instead,
    // so the held-out latest rating is a typical one.
    std::sort(chosen_items_.begin(), chosen_items_.end());
    for (int32_t i = num_ratings - 1; i > 0; --i) {
      std::swap(chosen_items_[i], chosen_items_[random_.below(static_cast<uint64_t>(i) + 1)]);
    }

    ratings_.resize(num_ratings);
    int64_t timestamp_seconds =
        kFirstTimestampSeconds + static_cast<int64_t>(random_.below(kTimestampSpreadSeconds));
    const double affinity_scale = std::sqrt(static_cast<double>(spec_.factors));
    for (int32_t i = 0; i < num_ratings; ++i) {
      SyntheticRating& rating = ratings_[i];
      rating.item = chosen_items_[i];
      const double standardized_affinity = affinity(rating.item) * affinity_scale;
      const double half_stars =
          std::round(2.0 * (3.5 + standardized_affinity + 0.5 * random_.normal()));
      rating.stars = std::clamp(half_stars, 1.0, 10.0) / 2.0;
      timestamp_seconds += 1 + static_cast<int64_t>(random_.below(kMaxGapSeconds));
      rating.timestamp_seconds = timestamp_seconds;
    }
    return ratings_;
  }

  double affinity(int32_t item) const {
    const double* item_vector = item_vectors_.data() + static_cast<size_t>(item) * spec_.factors;
    double dot = 0.0;
    for (int32_t f = 0; f < spec_.factors; ++f) dot += user_vector_[f] * item_vector[f];
    return dot;
  }

 private:
  int32_t draw_num_ratings() {
    const int32_t tail_mean = spec_.mean_ratings_per_user - spec_.min_ratings_per_user;
    int64_t num_ratings = spec_.min_ratings_per_user;
    if (tail_mean > 0) {
      // Geometric on {0, 1, ...} with mean tail_mean.
      const double continue_probability = tail_mean / (tail_mean + 1.0);
      const double u = random_.uniform_open_closed();
      num_ratings += static_cast<int64_t>(std::floor(std::log(u) / std::log(continue_probability)));
    }
    return static_cast<int32_t>(std::min<int64_t>(num_ratings, spec_.num_items - 1));
  }

  SyntheticRatingsSpec spec_;
  PortableRandom random_;
  double factor_scale_;
  std::vector<double> item_vectors_;  // [num_items x factors]
  std::vector<double> item_log_popularity_;
  std::vector<double> user_vector_;
  std::vector<double> item_weights_;  // exp(score - largest score) of the current user
  WeightedDrawWithoutReplacement draw_without_replacement_;
  std::vector<int32_t> chosen_items_;
  std::vector<SyntheticRating> ratings_;
};

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

}  // namespace

SyntheticRatingsSummary write_synthetic_ratings(const std::string& csv_path,
                                                const SyntheticRatingsSpec& spec) {
  check_spec(spec);
  const fs::path final_path(csv_path);
  std::error_code folder_error;
  if (final_path.has_parent_path()) fs::create_directories(final_path.parent_path(), folder_error);
  if (folder_error) {
    throw UserError(csv_path + ": cannot create its folder (" + folder_error.message() +
                    "); choose a writable path");
  }
  // Written beside the target and renamed at the end, so a failed run leaves no partial
  // ratings.csv.
  const std::string partial_path = csv_path + ".partial";
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(partial_path.c_str(), "wb"));
  if (!file) {
    throw UserError(csv_path + ": cannot be written (" + std::strerror(errno) +
                    "); choose a writable path");
  }

  SyntheticRatingsModel model(spec);
  SyntheticRatingsSummary summary;
  summary.num_users = spec.num_users;
  std::vector<bool> item_rated(spec.num_items, false);
  std::string text = "userId,movieId,rating,timestamp\n";
  std::vector<SyntheticRating> rows_by_movie;
  auto flush_text = [&] {
    if (std::fwrite(text.data(), 1, text.size(), file.get()) != text.size()) {
      const std::string reason = std::strerror(errno);
      file.reset();
      std::remove(partial_path.c_str());
      throw UserError(csv_path + ": write failed (" + reason +
                      "); free disk space or choose "
                      "another path");
    }
    text.clear();
  };
  char row_text[96];
  for (int32_t user = 0; user < spec.num_users; ++user) {
    rows_by_movie = model.next_user();
    std::sort(rows_by_movie.begin(), rows_by_movie.end(),
              [](const SyntheticRating& a, const SyntheticRating& b) { return a.item < b.item; });
    for (const SyntheticRating& rating : rows_by_movie) {
      const int row_length = std::snprintf(row_text, sizeof(row_text), "%d,%d,%.1f,%lld\n",
                                           user + 1, 1 + rating.item * kMovieIdStride, rating.stars,
                                           static_cast<long long>(rating.timestamp_seconds));
      text.append(row_text, static_cast<size_t>(row_length));
      if (!item_rated[rating.item]) {
        item_rated[rating.item] = true;
        ++summary.num_items;
      }
    }
    summary.num_ratings += static_cast<int64_t>(rows_by_movie.size());
    if (text.size() > (size_t{1} << 20)) flush_text();
  }
  flush_text();
  if (std::fclose(file.release()) != 0) {
    std::remove(partial_path.c_str());
    throw UserError(csv_path + ": write failed (" + std::strerror(errno) +
                    "); free disk space or "
                    "choose another path");
  }
  std::error_code rename_error;
  fs::rename(partial_path, final_path, rename_error);
  if (rename_error) {
    std::remove(partial_path.c_str());
    throw UserError(csv_path + ": cannot be written (" + rename_error.message() +
                    "); choose a writable path");
  }
  return summary;
}

}  // namespace mlh::movielens
