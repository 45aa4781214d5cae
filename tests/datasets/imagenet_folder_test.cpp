#include "datasets/imagenet/folder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/user_error.h"
#include "tests/test_files.h"
#include "tests/user_error_of.h"

namespace mlh::imagenet {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

fs::path test_folder() { return testing_files::fresh_test_folder("mlh_imagenet_folder_test"); }

std::string write_text(const fs::path& path, const std::string& contents) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << contents;
  return path.string();
}

TEST(ReadClassIndex, ReadsBareIdsAndSynsetMappingLinesSkippingCommentsAndBlanks) {
  const std::string path = write_text(test_folder() / "LOC_synset_mapping.txt",
                                      "# classes in label order\n"
                                      "\n"
                                      "n01443537 goldfish, Carassius auratus\n"
                                      "n01440764\n"
                                      "   \t\n"
                                      "  n01484850 great white shark\r\n"
                                      "n01491361\r\n");
  EXPECT_THAT(read_class_index(path), ElementsAre("n01443537", "n01440764", "n01484850", "n01491361"));
}

TEST(ReadClassIndex, DuplicateIdNamesFileAndBothLines) {
  const std::string path = write_text(test_folder() / "classes.txt",
                                      "n01440764 tench\n# comment\nn01443537\nn01440764 again\n");
  EXPECT_THAT(user_error_of([&] { read_class_index(path); }),
              AllOf(HasSubstr(path + ":4:"), HasSubstr("n01440764"), HasSubstr("line 1")));
}

TEST(ReadClassIndex, MissingFileIsNamed) {
  const std::string path = (test_folder() / "absent.txt").string();
  EXPECT_THAT(user_error_of([&] { read_class_index(path); }),
              AllOf(HasSubstr(path), HasSubstr("no such file")));
}

TEST(ReadClassIndex, FolderInsteadOfFileIsNamed) {
  const std::string path = test_folder().string();
  EXPECT_THAT(user_error_of([&] { read_class_index(path); }),
              AllOf(HasSubstr(path), HasSubstr("is a folder")));
}

TEST(ReadClassIndex, NoClassesIsAnError) {
  const std::string path = write_text(test_folder() / "classes.txt", "# nothing\n\n   \n");
  EXPECT_THAT(user_error_of([&] { read_class_index(path); }),
              AllOf(HasSubstr(path), HasSubstr("no classes")));
}

TEST(ScanImageFolder, LabelsFollowTheIndexAndFilesAreSortedByName) {
  const fs::path split = test_folder() / "train";
  // Created in an order unlike both the index and name order.
  write_text(split / "n02" / "z.png", "x");
  write_text(split / "n02" / "a.jpg", "x");
  write_text(split / "n03" / "only.JPEG", "x");
  write_text(split / "n01" / "b.JPEG", "x");
  write_text(split / "n01" / "README.txt", "not an image");
  write_text(split / "n01" / ".hidden.jpg", "x");
  write_text(split / "n01" / "A.Jpeg", "x");
  write_text(split / "n01" / "c.jpeg", "x");
  fs::create_directories(split / "n01" / "folder.jpg");
  write_text(split / "labels.csv", "files in the split folder itself are ignored");
  fs::create_directories(split / ".cache");

  const ImageFolder folder = scan_image_folder(split.string(), {"n03", "n01", "n02"});
  EXPECT_EQ(folder.split_dir, split.string());
  EXPECT_THAT(folder.class_ids, ElementsAre("n03", "n01", "n02"));
  EXPECT_THAT(folder.files, ElementsAre((split / "n03" / "only.JPEG").string(),
                                        (split / "n01" / "A.Jpeg").string(),
                                        (split / "n01" / "b.JPEG").string(),
                                        (split / "n01" / "c.jpeg").string(),
                                        (split / "n02" / "a.jpg").string(),
                                        (split / "n02" / "z.png").string()));
  EXPECT_THAT(folder.labels, ElementsAre(0, 1, 1, 1, 2, 2));
  EXPECT_EQ(folder.size(), 6);
}

TEST(ScanImageFolder, MissingSplitFolderIsNamed) {
  const std::string split = (test_folder() / "val").string();
  EXPECT_THAT(user_error_of([&] { scan_image_folder(split, {"n01"}); }),
              AllOf(HasSubstr(split), HasSubstr("no such folder")));
}

TEST(ScanImageFolder, SplitThatIsAFileIsNamed) {
  const std::string split = write_text(test_folder() / "train", "a file");
  EXPECT_THAT(user_error_of([&] { scan_image_folder(split, {"n01"}); }),
              AllOf(HasSubstr(split), HasSubstr("not a folder")));
}

TEST(ScanImageFolder, ClassWithoutFolderIsNamed) {
  const fs::path split = test_folder() / "train";
  write_text(split / "n01" / "a.JPEG", "x");
  EXPECT_THAT(user_error_of([&] { scan_image_folder(split.string(), {"n01", "n02"}); }),
              AllOf(HasSubstr((split / "n02").string()), HasSubstr("no such folder"),
                    HasSubstr("class 1")));
}

TEST(ScanImageFolder, LooseImagesGetAHintToSortThem) {
  const fs::path split = test_folder() / "val";
  write_text(split / "ILSVRC2012_val_00000001.JPEG", "x");
  EXPECT_THAT(user_error_of([&] { scan_image_folder(split.string(), {"n01"}); }),
              AllOf(HasSubstr((split / "n01").string()), HasSubstr("one folder per class")));
}

TEST(ScanImageFolder, EmptyClassFolderIsNamed) {
  const fs::path split = test_folder() / "train";
  write_text(split / "n01" / "a.JPEG", "x");
  write_text(split / "n02" / "notes.txt", "no images here");
  EXPECT_THAT(user_error_of([&] { scan_image_folder(split.string(), {"n01", "n02"}); }),
              AllOf(HasSubstr((split / "n02").string()), HasSubstr("empty class folder")));
}

TEST(ScanImageFolder, FolderNotInTheIndexIsNamedWithTheIndexSize) {
  const fs::path split = test_folder() / "train";
  write_text(split / "n01" / "a.JPEG", "x");
  write_text(split / "n02" / "a.JPEG", "x");
  write_text(split / "n99" / "a.JPEG", "x");
  EXPECT_THAT(user_error_of([&] { scan_image_folder(split.string(), {"n01", "n02"}); }),
              AllOf(HasSubstr((split / "n99").string()), HasSubstr("not a class"),
                    HasSubstr("2 classes")));
}

}  // namespace
}  // namespace mlh::imagenet
