#!/usr/bin/env node
// Runs node:test files one after another (as `node --test
// --test-concurrency=1` would), each with the spec reporter on the terminal
// and tests/lib/jsonl_reporter.mjs into OUT_DIR/results.jsonl, then prints
// how long each file took and exits non-zero if any test failed.
//
//   scripts/node-tests.mjs [--out DIR] [--label NAME] FILE...
//
// `make test` uses it for its node stages (integration, browser, compat),
// so that the slow files are named at the end; `make soak` reads the JSONL.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const [, value] = args.splice(i, 2);
  return value;
};
const outDir = option('--out', 'build/test-results');
const label = option('--label', 'tests');
const files = args;
const reporter = path.join(path.dirname(new URL(import.meta.url).pathname), '../tests/lib/jsonl_reporter.mjs');

function runFile(file, jsonl) {
  const argv = ['--test', '--test-concurrency=1', '--test-timeout=300000',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    `--test-reporter=${reporter}`, `--test-reporter-destination=${jsonl}`, file];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

fs.mkdirSync(outDir, { recursive: true });
const results = path.join(outDir, 'results.jsonl');
const rows = [];
for (const file of files) {
  const jsonl = path.join(outDir, `${path.basename(file)}.jsonl`);
  fs.rmSync(jsonl, { force: true });
  const started = process.hrtime.bigint();
  const code = await runFile(file, jsonl);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const lines = fs.existsSync(jsonl) ? fs.readFileSync(jsonl, 'utf8') : '';
  fs.appendFileSync(results, lines);
  const tests = lines.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const count = (s) => tests.filter((t) => t.status === s).length;
  rows.push({ file, seconds, code, pass: count('pass'), fail: count('fail'), skip: count('skip'),
             failures: tests.filter((t) => t.status === 'fail') });
}

const total = rows.reduce((s, r) => s + r.seconds, 0);
console.log(`\n${label}: time per file (slowest first), ${total.toFixed(0)} s in all`);
for (const r of [...rows].sort((a, b) => b.seconds - a.seconds)) {
  const verdict = r.code === 0 ? 'ok' : `FAILED (exit ${r.code})`;
  console.log(`${r.seconds.toFixed(1).padStart(7)} s  ${r.file}  ${r.pass} passed, ${r.fail} failed, ${r.skip} skipped  ${verdict}`);
}
const failed = rows.flatMap((r) => r.failures);
if (failed.length) {
  console.log(`\n${label}: ${failed.length} failed`);
  for (const t of failed) console.log(`  ✖ ${path.relative(process.cwd(), t.file ?? '')} › ${t.name}: ${t.error ?? ''}`);
}
fs.appendFileSync(path.join(outDir, 'times.tsv'), rows.map((r) => `${label}\t${r.file}\t${r.seconds.toFixed(1)}\t${r.code}\n`).join(''));
process.exit(rows.some((r) => r.code !== 0) ? 1 : 0);
