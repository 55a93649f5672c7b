#include "engines/chat_request.h"

#include <algorithm>

namespace zest::engines {

const std::array<RealSampler, 9> kRealSamplers = {{
    {"temperature", &Sampling::temperature},
    {"top_p", &Sampling::top_p},
    {"min_p", &Sampling::min_p},
    {"typical_p", &Sampling::typical_p},
    {"repeat_penalty", &Sampling::repeat_penalty},
    {"presence_penalty", &Sampling::presence_penalty},
    {"frequency_penalty", &Sampling::frequency_penalty},
    {"mirostat_tau", &Sampling::mirostat_tau},
    {"mirostat_eta", &Sampling::mirostat_eta},
}};

const std::array<IntegerSampler, 5> kIntegerSamplers = {{
    {"top_k", &Sampling::top_k},
    {"seed", &Sampling::seed},
    {"repeat_last_n", &Sampling::repeat_last_n},
    {"mirostat", &Sampling::mirostat},
    {"n_keep", &Sampling::n_keep},
}};

bool WantsLogprobs(const ChatRequest& request) {
  for (const char* key : {"logprobs", "top_logprobs", "n_probs"}) {
    auto it = request.extra.find(key);
    if (it == request.extra.end() || it->is_null()) continue;
    if (it->is_boolean() ? it->get<bool>() : !(it->is_number() && it->get<double>() == 0)) {
      return true;
    }
  }
  return false;
}

std::string ChoicesField(const ChatRequest& request) {
  auto n_cmpl = request.extra.find("n_cmpl");
  return n_cmpl != request.extra.end() && !n_cmpl->is_null() ? "n_cmpl" : "n";
}

int64_t Choices(const ChatRequest& request) {
  auto n = request.extra.find(ChoicesField(request));
  if (n == request.extra.end() || n->is_null()) return 1;
  return n->is_number_integer() ? n->get<int64_t>() : 0;
}

int64_t Sequences(const ChatRequest& request) {
  int64_t prompts = 1;
  // A list of prompts (strings or token lists); a list of token ids is one.
  if (request.kind == Capability::kCompletions && request.prompt.is_array() &&
      !request.prompt.empty() && !request.prompt.front().is_number()) {
    prompts = static_cast<int64_t>(request.prompt.size());
  }
  return std::max<int64_t>(Choices(request), 1) * prompts;
}

}  // namespace zest::engines
