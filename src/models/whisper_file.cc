#include "models/whisper_file.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <memory>

#include "models/byte_source.h"
#include "models/ggml_types.h"

namespace zest::models {
namespace {

static_assert(std::endian::native == std::endian::little,
              "whisper ggml files are little endian; this reader assumes a little-endian host");

constexpr int32_t kMaxDims = 4;
constexpr uint32_t kMaxNameLength = 1024;
constexpr uint32_t kMaxTokenLength = 1024;

class WhisperParser {
 public:
  explicit WhisperParser(ByteSource& source) : source_(source) {}

  Result<WhisperFile> Parse();

 private:
  // Reads `n` bytes, or says where the file ended (ByteSource's own message
  // names GGUF).
  Status Read(void* dst, uint64_t n, const char* what) {
    if (n > source_.Remaining()) return Truncated(n, what);
    return source_.Read(dst, n);
  }
  Status Skip(uint64_t n, const char* what) {
    if (n > source_.Remaining()) return Truncated(n, what);
    return source_.Skip(n);
  }
  Status ReadI32(int32_t& out, const char* what) { return Read(&out, sizeof out, what); }
  Status Truncated(uint64_t n, const char* what) const {
    return InvalidArgument("truncated whisper model: " + std::string(what) + " needs " +
                           std::to_string(n) + " bytes at offset " +
                           std::to_string(source_.Position()) + ", " +
                           std::to_string(source_.Remaining()) + " remain");
  }
  Status ReadHparams(WhisperHparams& h);
  Status ReadFilters(WhisperFile& file);
  Status ReadVocab(WhisperFile& file);
  Status ReadTensor(WhisperTensorInfo& tensor);

  ByteSource& source_;
};

Status WhisperParser::ReadHparams(WhisperHparams& h) {
  for (int32_t* field :
       {&h.n_vocab, &h.n_audio_ctx, &h.n_audio_state, &h.n_audio_head, &h.n_audio_layer,
        &h.n_text_ctx, &h.n_text_state, &h.n_text_head, &h.n_text_layer, &h.n_mels, &h.ftype}) {
    ZEST_RETURN_IF_ERROR(ReadI32(*field, "hparams"));
  }
  for (int32_t v : {h.n_vocab, h.n_audio_ctx, h.n_audio_state, h.n_audio_head, h.n_text_ctx,
                    h.n_text_state, h.n_text_head, h.n_mels}) {
    if (v <= 0) return InvalidArgument("whisper model has a non-positive hyperparameter");
  }
  if (h.n_audio_layer < 0 || h.n_text_layer < 0 || h.ftype < 0) {
    return InvalidArgument("whisper model has a negative layer count or ftype");
  }
  return Status::Ok();
}

Status WhisperParser::ReadFilters(WhisperFile& file) {
  ZEST_RETURN_IF_ERROR(ReadI32(file.mel_bands, "mel filters"));
  ZEST_RETURN_IF_ERROR(ReadI32(file.fft_bins, "mel filters"));
  if (file.mel_bands <= 0 || file.fft_bins <= 0 ||
      static_cast<uint64_t>(file.mel_bands) * static_cast<uint64_t>(file.fft_bins) >
          kMaxWhisperFilterValues) {
    return InvalidArgument("whisper model has an implausible mel filter bank " +
                           std::to_string(file.mel_bands) + " x " + std::to_string(file.fft_bins));
  }
  const uint64_t values = static_cast<uint64_t>(file.mel_bands) * file.fft_bins;
  return Skip(values * sizeof(float), "mel filters");
}

Status WhisperParser::ReadVocab(WhisperFile& file) {
  int32_t count = 0;
  ZEST_RETURN_IF_ERROR(ReadI32(count, "vocabulary"));
  if (count < 0 || static_cast<uint64_t>(count) > kMaxWhisperVocab) {
    return InvalidArgument("whisper model declares " + std::to_string(count) + " tokens");
  }
  for (int32_t i = 0; i < count; ++i) {
    uint32_t length = 0;
    ZEST_RETURN_IF_ERROR(Read(&length, sizeof length, "vocabulary"));
    if (length > kMaxTokenLength) {
      return InvalidArgument("whisper token " + std::to_string(i) + " is " +
                             std::to_string(length) + " bytes long");
    }
    ZEST_RETURN_IF_ERROR(Skip(length, "vocabulary"));
  }
  file.vocab_count = static_cast<uint64_t>(count);
  return Status::Ok();
}

Status WhisperParser::ReadTensor(WhisperTensorInfo& tensor) {
  int32_t n_dims = 0, name_length = 0, type = 0;
  ZEST_RETURN_IF_ERROR(ReadI32(n_dims, "tensor header"));
  ZEST_RETURN_IF_ERROR(ReadI32(name_length, "tensor header"));
  ZEST_RETURN_IF_ERROR(ReadI32(type, "tensor header"));
  if (n_dims < 1 || n_dims > kMaxDims) {
    return InvalidArgument("whisper tensor with " + std::to_string(n_dims) + " dimensions");
  }
  if (name_length <= 0 || static_cast<uint32_t>(name_length) > kMaxNameLength || type < 0) {
    return InvalidArgument("whisper tensor header is damaged");
  }
  for (int32_t i = 0; i < n_dims; ++i) {
    int32_t ne = 0;
    ZEST_RETURN_IF_ERROR(ReadI32(ne, "tensor header"));
    if (ne <= 0) return InvalidArgument("whisper tensor with a non-positive dimension");
    tensor.dims.push_back(static_cast<uint64_t>(ne));
  }
  tensor.name.resize(static_cast<size_t>(name_length));
  ZEST_RETURN_IF_ERROR(Read(tensor.name.data(), tensor.name.size(), "tensor name"));
  tensor.type = static_cast<uint32_t>(type);
  Result<uint64_t> bytes = TensorByteSize(tensor.type, tensor.dims);
  if (!bytes.ok()) {
    return InvalidArgument("whisper tensor '" + tensor.name + "': " + bytes.status().message());
  }
  tensor.bytes = *bytes;
  tensor.offset = source_.Position();
  return Skip(tensor.bytes, "tensor data");
}

Result<WhisperFile> WhisperParser::Parse() {
  WhisperFile file;
  file.file_size = source_.Size();
  uint32_t magic = 0;
  ZEST_RETURN_IF_ERROR(Read(&magic, sizeof magic, "magic"));
  if (magic != kGgmlFileMagic) return InvalidArgument("not a ggml model file (bad magic)");
  ZEST_RETURN_IF_ERROR(ReadHparams(file.hparams));
  ZEST_RETURN_IF_ERROR(ReadFilters(file));
  ZEST_RETURN_IF_ERROR(ReadVocab(file));
  // Like whisper.cpp, tensors run to the end of the file.
  while (source_.Remaining() > 0) {
    if (file.tensors.size() >= kMaxWhisperTensors) {
      return InvalidArgument("whisper model has too many tensors");
    }
    ZEST_RETURN_IF_ERROR(ReadTensor(file.tensors.emplace_back()));
  }
  // whisper.cpp accepts a file without tensors (its test mode); as a model
  // to serve it is a truncated download.
  if (file.tensors.empty()) return InvalidArgument("whisper model has no tensors");
  return file;
}

}  // namespace

uint64_t WhisperFile::ParameterCount() const {
  uint64_t count = 0;
  for (const WhisperTensorInfo& t : tensors) {
    uint64_t elements = 1;
    for (uint64_t d : t.dims) elements *= d;
    count += elements;
  }
  return count;
}

const WhisperTensorInfo* WhisperFile::FindTensor(std::string_view name) const {
  for (const WhisperTensorInfo& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

Result<WhisperFile> ReadWhisperFile(const std::filesystem::path& path) {
  ZEST_ASSIGN_OR_RETURN(std::unique_ptr<FileSource> source, FileSource::Open(path));
  Result<WhisperFile> file = WhisperParser(*source).Parse();
  if (!file.ok()) {
    return Status(file.status().code(), path.string() + ": " + file.status().message());
  }
  return file;
}

Result<WhisperFile> ParseWhisperFile(std::string_view bytes) {
  MemorySource source(bytes);
  return WhisperParser(source).Parse();
}

bool HasGgmlMagic(const std::filesystem::path& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  uint32_t magic = 0;
  const bool read = std::fread(&magic, sizeof magic, 1, f) == 1;
  std::fclose(f);
  return read && magic == kGgmlFileMagic;
}

ModelInfo DescribeWhisper(const WhisperFile& file) {
  ModelInfo info;
  info.architecture = "whisper";
  info.speech = true;
  info.file_size = file.file_size;
  info.parameter_count = file.ParameterCount();
  for (const WhisperTensorInfo& t : file.tensors) info.tensor_bytes += t.bytes;
  const WhisperHparams& h = file.hparams;
  info.context_length = static_cast<uint64_t>(std::max(h.n_text_ctx, 0));
  info.embedding_length = static_cast<uint64_t>(std::max(h.n_text_state, 0));
  info.block_count = static_cast<uint64_t>(std::max(h.n_audio_layer + h.n_text_layer, 0));
  info.head_count = static_cast<uint64_t>(std::max(h.n_text_head, 0));
  info.vocab_size = static_cast<uint64_t>(std::max(h.n_vocab, 0));
  info.file_type = FileTypeName(static_cast<uint64_t>(h.ftype % 1000));
  return info;
}

}  // namespace zest::models
