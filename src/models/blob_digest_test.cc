#include "models/blob_digest.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/testing/temp_dir.h"

namespace zest::models {
namespace {

namespace fs = std::filesystem;

// sha256("abc"), FIPS 180-2's example.
const std::string kAbc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

TEST(BlobDigests, HashesOnceAndAgainAfterAChange) {
  zest::testing::TempDir tmp{"blob-digest"};
  const fs::path file = tmp.path() / "blob";
  std::ofstream(file) << "abc";
  ASSERT_EQ(*FileSha256(file), kAbc);

  BlobDigests digests;
  EXPECT_FALSE(digests.Known(file, kAbc).has_value());  // nothing hashed yet
  EXPECT_TRUE(digests.Verify(file, kAbc).ok());
  ASSERT_TRUE(digests.Known(file, kAbc).has_value());
  EXPECT_TRUE(digests.Known(file, kAbc)->ok());
  // Another expected digest is another question.
  EXPECT_FALSE(digests.Known(file, std::string(64, '0')).has_value());

  // Same size, other bytes, a later mtime: hashed again, refused.
  std::ofstream(file) << "abd";
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(2));
  EXPECT_FALSE(digests.Known(file, kAbc).has_value());
  Status changed = digests.Verify(file, kAbc);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.message().find("does not match its digest"), std::string::npos)
      << changed.message();
  EXPECT_NE(changed.message().find("sha256:" + kAbc), std::string::npos);
  ASSERT_TRUE(digests.Known(file, kAbc).has_value());
  EXPECT_FALSE(digests.Known(file, kAbc)->ok());
}

TEST(BlobDigests, AMissingFileIsAnError) {
  BlobDigests digests;
  EXPECT_FALSE(digests.Verify("/nonexistent/blob", kAbc).ok());
  EXPECT_FALSE(FileSha256("/nonexistent/blob").ok());
}

}  // namespace
}  // namespace zest::models
