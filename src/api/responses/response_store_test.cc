#include "api/responses/response_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/testing/temp_dir.h"

namespace zest::api::responses {
namespace {

using nlohmann::json;

class ResponseStoreTest : public ::testing::Test {
 protected:
  zest::testing::TempDir tmp_{"responses"};
  const std::filesystem::path dir_ = tmp_.path();
};

TEST_F(ResponseStoreTest, OnlyTheOwnerSeesItAndLimitsDropTheOldest) {
  ResponseStore store(dir_ / "responses", {.max_count = 2});
  StoredResponse record{"alice", json{{"id", "resp_a"}}, json::array(), json::array(),
                        "resp_first"};
  ASSERT_TRUE(store.Put("resp_a", record).ok());
  EXPECT_TRUE(store.Get("resp_a", "alice").ok());  // at once, before it is on disk
  store.Flush();
  EXPECT_EQ(store.Get("resp_a", "alice")->chain, "resp_first") << "read back from its file";
  EXPECT_EQ(store.Get("resp_a", "bob").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store.Delete("resp_a", "bob").code(), ErrorCode::kNotFound);
  EXPECT_EQ(store.Get("../keys", "alice").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(
      std::filesystem::status(dir_ / "responses" / "key-alice" / "resp_a.json").permissions() &
          std::filesystem::perms::all,
      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  record.response = json{{"id", "resp_b"}};
  ASSERT_TRUE(store.Put("resp_b", record).ok());
  store.Flush();
  // A moment apart, so the newest is the newest by its file's time.
  std::filesystem::last_write_time(
      dir_ / "responses" / "key-alice" / "resp_a.json",
      std::filesystem::file_time_type::clock::now() - std::chrono::seconds(10));
  ASSERT_TRUE(store.Put("resp_c", record).ok());
  store.Flush();
  EXPECT_FALSE(store.Get("resp_a", "alice").ok()) << "the oldest went";
  EXPECT_TRUE(store.Get("resp_c", "alice").ok());
  EXPECT_TRUE(store.Delete("resp_c", "alice").ok());
  EXPECT_FALSE(store.Get("resp_c", "alice").ok());
}

TEST_F(ResponseStoreTest, WritesBehindAndADeleteBeforeTheWriteLeavesNoFile) {
  const std::filesystem::path file = dir_ / "responses" / "key-alice" / "resp_x.json";
  {
    ResponseStore store(dir_ / "responses", {});
    StoredResponse record{"alice", json{{"id", "resp_x"}}, json::array(), json::array(), ""};
    for (int i = 0; i < 20; ++i) {
      ASSERT_TRUE(store.Put("resp_" + std::to_string(i), record).ok());
      EXPECT_TRUE(store.Get("resp_" + std::to_string(i), "alice").ok());  // seen at once
    }
    ASSERT_TRUE(store.Put("resp_x", record).ok());
    ASSERT_TRUE(store.Delete("resp_x", "alice").ok());
    EXPECT_FALSE(store.Get("resp_x", "alice").ok());
  }  // the destructor waits for the writes
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "responses" / "key-alice" / "resp_19.json"));
  ResponseStore again(dir_ / "responses", {});
  EXPECT_EQ(again.Get("resp_7", "alice")->response["id"], "resp_x");
}

namespace fs = std::filesystem;

StoredResponse Record(const std::string& owner, std::size_t padding = 0) {
  return {owner, json{{"id", "r"}, {"pad", std::string(padding, 'x')}}, json::array(),
          json::array(), ""};
}

// Ages `owner`'s stored `id` by `seconds`, so that order by time is certain.
void Age(const fs::path& store, const std::string& owner, const std::string& id, int seconds) {
  const fs::path file = store / ("key-" + owner) / (id + ".json");
  fs::last_write_time(file, fs::last_write_time(file) - std::chrono::seconds(seconds));
}

std::size_t FilesOf(const fs::path& store, const std::string& owner) {
  std::size_t n = 0;
  for (const auto& entry : fs::directory_iterator(store / ("key-" + owner)))
    n += entry.is_regular_file();
  return n;
}

// The attack of issue 28: one key stores many responses and pushes out
// another's. Each key keeps its own share, and over the limits in all the
// key holding the most gives up its oldest first.
TEST_F(ResponseStoreTest, NoKeyPushesOutAnothersResponses) {
  const fs::path dir = dir_ / "responses";
  ResponseStore store(dir, {.max_count = 6, .max_count_per_key = 3});
  ASSERT_TRUE(store.Put("resp_alice", Record("alice")).ok());
  store.Flush();
  Age(dir, "alice", "resp_alice", 60);  // the oldest of all
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(store.Put("resp_bob" + std::to_string(i), Record("bob")).ok());
    store.Flush();
    Age(dir, "bob", "resp_bob" + std::to_string(i), 50 - i);
  }
  EXPECT_TRUE(store.Get("resp_alice", "alice").ok());
  EXPECT_EQ(FilesOf(dir, "bob"), 3u);
  EXPECT_TRUE(store.Get("resp_bob9", "bob").ok()) << "the newest stay";
  EXPECT_FALSE(store.Get("resp_bob0", "bob").ok());
}

TEST_F(ResponseStoreTest, OverTheLimitsInAllTheLargestKeyGivesWay) {
  const fs::path dir = dir_ / "responses";
  ResponseStore store(dir, {.max_bytes = 40000, .max_bytes_per_key = 1 << 20});
  ASSERT_TRUE(store.Put("resp_alice", Record("alice", 1000)).ok());
  store.Flush();
  Age(dir, "alice", "resp_alice", 60);
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(store.Put("resp_bob" + std::to_string(i), Record("bob", 8000)).ok());
    store.Flush();
    Age(dir, "bob", "resp_bob" + std::to_string(i), 50 - i);
  }
  EXPECT_TRUE(store.Get("resp_alice", "alice").ok());
  EXPECT_LE(FilesOf(dir, "bob"), 4u);  // 4 x 8 KB and alice's 1 KB fit in 40 KB
  EXPECT_TRUE(store.Get("resp_bob7", "bob").ok());
}

// Responses stored in one flat directory (before keys had their own) move
// into their key's, and stay theirs.
TEST_F(ResponseStoreTest, MovesFlatFilesIntoTheirKeysDirectories) {
  const fs::path dir = dir_ / "responses";
  fs::create_directories(dir);
  std::ofstream(dir / "resp_old.json") << R"({"owner":"alice","response":{"id":"resp_old"}})";
  std::ofstream(dir / "resp_odd.json") << R"({"owner":"../x","response":{}})";
  ResponseStore store(dir, {});
  EXPECT_EQ(store.Get("resp_old", "alice")->response["id"], "resp_old");
  EXPECT_FALSE(store.Get("resp_old", "bob").ok());
  EXPECT_TRUE(fs::exists(dir / "key-alice" / "resp_old.json"));
  EXPECT_FALSE(fs::exists(dir / "resp_odd.json"));
  EXPECT_FALSE(fs::exists(dir_ / "x"));
}

}  // namespace
}  // namespace zest::api::responses
