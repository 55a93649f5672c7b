// What a coding agent's turn on the designed model holds, read from what
// crossed the recording proxy (tests/lib/recording_proxy.mjs) or from a
// recorded fixture: the tool calls the client sent back and their results,
// per API; and the constants of the model (zest-make-model's
// tiny-file-reader, src/tools/file_reader_weights.h) and of the sandbox's
// scratch project (lib/sandbox.mjs) the tests check them against.
import { SCRATCH } from './sandbox.mjs';

// The file the model reads, its first line (lib/agents.mjs's scratch
// project), and what the model answers once it has the file.
export const READ_PATH = `${SCRATCH}/a.txt`;
export const FIRST_LINE = 'first line of a';
export const READER_ANSWER = 'I read the file.';

// The text of a tool result's content: a string, or text parts.
const contentText = (content) => (typeof content === 'string' ? content
  : (Array.isArray(content) ? content : []).map((part) => part.text ?? '').join(''));

// Every distinct item `pick(request)` gives over the requests of `route`,
// first seen first (each request carries the whole turn so far).
function distinct(requests, route, pick) {
  const seen = new Map();
  for (const r of requests.filter((x) => x.method === 'POST' && route.test(x.path))) {
    for (const item of pick(r.body ?? {})) if (!seen.has(item.id)) seen.set(item.id, item);
  }
  return [...seen.values()];
}

const parseArgs = (text) => { try { return JSON.parse(text); } catch { return text; } };

// Each API's tool calls the client sent back (the model's, as the client
// understood them: {id, name, args}) and its tool results ({id, text,
// isError}), from what crossed the proxy.
export const exchanges = {
  // Anthropic Messages: tool_use and tool_result blocks.
  messages: (requests) => {
    const route = /^\/v1\/messages(\?|$)/;
    const blocks = (body) => (Array.isArray(body.messages) ? body.messages : [])
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    return {
      calls: distinct(requests, route, (b) => blocks(b).filter((x) => x.type === 'tool_use')
        .map((x) => ({ id: x.id, name: x.name, args: x.input }))),
      results: distinct(requests, route, (b) => blocks(b).filter((x) => x.type === 'tool_result')
        .map((x) => ({ id: x.tool_use_id, text: contentText(x.content), isError: x.is_error === true }))),
    };
  },
  // The Responses API: function_call and function_call_output items.
  responses: (requests) => {
    const route = /^\/v1\/responses(\?|$)/;
    const items = (body) => (Array.isArray(body.input) ? body.input : []);
    return {
      calls: distinct(requests, route, (b) => items(b).filter((x) => x.type === 'function_call')
        .map((x) => ({ id: x.call_id, name: x.name, args: parseArgs(x.arguments) }))),
      results: distinct(requests, route, (b) => items(b).filter((x) => x.type === 'function_call_output')
        .map((x) => ({ id: x.call_id, text: contentText(x.output), isError: false }))),
    };
  },
  // OpenAI chat: an assistant message's tool_calls, `tool` messages.
  chat: (requests) => {
    const route = /^\/v1\/chat\/completions(\?|$)/;
    const messages = (body) => (Array.isArray(body.messages) ? body.messages : []);
    return {
      calls: distinct(requests, route, (b) => messages(b).flatMap((m) => m.tool_calls ?? [])
        .map((c) => ({ id: c.id, name: c.function?.name, args: parseArgs(c.function?.arguments) }))),
      results: distinct(requests, route, (b) => messages(b).filter((m) => m.role === 'tool')
        .map((m) => ({ id: m.tool_call_id, text: contentText(m.content), isError: false }))),
    };
  },
};
