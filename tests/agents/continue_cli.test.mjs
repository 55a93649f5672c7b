// Continue's CLI (`cn`, @continuedev/cli, pinned in package.json),
// unchanged, headless (`cn -p`) in an empty HOME against zest's chat API
// as an OpenAI provider in a config file, through the recording proxy
// (lib/agents.mjs says what the test asks of every client).
import fs from 'node:fs';
import path from 'node:path';
import { CODER_CONTEXT, chatToolResults, describeAgent, modules, runClient } from './lib/agents.mjs';

const cn = path.join(modules, '@continuedev/cli/dist/cn.js');

describeAgent('Continue CLI', {
  pkg: '@continuedev/cli',
  run: ({ proxy, home, work }) => {
    const config = path.join(home, 'zest.yaml');
    fs.writeFileSync(config, [
      'name: zest',
      'version: 1.0.0',
      'schema: v1',
      'models:',
      '  - name: zest',
      '    provider: openai',
      '    model: coder',
      `    apiBase: ${proxy.url}/v1`,
      '    apiKey: unused',
      '    roles: [chat, edit, apply]',
      '    capabilities: [tool_use]',
      `    defaultCompletionOptions: { maxTokens: 2048, contextLength: ${CODER_CONTEXT} }`,
      '',
    ].join('\n'));
    return runClient([process.execPath, cn, '-p', '--auto', '--config', config, 'List the files here, then read a.txt.'], {
      cwd: work,
      env: { HOME: home, FORCE_NO_TTY: 'true', CONTINUE_METRICS_ENABLED: '0', CONTINUE_CLI_ENABLE_TELEMETRY: '0' },
    });
  },
  toolResults: chatToolResults,
});
