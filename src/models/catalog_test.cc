#include "models/catalog.h"

#include <gtest/gtest.h>

#include <set>

#include "models/hf_store.h"

namespace zest::models {
namespace {

TEST(CatalogTest, BuiltinCatalogParsesWithCurrentPicks) {
  const Catalog& c = Catalog::Builtin();
  ASSERT_GE(c.entries().size(), 20u);
  for (const char* name :
       {"Qwen3-0.6B-GGUF", "Qwen3-32B-GGUF", "Qwen3-Coder-30B-A3B-Instruct-GGUF",
        "gpt-oss-20b-GGUF", "gpt-oss-120b-GGUF", "Llama-3.2-1B-Instruct-GGUF",
        "Llama-3.2-3B-Instruct-GGUF", "gemma-3-27b-it-GGUF", "nomic-embed-text-v1.5-GGUF",
        "bge-reranker-v2-m3-GGUF", "whisper-tiny", "whisper-base", "whisper-large-v3-turbo"}) {
    EXPECT_NE(c.Find(name), nullptr) << name;
  }
  const CatalogEntry* gemma = c.Find("GEMMA-3-4B-IT-gguf");  // case-insensitive
  ASSERT_NE(gemma, nullptr);
  EXPECT_EQ(gemma->repo, "ggml-org/gemma-3-4b-it-GGUF");
  EXPECT_FALSE(gemma->mmproj.empty());
  EXPECT_EQ(c.Find("whisper-tiny")->recipe, "whispercpp");
  // NPU builds (FastFlowLM tags) where FastFlowLM has the model.
  EXPECT_EQ(c.Find("Llama-3.2-1B-Instruct-GGUF")->flm, "llama3.2:1b");
  EXPECT_EQ(c.Find("gpt-oss-20b-GGUF")->flm, "gpt-oss:20b");
  EXPECT_EQ(c.Find("gpt-oss-120b-GGUF")->flm, "");
  EXPECT_EQ(c.Find("nomic-embed-text-v1.5-GGUF")->labels, std::vector<std::string>{"embeddings"});
  EXPECT_EQ(c.Find("no-such-model"), nullptr);
  for (const CatalogEntry& e : c.entries()) {
    EXPECT_TRUE(HfStore::ValidRepoId(e.repo)) << e.name;
    EXPECT_GT(e.size_bytes, 0u) << e.name;
  }
}

Status ParseError(const std::string& entry) {
  auto r = Catalog::Parse(R"({"models":[)" + entry + "]}");
  return r.status();
}

TEST(CatalogTest, ErrorsNameTheEntryAndField) {
  const std::string ok = R"("name":"m","repo":"o/r","quant":"Q4_K_M","recipe":"llamacpp")";
  EXPECT_TRUE(ParseError("{" + ok + "}").ok());
  struct Case {
    std::string entry;
    std::string field;
  } cases[] = {
      {R"({"repo":"o/r","quant":"Q4_K_M","recipe":"llamacpp"})", "'name'"},
      {R"({"name":"m","repo":"../r","quant":"Q4_K_M","recipe":"llamacpp"})", "'repo'"},
      {R"({"name":"m","repo":"o/r","recipe":"llamacpp"})", "'quant'"},
      {R"({"name":"m","repo":"o/r","file":"../x.gguf","recipe":"llamacpp"})", "'file'"},
      {R"({"name":"m","repo":"o/r","quant":"Q4_K_M","recipe":"vllm"})", "'recipe'"},
      {"{" + ok + R"(,"labels":["chat","dancing"]})", "'labels'"},
      {"{" + ok + R"(,"size_bytes":-1})", "'size_bytes'"},
      {"{" + ok + R"(,"mmproj":"/abs.gguf"})", "'mmproj'"},
      {"{" + ok + R"(,"draft":"nope"})", "'draft'"},
      {"{" + ok + R"(,"flm":"--port"})", "'flm'"},
      {"{" + ok + "},{" + ok + "}", "'name'"},
  };
  for (const Case& c : cases) {
    Status st = ParseError(c.entry);
    ASSERT_FALSE(st.ok()) << c.entry;
    EXPECT_EQ(st.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(st.message().find(c.field), std::string::npos) << st.message();
    if (c.field != "'name'" || c.entry.find(R"("name")") != std::string::npos) {
      EXPECT_NE(st.message().find("'m'"), std::string::npos) << st.message();
    } else {
      EXPECT_NE(st.message().find("entry 0"), std::string::npos) << st.message();
    }
  }
  EXPECT_FALSE(Catalog::Parse("[").ok());
  EXPECT_FALSE(Catalog::Parse(R"({"models":{}})").ok());
}

}  // namespace
}  // namespace zest::models
