// Codex CLI (@openai/codex, pinned in package.json), unchanged, headless
// (`codex exec`) in an empty HOME against zest's Responses API as a custom
// provider, through the recording proxy (lib/agents.mjs says what the test
// asks of every client).
import fs from 'node:fs';
import path from 'node:path';
import { CODER_CONTEXT, describeAgent, modules, runClient } from './lib/agents.mjs';

const codex = path.join(modules, '@openai/codex/bin/codex.js');

describeAgent('Codex CLI', {
  pkg: '@openai/codex',
  run: ({ proxy, home, work }) => {
    const codexHome = path.join(home, '.codex');
    fs.mkdirSync(codexHome);
    // A custom provider as Codex's docs describe one; no retries, so a
    // refused request shows as a failure rather than a second try.
    fs.writeFileSync(path.join(codexHome, 'config.toml'), [
      'model = "coder"',
      // The model's context_window from /v1/models, as docs/api.md says to
      // set it (Codex has no metadata for a model it does not know).
      `model_context_window = ${CODER_CONTEXT}`,
      'model_provider = "zest"',
      'approval_policy = "never"',
      'sandbox_mode = "read-only"',
      'check_for_update_on_startup = false',
      '[analytics]',
      'enabled = false',
      '[model_providers.zest]',
      'name = "zest"',
      `base_url = "${proxy.url}/v1"`,
      'env_key = "ZEST_API_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n'));
    return runClient([process.execPath, codex, 'exec', '--skip-git-repo-check', '--ephemeral', '--json',
      'List the files here, then read a.txt and say its first line.'], {
      cwd: work, env: { HOME: home, CODEX_HOME: codexHome, ZEST_API_KEY: 'unused' },
    });
  },
  toolResults: (requests) => requests
    .filter((r) => r.method === 'POST' && r.path.startsWith('/v1/responses'))
    .flatMap((r) => (Array.isArray(r.body?.input) ? r.body.input : []))
    .filter((item) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output'),
});
