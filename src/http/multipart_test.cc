#include "http/multipart.h"

#include <gtest/gtest.h>

namespace zest::http {
namespace {

// As curl -F sends it (captured shape): a file part and a plain field.
constexpr char kCurlForm[] =
    "--------------------------d74496d66958873e\r\n"
    "Content-Disposition: form-data; name=\"file\"; filename=\"a b.wav\"\r\n"
    "Content-Type: audio/wav\r\n"
    "\r\n"
    "RIFF\r\n--not-the-boundary\r\n\0data\r\n"
    "--------------------------d74496d66958873e\r\n"
    "Content-Disposition: form-data; name=\"model\"\r\n"
    "\r\n"
    "whisper\r\n"
    "--------------------------d74496d66958873e--\r\n";

TEST(Multipart, BoundaryFromTheContentType) {
  EXPECT_EQ(FormBoundary("multipart/form-data; boundary=abc").value(), "abc");
  EXPECT_EQ(FormBoundary("Multipart/Form-Data; charset=x; boundary=\"a;b\"").value(), "a;b");
  EXPECT_FALSE(FormBoundary("application/json").ok());
  EXPECT_FALSE(FormBoundary("multipart/form-data").ok());
  EXPECT_FALSE(FormBoundary("").ok());
}

TEST(Multipart, ParsesFilesAndFieldsWithBinaryData) {
  auto parts = ParseForm(std::string_view(kCurlForm, sizeof(kCurlForm) - 1),
                         "------------------------d74496d66958873e");
  ASSERT_TRUE(parts.ok()) << parts.status().message();
  ASSERT_EQ(parts->size(), 2u);
  const FormPart* file = FindPart(*parts, "file");
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(file->filename, "a b.wav");
  EXPECT_EQ(file->content_type, "audio/wav");
  EXPECT_EQ(file->data, std::string("RIFF\r\n--not-the-boundary\r\n\0data", 31));
  EXPECT_EQ(FindPart(*parts, "model")->data, "whisper");
  EXPECT_EQ(FindPart(*parts, "missing"), nullptr);
}

TEST(Multipart, WhatItWritesItReads) {
  std::vector<FormPart> parts = {{"file", "x.wav", "audio/wav", std::string("\0\1\2", 3)},
                                 {"language", "", "", "de"}};
  Result<std::string> body = WriteForm(parts, "zest-b");
  ASSERT_TRUE(body.ok()) << body.status().message();
  auto back = ParseForm(*body, "zest-b");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].data, std::string("\0\1\2", 3));
  EXPECT_EQ((*back)[0].filename, "x.wav");
  EXPECT_EQ((*back)[1].data, "de");
  EXPECT_EQ(FormContentType("zest-b"), "multipart/form-data; boundary=zest-b");
}

// Issue 52, 6: a WAV holding the engine form's boundary closed its part
// and added a response_format of its own (whisper-server's answer changed).
TEST(Multipart, APartHoldingTheBoundaryIsRefusedAndNamesCannotEndTheirHeader) {
  const std::string boundary = NewFormBoundary();
  const std::string injected = "RIFF\r\n--" + boundary +
                               "\r\nContent-Disposition: form-data; "
                               "name=\"response_format\"\r\n\r\ntext";
  Result<std::string> refused = WriteForm({{"file", "a.wav", "", injected}}, boundary);
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalidArgument);

  Result<std::string> body = WriteForm(
      {{"fi\"le", "a\\\"; name=\"x\r\nX-Injected: 1.wav", "audio/wav\r\nX: y", "data"}}, boundary);
  ASSERT_TRUE(body.ok()) << body.status().message();
  EXPECT_EQ(body->find("\r\nX-Injected"), std::string::npos) << *body;
  EXPECT_EQ(body->find("\r\nX: y"), std::string::npos) << *body;
  auto back = ParseForm(*body, boundary);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].name, "file");
  EXPECT_EQ((*back)[0].filename, "a; name=xX-Injected: 1.wav");
  EXPECT_EQ((*back)[0].content_type, "audio/wavX: y");
  EXPECT_EQ((*back)[0].data, "data");
}

TEST(Multipart, EachFormGetsAFreshBoundary) {
  const std::string a = NewFormBoundary();
  EXPECT_TRUE(a.starts_with("zest-"));
  EXPECT_EQ(a.size(), 5u + 32u);
  EXPECT_NE(a, NewFormBoundary());
}

TEST(Multipart, MalformedFormsAreErrors) {
  EXPECT_FALSE(ParseForm("no boundary here", "b").ok());
  EXPECT_FALSE(
      ParseForm("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue", "b").ok())
      << "not closed";
  EXPECT_FALSE(ParseForm("--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--", "b").ok())
      << "no name";
  EXPECT_FALSE(
      ParseForm("--b\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nx\r\n--b--", "b").ok());
  std::string many;
  for (int i = 0; i < 3; ++i)
    many += "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n";
  many += "--b--";
  EXPECT_TRUE(ParseForm(many, "b", 3).ok());
  EXPECT_FALSE(ParseForm(many, "b", 2).ok());
}

}  // namespace
}  // namespace zest::http
