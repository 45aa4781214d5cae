#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compliance/user_error.h"
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

TEST(Settings, MissingFileIsAUserError) {
  EXPECT_THAT(user_error_of([] { ConfigMap::from_file("/nonexistent/config.yaml"); }),
              HasSubstr("/nonexistent/config.yaml"));
}

}  // namespace
}  // namespace mlh
