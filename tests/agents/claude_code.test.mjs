// Claude Code (@anthropic-ai/claude-code, pinned in package.json),
// unchanged, headless (`claude -p`) in an empty HOME against zest's
// Messages API (ANTHROPIC_BASE_URL), through the recording proxy
// (lib/agents.mjs says what the test asks of every client). It sent every
// turn twice while zest refused its system messages.
import path from 'node:path';
import { AGENT_URL, CODER_CONTEXT, READ_PATH, describeAgent, exchanges, launched, modules } from './lib/agents.mjs';

const claude = path.join(modules, '@anthropic-ai/claude-code/bin/claude.exe');
const model = 'coder';

const args = ['-p', 'Read a.txt and say its first line.',
  '--output-format', 'json', '--max-turns', '4', '--allowedTools', 'Read,Glob,Grep,LS', '--model', model];
const quiet = { DISABLE_AUTOUPDATER: '1', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1' };

const spec = {
  pkg: '@anthropic-ai/claude-code',
  exchange: exchanges.messages,
  read: { name: 'Read', args: { file_path: READ_PATH } },
  // Its JSON output: one object, the final text in `result`.
  answer: (stdout) => {
    const out = JSON.parse(stdout);
    return out.is_error === false ? out.result : `an error: ${stdout}`;
  },
};

describeAgent('Claude Code', {
  ...spec,
  run: ({ client }) => client([claude, ...args], {
    env: {
      ANTHROPIC_BASE_URL: AGENT_URL,
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
      ...quiet,
    },
  }),
});

// The same turn, the client pointed at zest by `zest launch claude`.
describeAgent('Claude Code, started by zest launch', {
  ...spec,
  run: ({ client }) => {
    const { argv, env } = launched('claude', args, quiet);
    return client(argv, { env });
  },
});
