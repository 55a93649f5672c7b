#include "engines/engine_flags.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "engines/llama_server_flags.h"
#include "engines/test_util.h"

namespace zest::engines {
namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;
using testing::TempDir;

// What the engine is given for `args`, or the error message.
std::string Checked(const Args& args) {
  auto flags = CheckLlamaServerArgs(args);
  if (!flags.ok()) return "error: " + flags.status().message();
  std::string out;
  for (const std::string& a : FlagArgv(*flags)) out += (out.empty() ? "" : " ") + a;
  return out;
}

TEST(LlamaServerFlags, EverySpellingOfAFlagThatReachesOutsideTheEngineIsRefused) {
  // Each of these was accepted by the old deny-list, or is a spelling of
  // one that was refused. The error names the flag as given.
  const std::vector<Args> refused = {
      {"--mcp-servers-json", R"({"mcpServers":{"x":{"command":"/bin/sh"}}})"},
      {"--mcp_servers_json", "{}"},
      {"--mcp-servers-json={}"},
      {"--mcp_servers_json={}"},
      {"--mcp-servers-config", "/tmp/x.json"},
      {"--tools", "all"},
      {"--tools=all"},
      {"--agent"},
      {"-ag"},
      {"--api_key", "X"},
      {"--api-key=X"},
      {"--log_file", "/tmp/x.log"},
      {"--log-file=/tmp/x.log"},
      {"--log-prompts-dir", "/tmp/p"},
      {"--log_prompts_dir=/tmp/p"},
      {"--slot_save_path", "/tmp"},
      {"--slot-save-path=/tmp"},
      {"--media-path", "/"},
      {"--video-ffmpeg-dir", "/tmp"},
      {"--webui-mcp-proxy"},
      {"--ui-config-file", "/etc/passwd"},
      {"--cors-origins", "*"},
      {"-hf", "org/repo"},
      {"--hf_repo", "org/repo"},
      {"--gpt-oss-20b-default"},
      {"--lookup-cache-dynamic", "/tmp/c"},
      {"--TEMP", "1"},  // llama-server is case-sensitive: not a spelling of --temp
      {"-v"},
      {"--log_verbose"},
      {"-lv", "5"},  // debug logs prompts and replies
  };
  for (const Args& args : refused) {
    auto flags = CheckLlamaServerArgs(args);
    ASSERT_FALSE(flags.ok()) << args[0];
    EXPECT_EQ(flags.status().code(), ErrorCode::kInvalidArgument);
    std::string given = args[0].substr(0, args[0].find('='));
    EXPECT_NE(flags.status().message().find("'" + given + "'"), std::string::npos)
        << flags.status().message();
  }
}

TEST(LlamaServerFlags, FlagsZestSetsSayWhatToUseInstead) {
  struct Case {
    Args args;
    std::string why;
  };
  const std::vector<Case> cases = {
      {{"--host", "0.0.0.0"}, "socket"},
      {{"--port=8080"}, "socket"},
      {{"-ngl", "99"}, "use n_gpu_layers"},
      {{"--ctx_size", "4096"}, "use ctx_size"},
      {{"--cache-ram", "-1"}, "use cache_ram"},
      {{"-md", "/models/d.gguf"}, "use draft"},
      {{"--spec-draft-n-max", "16"}, "use draft_max"},
      {{"-t", "4"}, "engine.threads"},
      {{"--override-tensor", "exps=CPU"}, "places"},
      {{"--sleep-idle-seconds", "5"}, "keep_alive"},
      {{"--verbose"}, "-lv 4"},
      {{"--model", "/etc/passwd"}, "model file"},
  };
  for (const Case& c : cases) {
    std::string out = Checked(c.args);
    EXPECT_NE(out.find("is reserved"), std::string::npos) << out;
    EXPECT_NE(out.find(c.why), std::string::npos) << out;
  }
}

TEST(LlamaServerFlags, AllowedFlagsAreGivenInTheirCanonicalSpelling) {
  struct Case {
    Args args;
    std::string engine_gets;
  };
  const std::vector<Case> cases = {
      {{}, ""},
      {{"--temp", "0.7", "--top-k", "40"}, "--temp 0.7 --top-k 40"},
      {{"--temperature=0.7"}, "--temp 0.7"},
      {{"--top_k", "5"}, "--top-k 5"},
      {{"--repeat_penalty=1.1"}, "--repeat-penalty 1.1"},
      {{"-lv", "4"}, "--log-verbosity 4"},
      {{"-rea", "off"}, "--reasoning off"},
      {{"--no-context-shift", "--swa-full"}, "--no-context-shift --swa-full"},
      {{"-nkvo"}, "--no-kv-offload"},
      {{"--rope-scaling", "yarn", "--yarn-orig-ctx", "32768"},
       "--rope-scaling yarn --yarn-orig-ctx 32768"},
      {{"--spec-type", "ngram-simple,ngram-mod"}, "--spec-type ngram-simple,ngram-mod"},
      {{"-r", "--mcp-servers-json"}, "--reverse-prompt --mcp-servers-json"},  // a value
      {{"--control-vector-layer-range", "1", "10"}, "--control-vector-layer-range 1 10"},
      {{"--chat-template", "chatml"}, "--chat-template chatml"},
  };
  for (const Case& c : cases) EXPECT_EQ(Checked(c.args), c.engine_gets);
}

TEST(LlamaServerFlags, ValuesAreCheckedByType) {
  const std::vector<Args> bad = {
      {"--temp"},          // missing
      {"--temp", "hot"},   // not a number
      {"--temp", "nan"},   // not finite
      {"--top-k", "4.5"},  // not an integer
      {"--top-p", "2"},    // out of range
      {"-rea", "maybe"},   // not a choice
      {"--spec-type", "ngram-simple,shell"},
      {"--swa-full=1"},  // a switch takes no value
      {"--control-vector-layer-range=1"},
      {"--lora-scaled", "a.gguf"},  // no scale
      {"--chat-template", std::string("a\0b", 3)},
      {"0.7"},  // a value without its flag
  };
  for (const Args& args : bad) {
    auto flags = CheckLlamaServerArgs(args);
    EXPECT_FALSE(flags.ok()) << ::testing::PrintToString(args);
  }
}

TEST(LlamaServerFlags, EveryAllowedSpellingIsUnique) {
  std::set<std::string_view> seen;
  for (const FlagSpec& spec : LlamaServerFlags().allowed) {
    for (std::string_view name : spec.names) {
      EXPECT_TRUE(seen.insert(name).second) << name;
      EXPECT_EQ(NormalizeFlagName(name), name) << "spellings are stored normalised";
    }
  }
  for (const OwnedFlag& owned : LlamaServerFlags().owned) {
    EXPECT_FALSE(seen.count(owned.name)) << owned.name << " is both allowed and owned";
  }
}

class FlagPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(models_ / "sub");
    fs::create_directories(outside_);
    std::ofstream(models_ / "sub/lora.gguf") << "x";
    std::ofstream(models_ / "tmpl.jinja") << "{{ x }}";
    std::ofstream(outside_ / "secret") << "x";
    fs::create_symlink(outside_ / "secret", models_ / "link-out.gguf");
  }
  TempDir dir_;
  fs::path models_ = dir_.path() / "models";
  fs::path outside_ = dir_.path() / "home";
};

TEST_F(FlagPaths, FilesZestServesAreResolvedAndListedForBinding) {
  auto flags =
      CheckLlamaServerArgs({"--chat-template-file", (models_ / "tmpl.jinja").string(),
                            "--lora-scaled", (models_ / "sub/../sub/lora.gguf").string() + ":0.5"});
  ASSERT_TRUE(flags.ok()) << flags.status().ToString();
  auto files = ResolveFlagPaths(*flags, {models_});
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  fs::path root = fs::canonical(models_);
  EXPECT_EQ(*files, (std::vector<fs::path>{root / "tmpl.jinja", root / "sub/lora.gguf"}));
  EXPECT_EQ(FlagArgv(*flags), (std::vector<std::string>{
                                  "--chat-template-file", (root / "tmpl.jinja").string(),
                                  "--lora-scaled", (root / "sub/lora.gguf").string() + ":0.5"}));
}

TEST_F(FlagPaths, FilesOutsideTheServedRootsAreRefused) {
  for (const std::string& file :
       {(outside_ / "secret").string(), (models_ / "link-out.gguf").string(),
        (models_ / "../home/secret").string(), models_.string(), std::string("/etc/passwd"),
        (models_ / "missing.gguf").string()}) {
    auto flags = CheckLlamaServerArgs({"--lora", file});
    ASSERT_TRUE(flags.ok());
    auto files = ResolveFlagPaths(*flags, {models_});
    ASSERT_FALSE(files.ok()) << file;
    EXPECT_NE(files.status().message().find(file), std::string::npos) << files.status().message();
  }
}

}  // namespace
}  // namespace zest::engines
