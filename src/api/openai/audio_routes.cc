// OpenAiApi's speech-to-text routes: POST /v1/audio/transcriptions and
// /v1/audio/translations (OpenAI's shape: a multipart form with `file`,
// `model`, `language`, `prompt`, `temperature`, `response_format`,
// `timestamp_granularities[]`). The form is checked here; the engine is
// asked in its own shape by its adapter (engines/engine_adapter.h), through
// the same admission, keep-alive, retries and metrics as chat.
#include <cstdlib>
#include <optional>

#include "api/openai/audio_format.h"
#include "api/openai/openai_api.h"
#include "api/openai/transcript_format.h"
#include "api/request/errors.h"
#include "engines/audio_converter.h"
#include "http/multipart.h"
#include "relay/engine_relay.h"

namespace zest::api::openai {
namespace {

namespace asio = boost::asio;
using asio::awaitable;

// OpenAI's own limit on an audio upload.
constexpr std::size_t kMaxAudioBytes = 25ull * 1024 * 1024;

struct AudioForm {
  std::string model;
  engines::TranscriptionJob job;
  TranscriptOptions options;
  std::string priority;
};

// The form's fields, checked. `*param` names the bad one.
Result<AudioForm> ParseAudioForm(const http::Request& r, bool translate, std::string* param) {
  *param = "file";
  ZEST_ASSIGN_OR_RETURN(std::string boundary, http::FormBoundary(r.Header("Content-Type")));
  ZEST_ASSIGN_OR_RETURN(std::vector<http::FormPart> parts, http::ParseForm(r.body, boundary));
  AudioForm form;
  const http::FormPart* file = http::FindPart(parts, "file");
  if (file == nullptr || file->data.empty())
    return InvalidArgument("`file` (the audio) is required");
  if (file->data.size() > kMaxAudioBytes) {
    return Status(ErrorCode::kTooLarge, "the audio file is over 25 MB");
  }
  form.job.audio = file->data;
  form.job.filename = file->filename;
  *param = "model";
  const http::FormPart* model = http::FindPart(parts, "model");
  if (model == nullptr || model->data.empty()) return InvalidArgument("`model` is required");
  form.model = model->data;
  form.job.translate = translate;
  form.options.translate = translate;
  if (const http::FormPart* language = http::FindPart(parts, "language"); language && !translate) {
    *param = "language";
    form.job.language = language->data;
  }
  if (const http::FormPart* prompt = http::FindPart(parts, "prompt"))
    form.job.prompt = prompt->data;
  if (const http::FormPart* temperature = http::FindPart(parts, "temperature")) {
    *param = "temperature";
    char* end = nullptr;
    double t = std::strtod(temperature->data.c_str(), &end);
    if (temperature->data.empty() || *end != '\0' || !(t >= 0 && t <= 1)) {
      return InvalidArgument("temperature must be a number from 0 to 1");
    }
    form.job.temperature = t;
  }
  *param = "response_format";
  const http::FormPart* format = http::FindPart(parts, "response_format");
  ZEST_ASSIGN_OR_RETURN(form.options.format, ParseTranscriptFormat(format ? format->data : ""));
  *param = "timestamp_granularities";
  bool granularities = false;
  for (const http::FormPart& part : parts) {
    if (part.name != "timestamp_granularities[]" && part.name != "timestamp_granularities") {
      continue;
    }
    if (!granularities) form.options.segments = false;
    granularities = true;
    if (part.data == "word") {
      form.options.words = true;
    } else if (part.data == "segment") {
      form.options.segments = true;
    } else {
      return InvalidArgument("timestamp_granularities[] must be word or segment");
    }
  }
  if (granularities && form.options.format != TranscriptFormat::kVerboseJson) {
    return InvalidArgument("timestamp_granularities needs response_format verbose_json");
  }
  if (const http::FormPart* stream = http::FindPart(parts, "stream");
      stream && stream->data == "true") {
    *param = "stream";
    return InvalidArgument("streamed transcription is not supported; send stream=false");
  }
  if (const http::FormPart* priority = http::FindPart(parts, "priority")) {
    form.priority = priority->data;
  }
  param->clear();
  return form;
}

std::string Mib(uint64_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20); }

std::string AudioMemoryFull(const ByteBudget& budget, uint64_t bytes) {
  return "the audio of the speech-to-text requests in progress holds " + Mib(budget.held()) +
         " MiB; this one's " + Mib(bytes) + " MiB would pass the " + Mib(budget.limit()) +
         " MiB they may hold at once (limits.max_audio_memory_mb); retry later";
}

}  // namespace

awaitable<void> OpenAiApi::Transcribe(bool translate, http::Request& r, http::ResponseWriter& w) {
  relay::RequestObserver observer(metrics_, relay::Api::kOpenAi,
                                  translate ? "translations" : "transcriptions", "", r.principal);
  co_await TranscribeRoute(translate, r, w, observer);
  observer.Finish(w);
}

// The upload's length checked before the request queues (the engine's slot
// is not held while ffmpeg runs): a plain 16 kHz mono WAV by its size, any
// other format decoded by ffmpeg under the limit (engines/audio_converter.h)
// and sent on as that WAV. MP3, FLAC and Ogg Vorbis went to the engine as
// they came, unmeasured: 60 KB of FLAC silence lasted 300 s with a 60 s
// limit (issue 52, 2). Without ffmpeg only a plain WAV is taken.
awaitable<Status> OpenAiApi::ConvertAudio(engines::TranscriptionJob& job) {
  const engines::EngineSet* set = engines_.engines;
  const engines::AudioConverter* converter = set ? set->audio_converter() : nullptr;
  const std::optional<double> seconds = engines::PlainWavSeconds(job.audio);
  const bool plain = seconds.has_value();
  if (converter == nullptr) {  // no engines configured: only a plain WAV, measured
    if (plain && *seconds > engines::kDefaultMaxAudioSeconds) {
      co_return Status(ErrorCode::kTooLarge, "the audio is too long (limits.max_audio_s)");
    }
    co_return CheckAudioFormat(job.audio);
  }
  if (!plain && !converter->Available().ok()) co_return CheckAudioFormat(job.audio);
  std::string audio = std::move(job.audio);  // named: no temporaries in co_await
  Result<std::string> wav = co_await converter->Bounded(std::move(audio));
  if (!wav.ok()) co_return wav.status();
  job.audio = std::move(*wav);
  if (!plain) job.filename += ".wav";
  co_return Status::Ok();
}

awaitable<void> OpenAiApi::TranscribeRoute(bool translate, http::Request& r,
                                           http::ResponseWriter& w,
                                           relay::RequestObserver& observer) {
  std::string param;
  auto form = ParseAudioForm(r, translate, &param);
  if (!form.ok()) co_return co_await SendError(w, form.status(), param);
  r.body.clear();  // the job holds the audio now
  auto model = FindModelOfKind(form->model, &models::ModelInfo::speech,
                               "a speech-to-text model (a whisper.cpp model file)", observer);
  if (!model.ok()) co_return co_await SendError(w, model.status(), "model");
  if (Status converted = co_await ConvertAudio(form->job); !converted.ok()) {
    co_return co_await SendError(w, converted, "file");
  }
  // Counted until the engine has answered: queued requests hold their audio.
  std::optional<ByteBudget::Lease> held = audio_memory_.TryTake(form->job.audio.size());
  if (!held) {
    observer.OnRejected("audio_memory");
    const Status busy(ErrorCode::kQueueFull,
                      AudioMemoryFull(audio_memory_, form->job.audio.size()));
    const http::Headers retry = {{"Retry-After", "1"}};  // named: no temporaries in co_await
    co_return co_await SendError(w, busy, "file", retry);
  }
  auto relay = EngineJob(r, *model, form->model, form->priority, observer);
  if (!relay.ok()) co_return co_await SendError(w, relay.status(), "priority");
  relay->to_engine = [job = std::move(form->job)](const engines::EngineAdapter& engine) {
    return engine.TranscriptionCall(job);
  };
  const TranscriptOptions options = form->options;
  relay->from_engine = [options, &observer](const engines::EngineAdapter& engine, int status,
                                            const std::string& body) -> Result<relay::ApiAnswer> {
    ZEST_ASSIGN_OR_RETURN(engines::Transcript transcript, engine.ReadTranscript(status, body));
    observer.OnAudio(transcript.duration);
    FormattedTranscript out = FormatTranscript(transcript, options);
    return relay::ApiAnswer{200, std::move(out.content_type), std::move(out.body)};
  };
  co_await relay::RelayToEngine(engines_, std::move(*relay), w);
}

}  // namespace zest::api::openai
