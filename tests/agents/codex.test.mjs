// Codex CLI (@openai/codex, pinned in package.json), unchanged, headless
// (`codex exec`) in an empty HOME against zest's Responses API as a custom
// provider, through the recording proxy (lib/agents.mjs says what the test
// asks of every client). Codex has no tool that only reads a file: the
// model runs `cat` with exec_command, which Codex runs in its own
// read-only sandbox (bubblewrap, nested in the test's).
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_HOME, AGENT_URL, CODER_CONTEXT, READ_PATH, describeAgent, exchanges, launched, modules } from './lib/agents.mjs';

const codex = path.join(modules, '@openai/codex/bin/codex.js');

// What the turn needs of Codex that is not about zest: no approvals, its
// own read-only sandbox, no update check or analytics.
const settings = [
  'approval_policy = "never"',
  'sandbox_mode = "read-only"',
  'check_for_update_on_startup = false',
  '[analytics]',
  'enabled = false',
];
const args = ['exec', '--skip-git-repo-check', '--ephemeral', '--json', 'Read a.txt and say its first line.'];

const spec = {
  pkg: '@openai/codex',
  exchange: exchanges.responses,
  read: { name: 'exec_command', args: { cmd: `cat ${READ_PATH}` } },
  // Its output names the command's exit status; anything but 0 is a failure.
  failed: ({ text }) => !/^Process exited with code 0$/m.test(text),
  // Its JSON lines: the last agent_message item holds the final text.
  answer: (stdout) => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line))
    .filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message').at(-1)?.item.text,
};

describeAgent('Codex CLI', {
  ...spec,
  run: ({ home, client }) => {
    fs.mkdirSync(path.join(home, '.codex'));
    // A custom provider as Codex's docs describe one; no retries, so a
    // refused request shows as a failure rather than a second try.
    fs.writeFileSync(path.join(home, '.codex', 'config.toml'), [
      'model = "coder"',
      // The model's context_window from /v1/models, as docs/api.md says to
      // set it (Codex has no metadata for a model it does not know).
      `model_context_window = ${CODER_CONTEXT}`,
      'model_provider = "zest"',
      ...settings.slice(0, 3),
      '[model_providers.zest]',
      'name = "zest"',
      `base_url = "${AGENT_URL}/v1"`,
      'env_key = "ZEST_API_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      ...settings.slice(3),
      '',
    ].join('\n'));
    return client([process.execPath, codex, ...args], {
      env: { HOME: AGENT_HOME, CODEX_HOME: `${AGENT_HOME}/.codex`, ZEST_API_KEY: 'unused' },
    });
  },
});

// The same turn, the client pointed at zest by `zest launch codex` (its
// provider as -c overrides); the test's own settings in config.toml and,
// for the provider zest launch defines, no retries.
describeAgent('Codex CLI, started by zest launch', {
  ...spec,
  run: ({ home, client }) => {
    fs.mkdirSync(path.join(home, '.codex'));
    fs.writeFileSync(path.join(home, '.codex', 'config.toml'), [...settings, ''].join('\n'));
    const { argv, env } = launched('codex', ['-c', 'model_providers.zest.request_max_retries=0',
      '-c', 'model_providers.zest.stream_max_retries=0', ...args]);
    return client(argv, { env });
  },
});
