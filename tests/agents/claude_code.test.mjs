// Claude Code (@anthropic-ai/claude-code, pinned in package.json),
// unchanged, headless (`claude -p`) in an empty HOME against zest's
// Messages API (ANTHROPIC_BASE_URL), through the recording proxy
// (lib/agents.mjs says what the test asks of every client). It sent every
// turn twice while zest refused its system messages.
import path from 'node:path';
import { CODER_CONTEXT, describeAgent, modules, runClient } from './lib/agents.mjs';

const claude = path.join(modules, '@anthropic-ai/claude-code/bin/claude.exe');
const model = 'coder';

describeAgent('Claude Code', {
  pkg: '@anthropic-ai/claude-code',
  run: ({ proxy, home, work }) => runClient([claude, '-p', 'List the files here with your tools, then read a.txt.',
    '--output-format', 'json', '--max-turns', '4', '--allowedTools', 'Read,Glob,Grep,LS', '--model', model], {
    cwd: work,
    env: {
      HOME: home,
      ANTHROPIC_BASE_URL: proxy.url,
      ANTHROPIC_AUTH_TOKEN: 'unused',
      // Every model it may ask for is zest's (side calls name Claude models
      // otherwise), with the context window zest serves.
      ANTHROPIC_MODEL: model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      ANTHROPIC_DEFAULT_SONNET_MODEL: model,
      ANTHROPIC_DEFAULT_OPUS_MODEL: model,
      CLAUDE_CODE_SUBAGENT_MODEL: model,
      CLAUDE_CODE_MAX_CONTEXT_TOKENS: String(CODER_CONTEXT),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    },
  }),
  toolResults: (requests) => requests
    .filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages') && !r.path.includes('count_tokens'))
    .flatMap((r) => (Array.isArray(r.body?.messages) ? r.body.messages : []))
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((block) => block.type === 'tool_result'),
});
