// common/cache.h: private cache folders, records and artifacts checked against their digests.
#include "common/cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/files.h"

namespace fs = std::filesystem;
using namespace kaudit;

namespace {

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "kaudit-cache-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::permissions(dir_, fs::perms::owner_all, ec);
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

void write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes; }

TEST_F(CacheTest, NewFoldersArePrivate) {
  const fs::path root = dir_ / "made" / "kaudit";
  EXPECT_EQ(cache::prepare_dir(root, "cpu-kernels"), root / "cpu-kernels");
  struct stat st{};
  ASSERT_EQ(stat(root.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat((root / "cpu-kernels").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST_F(CacheTest, AFolderOthersMayWriteIsRefused) {
  chmod(dir_.c_str(), 0777);
  EXPECT_NE(cache::dir_problem(dir_), "");
  EXPECT_THROW(cache::prepare_dir(dir_, "cpu-kernels"), cache::CacheDirError);
  chmod(dir_.c_str(), 0770);
  EXPECT_THROW(cache::prepare_dir(dir_), cache::CacheDirError);
  chmod(dir_.c_str(), 0755);
  EXPECT_NO_THROW(cache::prepare_dir(dir_));
  // /tmp, where kaudit used to fall back with HOME unset, is everyone's.
  EXPECT_NE(cache::dir_problem("/tmp"), "");
  try {
    cache::prepare_dir(fs::path("/tmp"));
    ADD_FAILURE() << "/tmp accepted";
  } catch (const cache::CacheDirError& e) {
    EXPECT_NE(std::string(e.what()).find("/tmp"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--cache"), std::string::npos) << e.what();
  }
}

TEST_F(CacheTest, AFolderOfAnotherUserIsRefused) {
  if (geteuid() == 0) {
    ASSERT_EQ(chown(dir_.c_str(), 65534, 65534), 0);  // nobody
    EXPECT_NE(cache::dir_problem(dir_).find("another user"), std::string::npos) << cache::dir_problem(dir_);
    EXPECT_THROW(cache::prepare_dir(dir_), cache::CacheDirError);
    ASSERT_EQ(chown(dir_.c_str(), 0, 0), 0);
    EXPECT_NO_THROW(cache::prepare_dir(dir_));
  } else {
    EXPECT_NE(cache::dir_problem("/").find("another user"), std::string::npos) << cache::dir_problem("/");
    EXPECT_THROW(cache::prepare_dir(fs::path("/")), cache::CacheDirError);
  }
}

TEST_F(CacheTest, NoConfiguredFolderIsAnErrorNotASharedFallback) {
  try {
    cache::prepare_dir(fs::path());
    ADD_FAILURE() << "an empty cache folder was accepted";
  } catch (const cache::CacheDirError& e) {
    EXPECT_NE(std::string(e.what()).find("KAUDIT_CACHE"), std::string::npos) << e.what();
  }
}

TEST_F(CacheTest, RecordsRoundTripAndADamagedOneIsReportedOnceAndDropped) {
  const fs::path rec = dir_ / "r.json";
  ASSERT_TRUE(cache::write_record(rec, R"({"legal":[true]})"));
  EXPECT_EQ(cache::read_record(rec).value_or(""), R"({"legal":[true]})");
  std::string text = *read_file(rec);
  text.replace(text.find("true"), 4, "fals");
  write(rec, text);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache::read_record(rec));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find(rec.string()), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(rec));  // removed: the caller recomputes and writes it again
  // Once per file: a second damage of the same file is not reported again.
  ASSERT_TRUE(cache::write_record(rec, "{}"));
  write(rec, *read_file(rec) + " ");
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache::read_record(rec));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  // A record without a digest line (an older kaudit's) is a silent miss.
  write(rec, "{}");
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache::read_record(rec));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  // No temporary file is left behind.
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
}

TEST_F(CacheTest, SealedArtifactsAreVerifiedByContent) {
  const fs::path tmp = dir_ / "lib.so.part", lib = dir_ / "lib.so";
  write(tmp, std::string(100000, 'x'));
  std::string error;
  ASSERT_TRUE(cache::seal(tmp, lib, &error)) << error;
  EXPECT_FALSE(fs::exists(tmp));
  std::string digest;
  EXPECT_TRUE(cache::verify(lib, &digest));
  EXPECT_EQ(digest, cache::file_sha256(lib));
  fs::resize_file(lib, 50000);  // truncated
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache::verify(lib));
  EXPECT_NE(testing::internal::GetCapturedStderr().find(lib.string()), std::string::npos);
  EXPECT_FALSE(fs::exists(lib));
  EXPECT_FALSE(fs::exists(cache::digest_path(lib)));
  // Missing, or without a digest: not verified, silently.
  EXPECT_FALSE(cache::verify(lib));
  write(lib, "bytes");
  testing::internal::CaptureStderr();
  EXPECT_FALSE(cache::verify(lib));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace

namespace {
// common/files.h, remove_tree: a folder with everything beneath it goes; a link inside is removed,
// not followed (what it points to stays); a missing path is a failure, not a crash.
TEST_F(CacheTest, RemoveTreeRemovesEverythingBeneathAndFollowsNoLink) {
  const fs::path tree = dir_ / "build.tmp", kept = dir_ / "kept";
  fs::create_directories(tree / "a" / "b");
  fs::create_directories(kept);
  write(tree / "a" / "b" / "lib.so", "x");
  write(tree / "top.cu", "y");
  write(kept / "file", "z");
  fs::create_directory_symlink(kept, tree / "a" / "link");
  EXPECT_TRUE(remove_tree(tree));
  EXPECT_FALSE(fs::exists(tree));
  EXPECT_TRUE(fs::exists(kept / "file"));
  EXPECT_FALSE(remove_tree(tree));
}
}  // namespace
