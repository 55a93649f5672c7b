// Unit tests of the gateway's security pieces: token buckets, CORS
// decisions, the keys file and the Authenticator, route access levels.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/testing/temp_dir.h"
#include "http/api_keys.h"
#include "http/authenticator.h"
#include "http/cors.h"
#include "http/router.h"
#include "http/token_bucket.h"

namespace zest::http {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

using zest::testing::TempDir;

unsigned Mode(const fs::path& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_mode & 0777;
}

TEST(TokenBucketTest, AllowsBurstThenAsksToWait) {
  auto t0 = TokenBucket::Clock::time_point{} + seconds(100);
  TokenBucket bucket(3, t0);
  EXPECT_EQ(bucket.Take(t0), 0);
  EXPECT_EQ(bucket.Take(t0), 0);
  EXPECT_EQ(bucket.Take(t0), 0);
  EXPECT_EQ(bucket.Take(t0), 20);  // 3/min = one token per 20 s
  EXPECT_EQ(bucket.Take(t0 + seconds(15)), 5);
  EXPECT_EQ(bucket.Take(t0 + seconds(20)), 0);
  EXPECT_GT(bucket.Take(t0 + seconds(20)), 0);
}

TEST(CorsPolicyTest, ExactOriginsAndLoopbackOnly) {
  CorsPolicy cors(SplitOrigins(" https://app.example.com/ ,https://b.org"));
  EXPECT_TRUE(cors.Allows("https://app.example.com", "zest:9378"));
  EXPECT_TRUE(cors.Allows("https://b.org", ""));
  EXPECT_TRUE(cors.Allows("http://localhost:5173", ""));
  EXPECT_TRUE(cors.Allows("https://127.0.0.2", ""));
  EXPECT_TRUE(cors.Allows("http://[::1]:80", ""));
  EXPECT_FALSE(cors.Allows("http://app.example.com", ""));  // scheme differs
  EXPECT_FALSE(cors.Allows("https://app.example.com.evil.net", ""));
  EXPECT_FALSE(cors.Allows("http://localhost.evil.net", ""));
  EXPECT_FALSE(cors.Allows("http://127.0.0.1.nip.io", ""));
  EXPECT_FALSE(cors.Allows("null", ""));
  EXPECT_FALSE(cors.Allows("http://user@localhost", ""));
}

TEST(CorsPolicyTest, SameOriginOnlyForIpLiteralHosts) {
  CorsPolicy cors;
  EXPECT_TRUE(cors.Allows("http://192.168.1.5:9378", "192.168.1.5:9378"));
  EXPECT_TRUE(cors.Allows("https://[fd00::1]:9378", "[fd00::1]:9378"));
  // A DNS name may be rebound to zest's address: not trusted as same-origin.
  EXPECT_FALSE(cors.Allows("http://evil.example:9378", "evil.example:9378"));
  EXPECT_FALSE(cors.Allows("http://192.168.1.6:9378", "192.168.1.5:9378"));
}

TEST(ApiKeysTest, AddListRemoveKeepsTheFilePrivateAndHashed) {
  TempDir dir("sec");
  fs::path file = dir.path() / "keys.json";
  auto key = AddApiKey(file, {"ci", "admin", "high", 60});
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_EQ(Mode(file), 0600u);
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text.find(*key), std::string::npos);
  EXPECT_NE(text.find(HashApiKey(*key)), std::string::npos);
  EXPECT_EQ(AddApiKey(file, {"ci", "inference", "normal", 0}).status().code(),
            ErrorCode::kAlreadyExists);
  EXPECT_EQ(AddApiKey(file, {"bad name", "inference", "normal", 0}).status().code(),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(AddApiKey(file, {"x", "root", "normal", 0}).status().code(),
            ErrorCode::kInvalidArgument);
  auto keys = LoadApiKeys(file);
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys->size(), 1u);
  EXPECT_EQ((*keys)[0].scope, Access::kAdmin);
  EXPECT_EQ((*keys)[0].rpm, 60);
  EXPECT_TRUE(RemoveApiKey(file, "ci").ok());
  EXPECT_EQ(RemoveApiKey(file, "ci").code(), ErrorCode::kNotFound);
}

TEST(ApiKeysTest, ReadableByOthersIsRefused) {
  TempDir dir("sec");
  fs::path file = dir.path() / "keys.json";
  ASSERT_TRUE(AddApiKey(file, {"a", "inference", "normal", 0}).ok());
  ::chmod(file.c_str(), 0640);
  auto keys = LoadApiKeys(file);
  ASSERT_FALSE(keys.ok());
  EXPECT_NE(keys.status().message().find("chmod 0600"), std::string::npos);
}

// Issue 52, 12: a name is a principal (stores, sessions, stats, limits):
// one outside the charset, two keys of one name, or a keys.json key named
// as --api-key's is refused, not merged.
TEST(ApiKeysTest, NamesAreValidatedAndUnique) {
  TempDir dir("sec");
  fs::path file = dir.path() / "keys.json";
  const std::string hash(64, 'a');
  auto write = [&](const std::string& keys) {
    std::ofstream(file) << "{\"keys\": [" << keys << "]}";
    ::chmod(file.c_str(), 0600);
  };
  auto key = [&](const std::string& name) {
    return "{\"name\": \"" + name + "\", \"hash\": \"" + hash + "\"}";
  };
  write(key("alice") + "," + key("bob"));
  ASSERT_TRUE(LoadApiKeys(file).ok());
  write(key("alice") + "," + key("alice"));
  auto twice = LoadApiKeys(file);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("two keys are named 'alice'"), std::string::npos);
  for (const std::string& bad : {std::string(""), std::string(65, 'x'), std::string("a b"),
                                 std::string("../x"), std::string("a\\nb")}) {
    write(key(bad));
    EXPECT_FALSE(LoadApiKeys(file).ok()) << bad;
  }
  // --api-key's principal is taken.
  write("");
  EXPECT_EQ(AddApiKey(file, {"api-key", "inference", "normal", 0}).status().code(),
            ErrorCode::kInvalidArgument);
  write(key("api-key"));
  EXPECT_TRUE(Authenticator::Create({"", file}).ok());  // no --api-key: no clash
  auto clash = Authenticator::Create({"zk-single", file});
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.status().message().find("--api-key"), std::string::npos);
}

TEST(AuthenticatorTest, DistinguishesMissingInvalidScopeAndRate) {
  TempDir dir("sec");
  fs::path file = dir.path() / "keys.json";
  std::string user = *AddApiKey(file, {"user", "inference", "low", 2});
  auto auth = Authenticator::Create({"", file});
  ASSERT_TRUE(auth.ok());
  Authenticator& a = **auth;
  EXPECT_TRUE(a.enabled());
  EXPECT_TRUE(a.Check({}, Access::kPublic).allowed());
  EXPECT_EQ(a.Check({}, Access::kInference).status, 401);
  EXPECT_EQ(a.Check({{"Authorization", "Bearer nope"}}, Access::kInference).status, 401);
  AuthDecision ok = a.Check({{"authorization", "bearer " + user}}, Access::kInference);
  ASSERT_TRUE(ok.allowed()) << ok.message;
  EXPECT_EQ(ok.principal, "user");
  EXPECT_EQ(ok.priority, "low");
  EXPECT_EQ(a.Check({{"X-Api-Key", user}}, Access::kAdmin).status, 403);  // takes no token
  EXPECT_TRUE(a.Check({{"x-api-key", user}}, Access::kInference).allowed());
  AuthDecision limited = a.Check({{"x-api-key", user}}, Access::kInference);
  EXPECT_EQ(limited.status, 429);
  EXPECT_GE(limited.retry_after_s, 1);
}

TEST(AuthenticatorTest, PublicRoutesNameAValidKeyAndSlowWrongOnes) {
  TempDir dir("sec");
  fs::path file = dir.path() / "keys.json";
  std::string boss = *AddApiKey(file, {"boss", "admin", "normal", 0});
  auto auth = Authenticator::Create({"", file});
  ASSERT_TRUE(auth.ok());
  Authenticator& a = **auth;
  AuthDecision anyone = a.Check({}, Access::kPublic, "10.0.0.1");
  EXPECT_TRUE(anyone.allowed());
  EXPECT_TRUE(anyone.keys_required);
  EXPECT_EQ(anyone.scope, Access::kPublic);
  AuthDecision named = a.Check({{"Authorization", "Bearer " + boss}}, Access::kPublic, "10.0.0.1");
  EXPECT_TRUE(named.allowed());
  EXPECT_EQ(named.principal, "boss");
  EXPECT_EQ(named.scope, Access::kAdmin);
  // Wrong keys on a public route count like anywhere: past the address's
  // allowance each answer is held back, though still served.
  AuthDecision last;
  for (int i = 0; i < 40; ++i) {
    last = a.Check({{"Authorization", "Bearer guess"}}, Access::kPublic, "10.0.0.2");
    EXPECT_TRUE(last.allowed());
    EXPECT_EQ(last.scope, Access::kPublic);
  }
  EXPECT_GT(last.delay.count(), 0);
  EXPECT_EQ(a.Check({}, Access::kPublic, "10.0.0.3").delay.count(), 0);
}

// Issue 52, LOW 11 and MEDIUM 7: wrong keys count per client, not per
// address (every loopback address is one machine; an IPv6 host has its
// /64), and the clients remembered are bounded, the least recent first out.
TEST(AuthenticatorTest, WrongKeysCountPerClientAndTheirMemoryIsBounded) {
  TempDir dir("sec");
  fs::path file = dir.path() / "keys.json";
  ASSERT_TRUE(AddApiKey(file, {"boss", "admin", "normal", 0}).ok());
  auto auth = Authenticator::Create({"", file});
  ASSERT_TRUE(auth.ok());
  Authenticator& a = **auth;
  const Headers wrong = {{"Authorization", "Bearer guess"}};
  // Spread over loopback addresses, then over one /64: slowed down all the same.
  AuthDecision last;
  for (int i = 0; i < 40; ++i)
    last = a.Check(wrong, Access::kInference, "127.0.0." + std::to_string(i + 1));
  EXPECT_GT(last.delay.count(), 0);
  for (int i = 0; i < 40; ++i)
    last = a.Check(wrong, Access::kInference, "2001:db8::" + std::to_string(i + 1));
  EXPECT_GT(last.delay.count(), 0);
  // 5,000 other clients later, the oldest (loopback) is forgotten: bounded.
  for (int i = 0; i < 5000; ++i) {
    a.Check(wrong, Access::kInference,
            "10.1." + std::to_string(i / 256) + "." + std::to_string(i % 256));
  }
  EXPECT_EQ(a.Check(wrong, Access::kInference, "127.0.0.1").delay.count(), 0);
}

TEST(AuthenticatorTest, NoKeysMeansOpenAndABrokenReloadKeepsTheOldKeys) {
  TempDir dir("sec");
  fs::path file = dir.path() / "keys.json";
  auto auth = Authenticator::Create({"", file});
  ASSERT_TRUE(auth.ok());
  EXPECT_FALSE((*auth)->enabled());
  EXPECT_TRUE((*auth)->Check({}, Access::kAdmin).allowed());
  std::string key = *AddApiKey(file, {"k", "admin", "normal", 0});
  ASSERT_TRUE((*auth)->Reload().ok());
  EXPECT_EQ((*auth)->Check({}, Access::kAdmin).status, 401);
  std::ofstream(file) << "{ not json";
  EXPECT_FALSE((*auth)->Reload().ok());
  EXPECT_TRUE((*auth)->Check({{"x-api-key", key}}, Access::kAdmin).allowed());
}

TEST(RouterAccessTest, MutatingRoutesDefaultToAdmin) {
  Router router;
  Handler none;
  router.Add("GET", "/a", none);
  router.Add("POST", "/a", none);
  router.Add("DELETE", "/m/{name...}", none);
  EXPECT_EQ(router.Find("GET", "/a").access, Access::kInference);
  EXPECT_EQ(router.Find("POST", "/a").access, Access::kAdmin);
  EXPECT_EQ(router.Find("DELETE", "/m/x/y").access, Access::kAdmin);
  EXPECT_TRUE(router.SetAccess("POST", "/a", Access::kInference));
  EXPECT_EQ(router.Find("POST", "/a").access, Access::kInference);
  EXPECT_FALSE(router.SetAccess("PUT", "/a", Access::kPublic));
}

}  // namespace
}  // namespace zest::http
