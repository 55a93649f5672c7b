// Test helpers around Debian's prometheus package: promtool, and a real
// Prometheus server on a free port with a generated config, scraping zest.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

// Runs promtool with `args` (and `input` on stdin); resolves to
// {code, stdout, stderr} whatever the exit code.
export function promtool(args, input) {
  return new Promise((resolve, reject) => {
    const child = execFile('promtool', args, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
    if (input !== undefined) child.stdin.end(input);
  });
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Starts `prometheus` scraping `target` ("host:port") every `interval`;
// resolves once its readiness endpoint answers.
export async function startPrometheus(target, { interval = '1s' } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-test-prom-'));
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), [
    'global:',
    `  scrape_interval: ${interval}`,
    `  evaluation_interval: ${interval}`,
    'scrape_configs:',
    '  - job_name: zest',
    '    static_configs:',
    `      - targets: ['${target}']`,
    '',
  ].join('\n'));
  const proc = spawn('prometheus', [
    `--config.file=${path.join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${path.join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  proc.stdout.on('data', (d) => output.push(d.toString()));
  proc.stderr.on('data', (d) => output.push(d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`prometheus exited ${proc.exitCode}:\n${output.join('')}`);
    try {
      if ((await fetch(`${url}/-/ready`)).status === 200) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`prometheus not ready:\n${output.join('')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    output,
    // An instant PromQL query through the HTTP API; resolves to the result vector.
    async query(expr) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = await res.json();
      if (body.status !== 'success') throw new Error(`query ${expr}: ${JSON.stringify(body)}`);
      return body.data.result;
    },
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Metric family names a Prometheus text exposition declares (# TYPE lines).
export function exportedFamilies(text) {
  return new Set([...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1]));
}

// One series' value (`name{labels}` exactly as zest writes it) from a
// Prometheus text exposition; 0 when absent, as a counter not yet touched.
export function seriesValue(text, series) {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}
