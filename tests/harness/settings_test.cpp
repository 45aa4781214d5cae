#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/user_error.h"
#include "harness/setting_groups.h"
#include "harness/settings.h"
#include "tests/user_error_of.h"

namespace mlh {
namespace {

using ::testing::HasSubstr;

struct Example {
  int64_t batch = 32;
  double lr = 0.1;
  bool flag = false;
  std::string name = "x";
  std::vector<int64_t> layers = {4, 2};
  void bind(ConfigMap& c) {
    c.bind("batch", batch, "batch size");
    c.bind("lr", lr, "learning rate");
    c.bind("flag", flag, "a flag");
    c.bind("name", name, "a name");
    c.bind("layers", layers, "layer sizes");
  }
};

TEST(Settings, FileValuesReplaceDefaultsAndOverridesReplaceFile) {
  ConfigMap config = ConfigMap::from_yaml_text("batch: 64\nlr: 0.5\nlayers: [8, 4, 2]\n", "test.yaml");
  config.apply_override("lr=1e-3");
  config.apply_override("flag=true");
  Example e;
  e.bind(config);
  config.check_all_bound();
  EXPECT_EQ(e.batch, 64);
  EXPECT_DOUBLE_EQ(e.lr, 1e-3);
  EXPECT_TRUE(e.flag);
  EXPECT_EQ(e.name, "x");
  EXPECT_EQ(e.layers, (std::vector<int64_t>{8, 4, 2}));
  EXPECT_EQ(config.effective()["batch"], 64);
  EXPECT_EQ(config.effective()["name"], "x");
}

TEST(Settings, UnknownKeyNamesFileLineAndNearestKey) {
  ConfigMap config = ConfigMap::from_yaml_text("batch: 64\nbtach: 3\n", "cfg.yaml");
  Example e;
  e.bind(config);
  const std::string message = user_error_of([&] { config.check_all_bound(); });
  EXPECT_THAT(message, HasSubstr("cfg.yaml:2"));
  EXPECT_THAT(message, HasSubstr("unknown key 'btach'"));
  EXPECT_THAT(message, HasSubstr("did you mean 'batch'"));
}

TEST(Settings, UnknownOverrideKeyIsAnError) {
  ConfigMap config;
  config.apply_override("nosuchkey=1");
  Example e;
  e.bind(config);
  EXPECT_THAT(user_error_of([&] { config.check_all_bound(); }), HasSubstr("--set nosuchkey=1"));
}

TEST(Settings, MistypedValueNamesKeyAndExpectedType) {
  ConfigMap config = ConfigMap::from_yaml_text("batch: lots\n", "cfg.yaml");
  Example e;
  const std::string message = user_error_of([&] { e.bind(config); });
  EXPECT_THAT(message, HasSubstr("cfg.yaml:1"));
  EXPECT_THAT(message, HasSubstr("'batch' expects an integer, got 'lots'"));
  ConfigMap fractional = ConfigMap::from_yaml_text("batch: 2.5\n", "cfg.yaml");
  EXPECT_THAT(user_error_of([&] { Example().bind(fractional); }), HasSubstr("expects an integer"));
  ConfigMap not_a_list = ConfigMap::from_yaml_text("layers: 3\n", "cfg.yaml");
  EXPECT_THAT(user_error_of([&] { Example().bind(not_a_list); }), HasSubstr("expects a list of integers"));
}

TEST(Settings, OverrideWithoutEqualsIsAnError) {
  ConfigMap config;
  EXPECT_THAT(user_error_of([&] { config.apply_override("batch"); }), HasSubstr("expected key=value"));
  EXPECT_THAT(user_error_of([&] { config.apply_override("=3"); }), HasSubstr("key before '=' is empty"));
}

TEST(Settings, MalformedYamlNamesTheLine) {
  const std::string message =
      user_error_of([] { ConfigMap::from_yaml_text("batch: 1\nlr: [1, 2\nname: x\n", "bad.yaml"); });
  EXPECT_THAT(message, HasSubstr("bad.yaml:"));
  EXPECT_THAT(message, HasSubstr("malformed YAML"));
  EXPECT_THAT(user_error_of([] { ConfigMap::from_yaml_text("- a\n- b\n", "list.yaml"); }),
              HasSubstr("mapping"));
  EXPECT_THAT(user_error_of([] { ConfigMap::from_yaml_text("a:\n  b: 1\n", "nested.yaml"); }),
              HasSubstr("flat"));
}

// Found by fuzz/fuzz_config: a key that is a list or a mapping (YAML's "? " keys) ended the program
// with yaml-cpp's conversion error.
TEST(Settings, KeyThatIsNotANameIsAUserError) {
  EXPECT_THAT(user_error_of([] { ConfigMap::from_yaml_text("lr: 1\n? [a, b]\n: 2\n", "keys.yaml"); }),
              AllOf(HasSubstr("keys.yaml:2: a key is a list"), HasSubstr("flat 'key: value'")));
  EXPECT_THAT(user_error_of([] { ConfigMap::from_yaml_text("? {a: 1}\n: 2\n", "keys.yaml"); }),
              HasSubstr("keys.yaml:1: a key is a mapping"));
}

TEST(Settings, MissingFileIsAUserError) {
  EXPECT_THAT(user_error_of([] { ConfigMap::from_file("/nonexistent/config.yaml"); }),
              HasSubstr("/nonexistent/config.yaml"));
}

enum class Optimizer { kSgd, kLars };

struct Bounded {
  int64_t beam_size = 4;
  double smoothing = 0.1;
  double bleu = 25.0;
  double epsilon = 1e-9;
  std::vector<int64_t> epochs = {40, 50};
  std::string division = "closed";
  Optimizer optimizer = Optimizer::kSgd;
  void bind(ConfigMap& c) {
    c.bind("beam_size", beam_size, "beam width", at_least(1));
    c.bind("smoothing", smoothing, "label smoothing", in_range(0.0, 1.0, Ends::kOpenHigh));
    c.bind("bleu", bleu, "target BLEU", in_range(0.0, 100.0, Ends::kOpen));
    c.bind("epsilon", epsilon, "Adam epsilon", above(0.0));
    c.bind("epochs", epochs, "evaluation epochs", at_least(1));
    c.bind("division", division, "submission division", one_of({"closed", "open"}));
    c.bind_choice("optimizer", optimizer, "the optimizer", Choices<Optimizer>{{"sgd", Optimizer::kSgd}, {"lars", Optimizer::kLars}});
  }
};

std::string bind_error(const std::string& yaml) {
  ConfigMap config = ConfigMap::from_yaml_text(yaml, "cfg.yaml");
  return user_error_of([&] { Bounded().bind(config); });
}

TEST(SettingsBounds, DescribeEachKindOfInterval) {
  EXPECT_EQ(at_least(1).describe(), ">= 1");
  EXPECT_EQ(above(0).describe(), "> 0");
  EXPECT_EQ(at_most(8).describe(), "<= 8");
  EXPECT_EQ(in_range(0, 1).describe(), "in [0, 1]");
  EXPECT_EQ(in_range(0, 1, Ends::kOpenHigh).describe(), "in [0, 1)");
  EXPECT_EQ(in_range(0, 1, Ends::kOpenLow).describe(), "in (0, 1]");
  EXPECT_EQ(in_range(0, 100, Ends::kOpen).describe(), "in (0, 100)");
  EXPECT_EQ(above(1e-9).describe(), "> 1e-09");
}

TEST(SettingsBounds, OpenAndClosedEnds) {
  EXPECT_TRUE(at_least(1).contains(1));
  EXPECT_FALSE(at_least(1).contains(0.999));
  EXPECT_FALSE(above(0).contains(0));
  EXPECT_TRUE(above(0).contains(1e-12));
  EXPECT_TRUE(at_most(8).contains(8));
  EXPECT_TRUE(in_range(0, 1, Ends::kOpenHigh).contains(0));
  EXPECT_FALSE(in_range(0, 1, Ends::kOpenHigh).contains(1));
  EXPECT_FALSE(in_range(0, 1, Ends::kOpenLow).contains(0));
  EXPECT_TRUE(in_range(0, 1, Ends::kOpenLow).contains(1));
  EXPECT_TRUE(in_range(0, 1).contains(0));
  EXPECT_TRUE(in_range(0, 1).contains(1));
}

TEST(SettingsBounds, ValuesWithinBoundsAndChoicesBind) {
  ConfigMap config = ConfigMap::from_yaml_text(
      "beam_size: 1\nsmoothing: 0\nbleu: 99.9\nepochs: [1, 2]\ndivision: open\noptimizer: lars\n", "cfg.yaml");
  Bounded b;
  b.bind(config);
  config.check_all_bound();
  EXPECT_EQ(b.beam_size, 1);
  EXPECT_EQ(b.division, "open");
  EXPECT_EQ(b.optimizer, Optimizer::kLars);
  EXPECT_EQ(config.effective()["optimizer"], "lars");  // the name, as the config spells it
  EXPECT_EQ(config.effective()["division"], "open");
}

TEST(SettingsBounds, DefaultsAreRecordedByName) {
  ConfigMap config;
  Bounded b;
  b.bind(config);
  EXPECT_EQ(b.optimizer, Optimizer::kSgd);
  EXPECT_EQ(config.effective()["optimizer"], "sgd");
}

TEST(SettingsBounds, ValueOutsideBoundsNamesKeyOriginAndBounds) {
  const std::string message = bind_error("beam_size: 4\nsmoothing: 1\n");
  EXPECT_THAT(message, HasSubstr("cfg.yaml:2"));
  EXPECT_THAT(message, HasSubstr("key 'smoothing' is 1; it must be in [0, 1)"));
  EXPECT_THAT(bind_error("beam_size: 0\n"), HasSubstr("key 'beam_size' is 0; it must be >= 1"));
  EXPECT_THAT(bind_error("bleu: 100\n"), HasSubstr("it must be in (0, 100)"));
  EXPECT_THAT(bind_error("epsilon: 0\n"), HasSubstr("it must be > 0"));
  EXPECT_THAT(bind_error("epochs: [3, 0]\n"), HasSubstr("key 'epochs' holds 0; it must be >= 1"));
}

TEST(SettingsBounds, OverrideOutsideBoundsNamesTheSet) {
  ConfigMap config;
  config.apply_override("beam_size=-2");
  EXPECT_THAT(user_error_of([&] { Bounded().bind(config); }),
              HasSubstr("--set beam_size=-2: key 'beam_size' is -2; it must be >= 1"));
}

TEST(SettingsBounds, ValueOutsideChoicesNamesKeyOriginAndChoices) {
  const std::string message = bind_error("optimizer: adam\n");
  EXPECT_THAT(message, HasSubstr("cfg.yaml:1"));
  EXPECT_THAT(message, HasSubstr("key 'optimizer' is 'adam'; expected sgd or lars"));
  EXPECT_THAT(bind_error("division: shut\n"), HasSubstr("key 'division' is 'shut'; expected closed or open"));
  EXPECT_THAT(bind_error("optimizer: [sgd]\n"), HasSubstr("key 'optimizer' expects a string"));
}

TEST(SettingsBounds, HelpShowsBoundsAndChoices) {
  ConfigMap config;
  Bounded().bind(config);
  std::map<std::string, std::string> help(config.help().begin(), config.help().end());
  EXPECT_EQ(help["beam_size"], "beam width; >= 1");
  EXPECT_EQ(help["smoothing"], "label smoothing; in [0, 1)");
  EXPECT_EQ(help["division"], "submission division; closed or open");
  EXPECT_EQ(help["optimizer"], "the optimizer; sgd or lars");
}

TEST(SettingsBounds, ChoiceNameOfAValue) {
  const Choices<Optimizer> choices{{"sgd", Optimizer::kSgd}, {"lars", Optimizer::kLars}};
  EXPECT_EQ(choice_name(choices, Optimizer::kLars), "lars");
}

struct GroupedSettings : ComputeSettings, AdamSettings {
  GroupedSettings() : AdamSettings(0.9, 0.997, 1e-9) {}
  void bind(ConfigMap& c) {
    ComputeSettings::bind(c);
    AdamSettings::bind(c);
  }
};

TEST(SettingGroups, BindTheirKeysUnderTheWorkloadsFieldNames) {
  ConfigMap config = ConfigMap::from_yaml_text("precision: amp\nadam_beta2: 0.98\n", "cfg.yaml");
  GroupedSettings s;
  s.bind(config);
  config.check_all_bound();
  EXPECT_EQ(s.precision, Precision::kAmp);
  EXPECT_DOUBLE_EQ(s.adam_beta1, 0.9);
  EXPECT_DOUBLE_EQ(s.adam_beta2, 0.98);
  EXPECT_DOUBLE_EQ(s.adam_options(2.0).epsilon, 1e-9);
  EXPECT_EQ(config.effective()["precision"], "amp");
}

TEST(SettingGroups, RejectValuesOutsideTheirChoicesAndBounds) {
  ConfigMap precision = ConfigMap::from_yaml_text("precision: fp16\n", "cfg.yaml");
  EXPECT_THAT(user_error_of([&] { GroupedSettings().bind(precision); }),
              HasSubstr("cfg.yaml:1: key 'precision' is 'fp16'; expected fp32, fp32-strict, amp or bf16"));
  ConfigMap beta = ConfigMap::from_yaml_text("adam_beta1: 1.0\n", "cfg.yaml");
  EXPECT_THAT(user_error_of([&] { GroupedSettings().bind(beta); }),
              HasSubstr("key 'adam_beta1' is 1; it must be in [0, 1)"));
}

}  // namespace
}  // namespace mlh
