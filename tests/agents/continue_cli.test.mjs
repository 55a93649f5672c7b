// Continue's CLI (`cn`, @continuedev/cli, pinned in package.json),
// unchanged, headless (`cn -p`) in an empty HOME against zest's chat API
// as an OpenAI provider in a config file, through the recording proxy
// (lib/agents.mjs says what the test asks of every client).
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_HOME, AGENT_URL, CODER_CONTEXT, READ_PATH, describeAgent, exchanges, launched, modules } from './lib/agents.mjs';

const cn = path.join(modules, '@continuedev/cli/dist/cn.js');

const args = ['-p', '--auto', '--format', 'json', 'Read a.txt and say its first line.'];
const quiet = { FORCE_NO_TTY: 'true', CONTINUE_METRICS_ENABLED: '0', CONTINUE_CLI_ENABLE_TELEMETRY: '0' };

const spec = {
  pkg: '@continuedev/cli',
  exchange: exchanges.chat,
  read: { name: 'Read', args: { filepath: READ_PATH } },
  // A result it read has this shape; a failure is "Error executing tool
  // Read: ..." instead.
  failed: ({ text }) => !text.startsWith(`Content of ${READ_PATH}:\n`),
  // Its JSON output (--format json): one object, the final text in
  // `response` (wrapped so when the text is not JSON itself).
  answer: (stdout) => {
    const out = JSON.parse(stdout);
    return out.status === 'success' ? out.response : `not a success: ${stdout}`;
  },
};

describeAgent('Continue CLI', {
  ...spec,
  run: ({ home, client }) => {
    fs.writeFileSync(path.join(home, 'zest.yaml'), [
      'name: zest',
      'version: 1.0.0',
      'schema: v1',
      'models:',
      '  - name: zest',
      '    provider: openai',
      '    model: coder',
      `    apiBase: ${AGENT_URL}/v1`,
      '    apiKey: unused',
      '    roles: [chat, edit, apply]',
      '    capabilities: [tool_use]',
      `    defaultCompletionOptions: { maxTokens: 2048, contextLength: ${CODER_CONTEXT} }`,
      '',
    ].join('\n'));
    return client([process.execPath, cn, '--config', `${AGENT_HOME}/zest.yaml`, ...args], {
      env: { HOME: AGENT_HOME, ...quiet },
    });
  },
});

// The same turn, the client pointed at zest by `zest launch continue` (its
// config file written by zest launch).
describeAgent('Continue CLI, started by zest launch', {
  ...spec,
  run: ({ client }) => {
    const { argv, env } = launched('continue', args, quiet);
    return client(argv, { env });
  },
});
