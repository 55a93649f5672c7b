// A chat request's images checked and made ready: limits on count, bytes
// and declared pixels, URLs refused unless their host is allowed, a WebP
// converted to PNG by the real ffmpeg in its sandbox, a model without a
// projector told so.
#include "api/chat_images.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <cstdlib>
#include <fstream>

#include "api/request/image_probe.h"
#include "config/settings.h"
#include "core/base64.h"
#include "core/testing/temp_dir.h"
#include "engines/engine_locator.h"

namespace zest::api {
namespace {

using engines::ChatRequest;
using engines::ContentPart;

ChatRequest WithImages(const std::vector<std::string>& urls) {
  ChatRequest request;
  engines::Message m;
  m.role = "user";
  m.content = engines::Message::Content::kParts;
  m.parts.push_back({.type = ContentPart::Type::kText, .text = "What is this?"});
  for (const std::string& url : urls)
    m.parts.push_back({.type = ContentPart::Type::kImage, .url = url});
  request.messages.push_back(std::move(m));
  return request;
}

std::string DataUrl(const std::string& mime, const std::string& bytes) {
  return "data:" + mime + ";base64," + Base64Encode(bytes);
}

// A 37 x 23 test pattern written by ffmpeg (outside the converter).
std::string Picture(const std::filesystem::path& dir, const std::string& name,
                    const std::string& args = "") {
  const std::filesystem::path file = dir / name;
  const std::string command = "ffmpeg -nostdin -loglevel error -f lavfi -i testsrc=s=37x23 " +
                              args + " -frames:v 1 -y " + file.string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Prepared {
  Status status;
  std::string param;
};

Prepared Prepare(const ChatImages& images, ChatRequest& request,
                 const engines::ImageConverter* converter = nullptr) {
  boost::asio::io_context io;
  Prepared out;
  auto done = boost::asio::co_spawn(
      io,
      [&]() -> boost::asio::awaitable<void> {
        out.status = co_await images.Prepare(request, converter, &out.param);
      },
      boost::asio::use_future);
  io.run();
  done.get();
  return out;
}

TEST(ChatImages, PngPassesAsItCame) {
  testing::TempDir dir("chat-images");
  const std::string png = Picture(dir.path(), "a.png");
  ChatImages images({});
  ChatRequest request = WithImages({DataUrl("image/png", png)});
  Prepared p = Prepare(images, request);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(request.messages[0].parts[1].url, DataUrl("image/png", png));
}

// A wrong MIME type is put right: the engine is told what the bytes are.
TEST(ChatImages, MislabelledPngIsRelabelled) {
  testing::TempDir dir("chat-images");
  const std::string png = Picture(dir.path(), "a.png");
  ChatImages images({});
  ChatRequest request = WithImages({DataUrl("image/jpeg", png)});
  Prepared p = Prepare(images, request);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(request.messages[0].parts[1].url, DataUrl("image/png", png));
}

TEST(ChatImages, WebpBecomesPngOfTheSameSize) {
  testing::TempDir dir("chat-images");
  testing::TempDir work("chat-images-work");
  engines::LocateOptions locate;
  locate.binary_name = "ffmpeg";
  locate.path_env = config::ProcessEnv("PATH").value_or("");
  engines::FfmpegSetup setup;
  setup.ffmpeg = engines::LocateEngine(locate);
  setup.work_root = work.path();
  engines::ImageConverter converter(std::make_shared<const engines::Ffmpeg>(std::move(setup)));
  ASSERT_TRUE(converter.Available().ok()) << converter.Available().message();

  ChatImages images({});
  // The MIME type a client names does not matter: the bytes say WebP.
  ChatRequest request =
      WithImages({DataUrl("image/png", Picture(dir.path(), "a.webp", "-c:v libwebp"))});
  Prepared p = Prepare(images, request, &converter);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  const std::string& url = request.messages[0].parts[1].url;
  ASSERT_TRUE(url.starts_with("data:image/png;base64,")) << url.substr(0, 40);
  ImageHeader png = ProbeImage(*Base64Decode(url.substr(url.find(',') + 1)));
  EXPECT_EQ(png.format, ImageHeader::Format::kPng);
  EXPECT_EQ(png.width, 37u);
  EXPECT_EQ(png.height, 23u);
  EXPECT_TRUE(std::filesystem::is_empty(work.path())) << "the converter's files are gone";

  // Without a converter a WebP is refused with what to send instead.
  ChatRequest again =
      WithImages({DataUrl("image/webp", Picture(dir.path(), "b.webp", "-c:v libwebp"))});
  Prepared refused = Prepare(images, again);
  EXPECT_EQ(refused.status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(refused.status.message().find("send PNG, JPEG, GIF or BMP"), std::string::npos);
}

TEST(ChatImages, LimitsOnCountBytesAndDeclaredPixels) {
  testing::TempDir dir("chat-images");
  const std::string png = Picture(dir.path(), "a.png");
  ChatImages images({.max_images = 2,
                     .max_image_bytes = 4096,
                     .max_image_pixels = 37 * 23,
                     .url_hosts = {},
                     .url_networks = {}});

  ChatRequest three =
      WithImages({DataUrl("image/png", png), DataUrl("image/png", png), DataUrl("image/png", png)});
  Prepared count = Prepare(images, three);
  EXPECT_EQ(count.status.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(count.param, "messages");
  EXPECT_NE(count.status.message().find("holds 3 images; at most 2"), std::string::npos)
      << count.status.message();

  ChatRequest big = WithImages({DataUrl("image/png", png + std::string(5000, '\0'))});
  Prepared bytes = Prepare(images, big);
  EXPECT_EQ(bytes.status.code(), ErrorCode::kTooLarge);
  EXPECT_NE(bytes.status.message().find("image 1 is over"), std::string::npos);

  // A header declaring 38 x 23: one column over the limit, refused unread.
  std::string wider = png;
  wider[19] = 38;
  ChatRequest declared = WithImages({DataUrl("image/png", png), DataUrl("image/png", wider)});
  Prepared pixels = Prepare(images, declared);
  EXPECT_EQ(pixels.status.code(), ErrorCode::kTooLarge);
  EXPECT_NE(pixels.status.message().find("image 2 is 38 x 23 pixels"), std::string::npos)
      << pixels.status.message();
}

// Issue 52, 1: a header that gives no size passed as 0 x 0 pixels.
TEST(ChatImages, AnImageWhoseHeaderGivesNoSizeIsRefused) {
  ChatImages images({});
  const std::string soi_app0("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00",
                             20);
  const std::string sos("\xFF\xDA\x00\x08\x01\x01\x00\x00\x3F\x00", 10);
  const std::string png_cut("\x89PNG\r\n\x1A\n\0\0\0\x0D", 12);
  for (const std::string& bytes : {soi_app0 + sos, png_cut}) {
    ChatRequest request = WithImages({DataUrl("image/jpeg", bytes)});
    Prepared p = Prepare(images, request);
    EXPECT_EQ(p.status.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(p.param, "messages");
    EXPECT_NE(p.status.message().find("gives no size"), std::string::npos) << p.status.message();
  }
}

TEST(ChatImages, UrlsAreFetchedOnlyFromAllowedHosts) {
  ChatImages images({});
  ChatRequest request = WithImages({"https://Example.com/cat.png"});
  Prepared p = Prepare(images, request);
  EXPECT_EQ(p.status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(p.status.message().find("does not fetch images from example.com"), std::string::npos)
      << p.status.message();
  EXPECT_NE(p.status.message().find("server.image_url_hosts"), std::string::npos);
  // User info could make one host look like another.
  ChatImages allowed({.url_hosts = {"example.com"}, .url_networks = {}});
  ChatRequest tricked = WithImages({"https://example.com@127.0.0.1/cat.png"});
  EXPECT_EQ(Prepare(allowed, tricked).status.code(), ErrorCode::kInvalidArgument);
  ChatRequest file = WithImages({"file:///etc/passwd"});
  EXPECT_EQ(Prepare(allowed, file).status.code(), ErrorCode::kInvalidArgument);
}

// Issue 52: 16 images of 33.5 MP each passed one by one (1.6 GB decoded).
TEST(ChatImages, AllImagesOfARequestTogetherHaveALimit) {
  testing::TempDir dir("chat-images");
  const std::string png = DataUrl("image/png", Picture(dir.path(), "a.png"));
  ChatImages images({.max_images = 4,
                     .max_image_bytes = 4096,
                     .max_image_pixels = 37 * 23,
                     .max_request_pixels = 2 * 37 * 23,
                     .url_hosts = {},
                     .url_networks = {}});
  ChatRequest two = WithImages({png, png});
  EXPECT_TRUE(Prepare(images, two).status.ok());
  ChatRequest three = WithImages({png, png, png});
  Prepared over = Prepare(images, three);
  EXPECT_EQ(over.status.code(), ErrorCode::kTooLarge);
  EXPECT_NE(over.status.message().find("images 1 to 3 hold 2553 pixels together; at most 1702"),
            std::string::npos)
      << over.status.message();
}

// Issue 52: an allowed name pointed at this machine (DNS rebinding) was
// fetched from there. "localhost" stands for such a name: it resolves
// only to loopback addresses.
TEST(ChatImages, AnAllowedNameMustResolveToAPublicAddress) {
  ChatImages by_name({.url_hosts = {"localhost"}, .url_networks = {}});
  ChatRequest request = WithImages({"http://localhost:9/cat.png"});
  Prepared p = Prepare(by_name, request);
  EXPECT_EQ(p.status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(p.status.message().find("localhost resolves to"), std::string::npos)
      << p.status.message();
  EXPECT_NE(p.status.message().find("not a public address"), std::string::npos);

  // Listed by address, loopback is fetched from (nothing listens on port 9:
  // the connection itself is tried and fails).
  ChatImages by_address(
      {.url_hosts = {"localhost"},
       .url_networks = {*http::IpNetwork::Parse("127.0.0.0/8"), *http::IpNetwork::Parse("::1")}});
  for (const char* url : {"http://localhost:9/cat.png", "http://127.0.0.1:9/cat.png"}) {
    ChatRequest tried = WithImages({url});
    Prepared q = Prepare(by_address, tried);
    EXPECT_EQ(q.status.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(q.status.message().find("failed"), std::string::npos) << q.status.message();
    EXPECT_EQ(q.status.message().find("not a public address"), std::string::npos);
  }
  // An address outside the listed ranges is not a host that is allowed.
  ChatRequest outside = WithImages({"http://10.0.0.1:9/cat.png"});
  Prepared r = Prepare(by_address, outside);
  EXPECT_NE(r.status.message().find("does not fetch images from 10.0.0.1"), std::string::npos)
      << r.status.message();
}

TEST(ChatImages, WhatIsNotAnImageIsRefused) {
  ChatImages images({});
  ChatRequest svg =
      WithImages({DataUrl("image/svg+xml", "<svg xmlns='http://www.w3.org/2000/svg'/>")});
  Prepared p = Prepare(images, svg);
  EXPECT_EQ(p.status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(p.status.message().find("image 1 is not an image zest reads"), std::string::npos);
  ChatRequest text = WithImages({"data:image/png,notbase64"});
  EXPECT_EQ(Prepare(images, text).status.code(), ErrorCode::kInvalidArgument);
  ChatRequest garbled = WithImages({"data:image/png;base64,!!!!"});
  EXPECT_EQ(Prepare(images, garbled).status.code(), ErrorCode::kInvalidArgument);
}

TEST(ChatImages, AModelWithoutAProjectorIsToldItHasNoVision) {
  models::ModelEntry model;
  model.name = "tiny";
  ChatRequest request = WithImages({"data:image/png;base64,AAAA"});
  Status blind = CheckVision(model, request);
  EXPECT_EQ(blind.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(blind.message().find("model 'tiny' has no vision"), std::string::npos);
  EXPECT_TRUE(CheckVision(model, WithImages({})).ok());
  model.mmproj = "/models/tiny.mmproj.gguf";  // an audio projector sees nothing
  model.projector.has_audio = true;
  EXPECT_FALSE(CheckVision(model, request).ok());
  model.projector.has_vision = true;
  EXPECT_TRUE(CheckVision(model, request).ok());

  // Audio parts need an audio encoder.
  ChatRequest heard = WithImages({});
  heard.messages[0].parts.push_back(
      {.type = ContentPart::Type::kOther,
       .extra = {{"type", "input_audio"}, {"input_audio", {{"data", "AAAA"}, {"format", "wav"}}}}});
  model.projector.has_audio = false;
  Status deaf = CheckVision(model, heard);
  EXPECT_EQ(deaf.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(deaf.message().find("takes no audio input: its projector has no audio encoder"),
            std::string::npos)
      << deaf.message();
  model.projector.has_audio = true;
  EXPECT_TRUE(CheckVision(model, heard).ok());
  // A part of another type, even a type that is not a string, is no audio.
  ChatRequest odd = WithImages({});
  odd.messages[0].parts.push_back({.type = ContentPart::Type::kOther, .extra = {{"type", 5}}});
  model.mmproj.clear();
  EXPECT_TRUE(CheckVision(model, odd).ok());
}

}  // namespace
}  // namespace zest::api
