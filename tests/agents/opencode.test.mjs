// opencode (opencode-ai, pinned in package.json), unchanged, headless
// (`opencode run`) in an empty HOME against zest's chat API as an
// OpenAI-compatible provider, through the recording proxy (lib/agents.mjs
// says what the test asks of every client).
import path from 'node:path';
import { AGENT_HOME, AGENT_URL, CODER_CONTEXT, READ_PATH, describeAgent, exchanges, launched, modules } from './lib/agents.mjs';

const opencode = path.join(modules, 'opencode-ai/bin/opencode.exe');

const args = ['run', '-m', 'zest/coder', '--format', 'json', 'Read a.txt and say its first line.'];
// No network but zest: no model list, updates, plugins or LSP downloads.
const quiet = {
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_CLAUDE_CODE: '1',
};

const spec = {
  pkg: 'opencode-ai',
  exchange: exchanges.chat,
  read: { name: 'read', args: { filePath: READ_PATH } },
  // A file it read comes back in this shape; a failure is the error's
  // message alone ("File not found: ...").
  failed: ({ text }) => !text.startsWith(`<path>${READ_PATH}</path>\n<type>file</type>\n<content>`),
  // Its JSON lines (--format json): the last `text` part is the final text.
  answer: (stdout) => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line))
    .filter((e) => e.type === 'text').at(-1)?.part.text,
};

describeAgent('opencode', {
  ...spec,
  run: ({ client }) => {
    const config = {
      $schema: 'https://opencode.ai/config.json',
      model: 'zest/coder',
      small_model: 'zest/coder',
      share: 'disabled',
      autoupdate: false,
      provider: {
        zest: {
          npm: '@ai-sdk/openai-compatible',
          name: 'zest',
          options: { baseURL: `${AGENT_URL}/v1`, apiKey: 'unused' },
          models: { coder: { name: 'coder', tool_call: true, limit: { context: CODER_CONTEXT, output: 4096 } } },
        },
      },
    };
    return client([opencode, ...args], {
      env: { HOME: AGENT_HOME, OPENCODE_CONFIG_CONTENT: JSON.stringify(config), ...quiet },
    });
  },
});

// The same turn, the client pointed at zest by `zest launch opencode`.
describeAgent('opencode, started by zest launch', {
  ...spec,
  run: ({ client }) => {
    const { argv, env } = launched('opencode', args, quiet);
    return client(argv, { env });
  },
});
