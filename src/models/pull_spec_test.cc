#include "models/pull_spec.h"

#include <gtest/gtest.h>

#include "models/hub_client.h"
#include "models/transfer_policy.h"

namespace zest::models {
namespace {

struct SpecCase {
  const char* input;
  const char* repo;
  const char* revision;
  const char* quant;
  const char* file;
};

TEST(ParsePullSpec, AcceptsEverySpelling) {
  const SpecCase cases[] = {
      {"org/repo", "org/repo", "main", "", ""},
      {"org/repo:q5_k_m", "org/repo", "main", "Q5_K_M", ""},
      {"unsloth/Qwen3-8B-GGUF:UD-Q4_K_XL", "unsloth/Qwen3-8B-GGUF", "main", "Q4_K_XL", ""},
      {"hf.co/org/repo", "org/repo", "main", "", ""},
      {"hf.co/org/repo:Q8_0", "org/repo", "main", "Q8_0", ""},
      {"hf.co/org/repo/dir/file-Q4_0.gguf", "org/repo", "main", "", "dir/file-Q4_0.gguf"},
      {"huggingface.co/org/repo/file.gguf", "org/repo", "main", "", "file.gguf"},
      {"https://huggingface.co/org/repo/resolve/main/file.gguf", "org/repo", "main", "",
       "file.gguf"},
      {"https://huggingface.co/org/repo/blob/v1.0/a/b.gguf?download=true", "org/repo", "v1.0", "",
       "a/b.gguf"},
      {"  org/repo  ", "org/repo", "main", "", ""},
      {"org/repo@0123abcd", "org/repo", "0123abcd", "", ""},
      {"org/repo:Q8_0@v1.0", "org/repo", "v1.0", "Q8_0", ""},
  };
  for (const SpecCase& c : cases) {
    auto spec = ParsePullSpec(c.input, nullptr);
    ASSERT_TRUE(spec.ok()) << c.input << ": " << spec.status().message();
    EXPECT_EQ(spec->repo, c.repo) << c.input;
    EXPECT_EQ(spec->revision, c.revision) << c.input;
    EXPECT_EQ(spec->quant, c.quant) << c.input;
    EXPECT_EQ(spec->file, c.file) << c.input;
  }
}

TEST(ParsePullSpec, RejectsUnsafeOrMalformed) {
  for (const char* input :
       {"", "org/", "/repo", "org/../x", "../repo/x", "org/repo/../../etc/passwd",
        "org/repo/resolve/main", "https://evil.example/org/repo", "org/re po",
        "org/repo:", "hf.co/org/repo/a//b.gguf", "org/repo/resolve/../f.gguf",
        "org/repo/dir\\f.gguf", "org/repo@", "org/repo:Q8_0@..", "org/repo@a/b"}) {
    auto spec = ParsePullSpec(input, nullptr);
    EXPECT_FALSE(spec.ok()) << input;
  }
}

TEST(ParsePullSpec, UnknownBareNameIsNotFound) {
  auto spec = ParsePullSpec("NoSuchModel", nullptr);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), ErrorCode::kNotFound);
}

TEST(ParsePullSpec, CatalogNames) {
  auto catalog = Catalog::Parse(R"({"models":[{"name":"Tiny-GGUF","repo":"org/tiny","quant":"q8_0",
      "mmproj":"mmproj-F16.gguf","labels":["chat"],"recipe":"llamacpp"}]})");
  ASSERT_TRUE(catalog.ok()) << catalog.status().message();
  auto spec = ParsePullSpec("tiny-gguf", &*catalog);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->repo, "org/tiny");
  EXPECT_EQ(spec->quant, "Q8_0");
  EXPECT_EQ(spec->mmproj, "mmproj-F16.gguf");
  EXPECT_EQ(spec->catalog_name, "Tiny-GGUF");
  auto other = ParsePullSpec("Tiny-GGUF:Q4_K_M", &*catalog);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->quant, "Q4_K_M");
}

const std::string kSha(64, 'a');

HubFile F(std::string path, uint64_t size) { return {std::move(path), size, kSha}; }

std::vector<std::string> Paths(const std::vector<HubFile>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.path);
  return out;
}

struct SelectCase {
  const char* name;
  std::vector<HubFile> files;
  const char* quant;  // requested
  std::vector<std::string> want;
  const char* want_quant;
};

TEST(SelectFiles, QuantizationShardsAndMmproj) {
  const std::vector<SelectCase> cases = {
      {"default Q4_K_M",
       {F("m-Q8_0.gguf", 800), F("m-Q4_K_M.gguf", 480), F("README.md", 1)},
       "",
       {"m-Q4_K_M.gguf"},
       "Q4_K_M"},
      {"case-insensitive labels",
       {F("m-q4_k_m.gguf", 480), F("m-q8_0.gguf", 800)},
       "",
       {"m-q4_k_m.gguf"},
       "Q4_K_M"},
      {"fallback: smallest of at least 4 bits",
       {F("m-Q2_K.gguf", 200), F("m-Q3_K_M.gguf", 300), F("m-Q5_K_M.gguf", 560),
        F("m-Q4_0.gguf", 450), F("m-Q8_0.gguf", 800)},
       "",
       {"m-Q4_0.gguf"},
       "Q4_0"},
      {"fallback: only low-bit quants → largest",
       {F("m-Q2_K.gguf", 200), F("m-IQ3_XS.gguf", 300)},
       "",
       {"m-IQ3_XS.gguf"},
       "IQ3_XS"},
      {"float only", {F("m-BF16.gguf", 1600), F("m-F32.gguf", 3200)}, "", {"m-BF16.gguf"}, "BF16"},
      {"explicit quant",
       {F("m-Q4_K_M.gguf", 480), F("m-IQ4_XS.gguf", 420)},
       "IQ4_XS",
       {"m-IQ4_XS.gguf"},
       "IQ4_XS"},
      {"shards in order, in a folder",
       {F("Q4_K_M/m-Q4_K_M-00002-of-00003.gguf", 10), F("Q4_K_M/m-Q4_K_M-00001-of-00003.gguf", 10),
        F("Q4_K_M/m-Q4_K_M-00003-of-00003.gguf", 5), F("Q8_0/m-Q8_0-00001-of-00002.gguf", 10),
        F("Q8_0/m-Q8_0-00002-of-00002.gguf", 10)},
       "",
       {"Q4_K_M/m-Q4_K_M-00001-of-00003.gguf", "Q4_K_M/m-Q4_K_M-00002-of-00003.gguf",
        "Q4_K_M/m-Q4_K_M-00003-of-00003.gguf"},
       "Q4_K_M"},
      {"label from the folder",
       {F("Q5_K_M/model-00001-of-00001.gguf", 10), F("Q8_0/model.gguf", 9)},
       "Q5_K_M",
       {"Q5_K_M/model-00001-of-00001.gguf"},
       "Q5_K_M"},
      {"mmproj F16 preferred",
       {F("m-Q4_K_M.gguf", 480), F("mmproj-BF16.gguf", 50), F("mmproj-F16.gguf", 50),
        F("mmproj-F32.gguf", 90)},
       "",
       {"m-Q4_K_M.gguf", "mmproj-F16.gguf"},
       "Q4_K_M"},
      {"MXFP4", {F("gpt-oss-20b-MXFP4.gguf", 100)}, "", {"gpt-oss-20b-MXFP4.gguf"}, "MXFP4"},
  };
  for (const SelectCase& c : cases) {
    PullSpec spec;
    spec.repo = "org/m";
    spec.quant = c.quant;
    auto sel = SelectFiles(spec, c.files);
    ASSERT_TRUE(sel.ok()) << c.name << ": " << sel.status().message();
    std::vector<std::string> got = Paths(sel->model_files);
    for (const auto& p : Paths(sel->extra_files)) got.push_back(p);
    EXPECT_EQ(got, c.want) << c.name;
    EXPECT_EQ(sel->quant, c.want_quant) << c.name;
  }
}

TEST(SelectFiles, Errors) {
  PullSpec spec;
  spec.repo = "org/m";
  spec.quant = "Q6_K";
  auto missing = SelectFiles(spec, {F("m-Q4_K_M.gguf", 1), F("m-Q8_0.gguf", 2)});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("Q4_K_M, Q8_0"), std::string::npos);

  spec.quant = "";
  auto partial = SelectFiles(
      spec, {F("m-Q4_K_M-00001-of-00003.gguf", 1), F("m-Q4_K_M-00003-of-00003.gguf", 1)});
  EXPECT_FALSE(partial.ok());
  EXPECT_FALSE(SelectFiles(spec, {F("README.md", 1)}).ok());

  HubFile unhashed{"m-Q4_K_M.gguf", 10, ""};
  EXPECT_FALSE(SelectFiles(spec, {unhashed}).ok());

  spec.file = "other.gguf";
  EXPECT_EQ(SelectFiles(spec, {F("m-Q4_K_M.gguf", 1)}).status().code(), ErrorCode::kNotFound);
}

// whisper.cpp's repo holds every size of one model family as ggml-*.bin.
TEST(SelectFiles, SpeechModelsByNameWithBaseByDefault) {
  std::vector<HubFile> repo = {F("ggml-tiny.bin", 77),
                               F("ggml-base.bin", 148),
                               F("ggml-base.en.bin", 148),
                               F("ggml-large-v3.bin", 3000),
                               F("ggml-base.en-encoder.mlmodelc.zip", 30),
                               F("README.md", 1)};
  auto spec = ParsePullSpec("ggerganov/whisper.cpp:base.en", nullptr);
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  auto named = SelectFiles(*spec, repo);
  ASSERT_TRUE(named.ok()) << named.status().message();
  EXPECT_EQ(Paths(named->model_files), std::vector<std::string>{"ggml-base.en.bin"});
  EXPECT_EQ(named->quant, "base.en");
  EXPECT_TRUE(named->extra_files.empty());

  auto plain = SelectFiles(*ParsePullSpec("ggerganov/whisper.cpp", nullptr), repo);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(Paths(plain->model_files), std::vector<std::string>{"ggml-base.bin"});
  // Without a "base", the smallest (never the 3 GB large model).
  auto smallest =
      SelectFiles(*ParsePullSpec("o/w", nullptr),
                  {F("ggml-small.bin", 400), F("ggml-tiny.bin", 77), F("ggml-large-v3.bin", 3000)});
  ASSERT_TRUE(smallest.ok());
  EXPECT_EQ(Paths(smallest->model_files), std::vector<std::string>{"ggml-tiny.bin"});

  auto missing = SelectFiles(*ParsePullSpec("o/w:medium", nullptr), repo);
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(missing.status().message().find("base.en"), std::string::npos)
      << missing.status().message();
  EXPECT_FALSE(SelectFiles(*ParsePullSpec("o/w", nullptr), {F("pytorch_model.bin", 9)}).ok());
}

TEST(SelectFiles, ExplicitShardFileTakesItsSet) {
  PullSpec spec;
  spec.repo = "org/m";
  spec.file = "m-Q4_K_M-00001-of-00002.gguf";
  auto sel = SelectFiles(spec, {F("m-Q4_K_M-00002-of-00002.gguf", 1),
                                F("m-Q4_K_M-00001-of-00002.gguf", 1), F("m-Q8_0.gguf", 1)});
  ASSERT_TRUE(sel.ok()) << sel.status().message();
  EXPECT_EQ(Paths(sel->model_files), (std::vector<std::string>{"m-Q4_K_M-00001-of-00002.gguf",
                                                               "m-Q4_K_M-00002-of-00002.gguf"}));
}

TEST(PlanRanges, SplitsEvenlyAndRespectsMinimum) {
  auto four = PlanRanges(0, 1000, 4, 100);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(four[0], (ByteRange{0, 250, 0}));
  EXPECT_EQ(four[3], (ByteRange{750, 1000, 0}));
  EXPECT_EQ(PlanRanges(0, 1000, 4, 400).size(), 2u);  // 1000/400 → 2 ranges
  EXPECT_EQ(PlanRanges(0, 10, 4, 100).size(), 1u);
  auto tail = PlanRanges(900, 1001, 3, 1);
  ASSERT_EQ(tail.size(), 3u);
  EXPECT_EQ(tail.front().start, 900u);
  EXPECT_EQ(tail.back().end, 1001u);
  EXPECT_TRUE(PlanRanges(1000, 1000, 4, 1).empty());
}

TEST(RangeState, RoundTripsAndRejectsForeignState) {
  std::vector<ByteRange> ranges = {{0, 100, 40}, {100, 250, 150}, {250, 300, 0}};
  std::string text = FormatRangeHeader(300, ranges.size());
  for (const auto& r : ranges) text += FormatRangeRecord(r);
  ASSERT_EQ(text.size(), RangeRecordOffset(3));
  auto parsed = ParseRangeState(text, 300);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(*parsed, ranges);
  EXPECT_FALSE(ParseRangeState(text, 301).has_value());                 // another file size
  EXPECT_FALSE(ParseRangeState(text.substr(0, 100), 300).has_value());  // truncated
  std::string gap =
      FormatRangeHeader(300, 2) + FormatRangeRecord({0, 100, 0}) + FormatRangeRecord({150, 300, 0});
  EXPECT_FALSE(ParseRangeState(gap, 300).has_value());
  std::string overdone = FormatRangeHeader(10, 1) + FormatRangeRecord({0, 10, 11});
  EXPECT_FALSE(ParseRangeState(overdone, 10).has_value());
}

TEST(Backoff, GrowsCapsAndJitters) {
  BackoffPolicy p{std::chrono::milliseconds(100), std::chrono::milliseconds(1000)};
  EXPECT_EQ(BackoffDelay(0, p, 0.999999).count(), 99);
  EXPECT_EQ(BackoffDelay(0, p, 0.0).count(), 50);
  EXPECT_EQ(BackoffDelay(3, p, 0.0).count(), 400);
  EXPECT_EQ(BackoffDelay(10, p, 0.0).count(), 500);  // capped at max, then jittered
  EXPECT_EQ(BackoffDelay(100, p, 0.0).count(), 500);
}

TEST(RetryAfter, SecondsAndHttpDates) {
  auto now = std::chrono::system_clock::from_time_t(1445412480);  // Wed, 21 Oct 2015 07:28:00 GMT
  EXPECT_EQ(ParseRetryAfter("120", now), std::chrono::seconds(120));
  EXPECT_EQ(ParseRetryAfter(" 0 ", now), std::chrono::seconds(0));
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now), std::chrono::seconds(30));
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now), std::chrono::seconds(0));
  EXPECT_FALSE(ParseRetryAfter("", now).has_value());
  EXPECT_FALSE(ParseRetryAfter("soon", now).has_value());
  EXPECT_FALSE(ParseRetryAfter("-5", now).has_value());
}

TEST(HubTree, ParsesFilesAndRejectsHostileNames) {
  std::string sha(64, 'b');
  auto files = HubClient::ParseTree(R"([{"type":"directory","path":"Q4_K_M","oid":"x","size":0},
      {"type":"file","path":"README.md","oid":"abc","size":12},
      {"type":"file","path":"Q4_K_M/m-Q4_K_M.gguf","oid":"abc","size":7,
       "lfs":{"oid":")" + sha + R"(","size":1234,"pointerSize":130}}])");
  ASSERT_TRUE(files.ok()) << files.status().message();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ((*files)[0].sha256, "");
  EXPECT_EQ((*files)[1].path, "Q4_K_M/m-Q4_K_M.gguf");
  EXPECT_EQ((*files)[1].size, 1234u);
  EXPECT_EQ((*files)[1].sha256, sha);
  for (const char* path : {"../evil.gguf", "/etc/passwd", "a/../../b.gguf", "a\\b.gguf", ""}) {
    std::string tree = R"([{"type":"file","path":")" + std::string(path) + R"(","size":1}])";
    EXPECT_FALSE(HubClient::ParseTree(tree).ok()) << path;
  }
  EXPECT_FALSE(
      HubClient::ParseTree(R"([{"type":"file","path":"a.gguf","lfs":{"oid":"zz"}}])").ok());
  EXPECT_FALSE(HubClient::ParseTree("{}").ok());
}

TEST(HubError, GatedModelsMentionHfToken) {
  Status s = HubClient::HttpError(401, "org/gated", "file list", "");
  EXPECT_NE(s.message().find("HF_TOKEN"), std::string::npos);
  EXPECT_NE(s.message().find("gated"), std::string::npos);
  EXPECT_EQ(HubClient::HttpError(404, "org/x", "file list", "").code(), ErrorCode::kNotFound);
}

TEST(RetryableHttpStatus, Classifies) {
  for (long s : {408L, 425L, 429L, 500L, 502L, 503L, 504L})
    EXPECT_TRUE(RetryableHttpStatus(s)) << s;
  for (long s : {200L, 206L, 400L, 401L, 403L, 404L, 416L})
    EXPECT_FALSE(RetryableHttpStatus(s)) << s;
}

}  // namespace
}  // namespace zest::models
