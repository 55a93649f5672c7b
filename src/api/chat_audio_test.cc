// A chat request's input_audio parts measured before it is admitted
// (issue 52, 2): by size for a plain WAV, by the real ffmpeg in its sandbox
// for anything else, which is then sent on as that WAV.
#include "api/chat_audio.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <cstdlib>
#include <fstream>

#include "config/settings.h"
#include "core/base64.h"
#include "core/testing/temp_dir.h"
#include "engines/engine_locator.h"

namespace zest::api {
namespace {

using engines::ChatRequest;
using engines::ContentPart;
using nlohmann::json;

// `seconds` of silence written by ffmpeg (outside the converter) as `name`.
std::string Silence(const std::filesystem::path& dir, const std::string& name, int seconds) {
  const std::filesystem::path file = dir / name;
  const std::string command =
      "ffmpeg -nostdin -loglevel error -f lavfi -i anullsrc=r=16000:cl=mono -t " +
      std::to_string(seconds) + " -y " + file.string();
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

ChatRequest WithAudio(const std::string& bytes, const std::string& format) {
  ChatRequest request;
  engines::Message m;
  m.role = "user";
  m.content = engines::Message::Content::kParts;
  m.parts.push_back({.type = ContentPart::Type::kText, .text = "What is this?"});
  m.parts.push_back(
      {.type = ContentPart::Type::kOther,
       .extra = {{"type", "input_audio"},
                 {"input_audio", {{"data", Base64Encode(bytes)}, {"format", format}}}}});
  request.messages.push_back(std::move(m));
  return request;
}

struct Prepared {
  Status status;
  std::string param;
};

Prepared Prepare(ChatRequest& request, const engines::AudioConverter* converter) {
  boost::asio::io_context io;
  Prepared out;
  auto done = boost::asio::co_spawn(
      io,
      [&]() -> boost::asio::awaitable<void> {
        out.status = co_await PrepareChatAudio(request, converter, &out.param);
      },
      boost::asio::use_future);
  io.run();
  done.get();
  return out;
}

class ChatAudioTest : public ::testing::Test {
 protected:
  ChatAudioTest() {
    engines::LocateOptions locate;
    locate.binary_name = "ffmpeg";
    locate.path_env = config::ProcessEnv("PATH").value_or("");
    engines::FfmpegSetup setup;
    setup.ffmpeg = engines::LocateEngine(locate);
    setup.work_root = work_.path();
    converter_ = std::make_unique<engines::AudioConverter>(
        std::make_shared<const engines::Ffmpeg>(std::move(setup)), /*max_seconds=*/60);
  }
  testing::TempDir dir_{"chat-audio"};
  testing::TempDir work_{"chat-audio-work"};
  std::unique_ptr<engines::AudioConverter> converter_;
};

TEST_F(ChatAudioTest, LongAudioIsRefusedInEveryFormat) {
  ASSERT_TRUE(converter_->Available().ok()) << converter_->Available().message();
  for (const char* name : {"a.wav", "a.mp3", "a.flac"}) {
    ChatRequest request = WithAudio(Silence(dir_.path(), name, 120), "mp3");
    Prepared p = Prepare(request, converter_.get());
    EXPECT_EQ(p.status.code(), ErrorCode::kTooLarge) << name << ": " << p.status.message();
    EXPECT_EQ(p.param, "messages");
    EXPECT_NE(p.status.message().find("audio 1"), std::string::npos) << p.status.message();
    EXPECT_NE(p.status.message().find("limits.max_audio_s"), std::string::npos);
  }
}

TEST_F(ChatAudioTest, ShortAudioGoesOnAsAPlainWav) {
  const std::string wav = Silence(dir_.path(), "b.wav", 2);
  ChatRequest plain = WithAudio(wav, "wav");
  ASSERT_TRUE(Prepare(plain, converter_.get()).status.ok());
  EXPECT_EQ(plain.messages[0].parts[1].extra["input_audio"]["data"], Base64Encode(wav))
      << "a plain WAV as it came";

  ChatRequest mp3 = WithAudio(Silence(dir_.path(), "b.mp3", 2), "mp3");
  Prepared p = Prepare(mp3, converter_.get());
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  const json& audio = mp3.messages[0].parts[1].extra["input_audio"];
  EXPECT_EQ(audio["format"], "wav");
  std::optional<std::string> bytes = Base64Decode(audio["data"].get<std::string>());
  ASSERT_TRUE(bytes);
  std::optional<double> seconds = engines::PlainWavSeconds(*bytes);
  ASSERT_TRUE(seconds);
  EXPECT_NEAR(*seconds, 2.0, 0.1);
}

TEST_F(ChatAudioTest, WithoutFfmpegOnlyAPlainWavIsTaken) {
  ChatRequest mp3 = WithAudio(Silence(dir_.path(), "c.mp3", 2), "mp3");
  Prepared p = Prepare(mp3, nullptr);
  EXPECT_EQ(p.status.code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(p.status.message().find("needs ffmpeg"), std::string::npos) << p.status.message();
  ChatRequest wav = WithAudio(Silence(dir_.path(), "c.wav", 2), "wav");
  EXPECT_TRUE(Prepare(wav, nullptr).status.ok());
  ChatRequest garbled = WithAudio("", "wav");
  garbled.messages[0].parts[1].extra["input_audio"]["data"] = "!!!!";
  EXPECT_EQ(Prepare(garbled, nullptr).status.code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace zest::api
