// opencode (opencode-ai, pinned in package.json), unchanged, headless
// (`opencode run`) in an empty HOME against zest's chat API as an
// OpenAI-compatible provider, through the recording proxy (lib/agents.mjs
// says what the test asks of every client).
import path from 'node:path';
import { CODER_CONTEXT, chatToolResults, describeAgent, modules, runClient } from './lib/agents.mjs';

const opencode = path.join(modules, 'opencode-ai/bin/opencode.exe');

describeAgent('opencode', {
  pkg: 'opencode-ai',
  run: ({ proxy, home, work }) => {
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
          options: { baseURL: `${proxy.url}/v1`, apiKey: 'unused' },
          models: { coder: { name: 'coder', tool_call: true, limit: { context: CODER_CONTEXT, output: 4096 } } },
        },
      },
    };
    return runClient([opencode, 'run', '-m', 'zest/coder', '--format', 'json', 'List the files here, then read a.txt.'], {
      cwd: work,
      env: {
        HOME: home,
        OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
        // No network but zest: no model list, updates, plugins or LSP downloads.
        OPENCODE_DISABLE_MODELS_FETCH: '1',
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
        OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
        OPENCODE_DISABLE_CLAUDE_CODE: '1',
      },
    });
  },
  toolResults: chatToolResults,
});
