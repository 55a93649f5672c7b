// Memory prediction accuracy: for synthetic models of five shapes and
// context sizes, the placement ledger's prediction (GET /api/v1/ps,
// placement.predicted_total_bytes) against the engine's measured resident
// memory (measured_rss_bytes: VmRSS of the engine's process tree) after a
// load and one short generation. CPU only (this machine has no GPU), so the
// engine's device memory is its RSS. Appends a table to bench/RESULTS.md.
// Usage: node bench/placement_accuracy.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chatBody, makeHome, repo, startZest, syntheticModel } from '../tests/lib/zest.mjs';

const shapes = [
  { name: 'tiny', preset: 'tiny', args: [], ctx: 2048, parallel: 4 },
  { name: 'small', preset: 'small', args: [], ctx: 4096, parallel: 4 },
  { name: 'wide-f16', preset: 'tiny',
    args: ['--layers', '8', '--embedding', '512', '--heads', '8', '--kv-heads', '2', '--ff', '1536',
           '--type', 'f16', '--context', '8192'], ctx: 8192, parallel: 1 },
  { name: 'deep-q8', preset: 'tiny',
    args: ['--layers', '16', '--embedding', '768', '--heads', '12', '--kv-heads', '4', '--ff', '2048',
           '--type', 'q8_0', '--context', '16384'], ctx: 16384, parallel: 2 },
  { name: 'bench-0.5B', preset: 'bench', args: [], ctx: 4096, parallel: 4 },
];

const mib = (b) => (b / 2 ** 20).toFixed(1);
const rows = [];
for (const s of shapes) {
  const file = syntheticModel(s.preset, s.args);
  const home = makeHome({ m: file });
  fs.writeFileSync(path.join(home, 'config.toml'),
    `[models."m"]\nctx_size = ${s.ctx}\nparallel = ${s.parallel}\n`);
  const zest = await startZest({ home });
  try {
    const r = await zest.json('/v1/chat/completions', chatBody('m', { max_tokens: 8 }));
    if (r.status !== 200) throw new Error(`${s.name}: ${JSON.stringify(r.data)}`);
    const ps = (await zest.json('/api/v1/ps')).data.instances[0];
    const predicted = ps.placement.predicted_total_bytes;
    const measured = ps.measured_rss_bytes;
    const cpu = ps.placement.predicted_bytes.CPU;
    rows.push({ ...s, size: fs.statSync(file).size, predicted, measured, cpu,
                error: (predicted - measured) / measured * 100 });
    console.log(`${s.name}: predicted ${mib(predicted)} MiB, measured ${mib(measured)} MiB`);
  } finally {
    await zest.stop();
    zest.cleanup();
  }
}

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
const cpuName = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.*)/) ?? [])[1];
const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
let md = `\n## ${date} UTC — memory prediction accuracy — ${os.hostname()}: ${cpuName}, ` +
  `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB — commit ${commit}\n\n` +
  'Synthetic models on the CPU (llama-server in the rootfs, mmap, f16 KV); predicted = the ' +
  'ledger\'s total for the plan, measured = VmRSS of the engine\'s process tree after load and ' +
  'one 8-token chat. Target: |error| ≤ 10%.\n\n' +
  '| model | file MiB | ctx × slots | weights | KV | compute | overhead | predicted MiB | measured MiB | error |\n' +
  '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n';
for (const r of rows) {
  md += `| ${r.name} | ${mib(r.size)} | ${r.ctx} × ${r.parallel} | ${mib(r.cpu.weights)} | ` +
    `${mib(r.cpu.kv_cache)} | ${mib(r.cpu.compute)} | ${mib(r.cpu.overhead)} | ${mib(r.predicted)} | ` +
    `${mib(r.measured)} | ${r.error >= 0 ? '+' : ''}${r.error.toFixed(1)}% |\n`;
}
fs.appendFileSync(path.join(repo, 'bench/RESULTS.md'), md);
console.log(md);
