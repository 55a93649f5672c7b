#include "webui/web_ui.h"

#include <gtest/gtest.h>

namespace zest::webui {
namespace {

TEST(WebUi, ContentTypesByExtension) {
  EXPECT_EQ(ContentTypeFor("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(ContentTypeFor("assets/index-BxT3c9aQ.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(ContentTypeFor("assets/index-BxT3c9aQ.css"), "text/css; charset=utf-8");
  EXPECT_EQ(ContentTypeFor("favicon.svg"), "image/svg+xml");
  // Unknown kinds are never sniffed into something runnable.
  EXPECT_EQ(ContentTypeFor("notes.html.bak"), "application/octet-stream");
  EXPECT_EQ(ContentTypeFor("js"), "application/octet-stream");
}

TEST(WebUi, OnlyHashedAssetsAreImmutable) {
  EXPECT_TRUE(IsImmutableAsset("assets/index-BxT3c9aQ.js"));
  EXPECT_TRUE(IsImmutableAsset("assets/chat-view-D4e_91Zx.css"));
  EXPECT_TRUE(IsImmutableAsset("assets/index-Bt-IkXGa.css"));  // '-' inside the hash
  EXPECT_FALSE(IsImmutableAsset("index.html"));
  EXPECT_FALSE(IsImmutableAsset("favicon.svg"));
  EXPECT_FALSE(IsImmutableAsset("assets/logo.svg"));         // no hash
  EXPECT_FALSE(IsImmutableAsset("assets/a-b.js"));           // too short to be a hash
  EXPECT_FALSE(IsImmutableAsset("assets/a-toolong12.js"));   // 9 characters after the dash
  EXPECT_FALSE(IsImmutableAsset("assets/x-abc.defghi.js"));  // '.' is no hash character
}

TEST(WebUi, BrowsersAskForHtml) {
  EXPECT_TRUE(WantsHtml("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"));
  EXPECT_FALSE(WantsHtml("*/*"));  // curl, Ollama clients
  EXPECT_FALSE(WantsHtml(""));
  EXPECT_FALSE(WantsHtml("application/json"));
}

}  // namespace
}  // namespace zest::webui
