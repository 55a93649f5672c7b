// The session a request belongs to, as its client says it, made into the key
// the dispatcher keeps a conversation on one replica by
// (scheduler/session_affinity.h). Each API reads its own body field into
// ChatRequest::session (OpenAI chat and Responses: prompt_cache_key;
// Responses also the first id of a previous_response_id chain; Anthropic:
// metadata.user_id); the X-Session-Id header, which any API's client may
// send, comes before them. A request that names none is known by its
// conversation's opening when that is long enough for its cache to matter
// (OpeningSession); else it has no session.
//
// Sessions are scoped by the API key: the key is a hash of the key's name
// (the request's principal) and the session, so one key's session can never
// steer, or be steered by, another key's of the same name. Pure.
#pragma once

#include <string>
#include <string_view>

#include "engines/chat_request.h"
#include "http/request.h"

namespace zest::api {

// The header a client of any API names its session by.
inline constexpr std::string_view kSessionHeader = "X-Session-Id";

// The session `request` names: its X-Session-Id header, else `body_session`
// (the API's own field); "" for none.
std::string_view ClientSession(const http::Request& request, std::string_view body_session);

// The session of a request that names none: a digest of its conversation's
// opening, the messages up to and including the first user turn (a text
// completion's: its prompt's first 4 KiB). Every turn of a conversation
// repeats its opening, so its turns share the session; conversations that
// open alike share one, as they share that prefix in the engine's cache.
// "" when the opening is under kOpeningSessionMinBytes (about the 256
// tokens below which the session tier keeps nothing: reading it again is as
// quick as a restore), and for embeddings or a list of prompts.
inline constexpr std::size_t kOpeningSessionMinBytes = 1024;
std::string OpeningSession(const engines::ChatRequest& chat);

// The dispatcher's key for `session` of `principal` (the API key's name;
// "" without keys): 32 hex digits of SHA-256 over both, "" when `session`
// is empty.
std::string ScopedSessionKey(std::string_view principal, std::string_view session);

}  // namespace zest::api
