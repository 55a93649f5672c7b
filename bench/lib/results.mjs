// A benchmark's results: its table appended to bench/RESULTS.md, which
// keeps every quiet run (a later run never rewrites an earlier one's
// numbers), and its headline figures in the current table that opens that
// file (bench/current.json holds them: one row a measure, the latest quiet
// value). A run on a busy machine (quiet.mjs) is printed, marked, and kept
// out of both, unless BENCH_FORCE=1 (then appended marked, still not
// current).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repo } from '../../tests/lib/zest.mjs';

const resultsFile = path.join(repo, 'bench/RESULTS.md');
const currentFile = path.join(repo, 'bench/current.json');
const START = '<!-- current table: written by make bench (bench/lib/results.mjs) -->';
const END = '<!-- end of the current table -->';

export function commit() {
  return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
}

// `lines` (Markdown, one string a line), `verdict` (quiet.mjs), `current`:
// [{measure, value, target}] for the current table (strings).
export function appendResults(lines, { verdict, current = [] } = {}) {
  const out = verdict ? [...lines, '', verdict.line, ''] : lines;
  console.log(out.join('\n'));
  const quiet = verdict?.quiet ?? false;
  if (!quiet && !process.env.BENCH_FORCE) {
    console.log(`\nnot appended to bench/RESULTS.md: ${verdict ? verdict.reasons.join('; ') : 'the machine was not watched'}`);
    return false;
  }
  // Forced on a busy machine: the entry's heading (its first line that is
  // one, after any blank lines) says so.
  const heading = out.findIndex((l) => l.startsWith('#'));
  const marked = quiet || heading < 0 ? out : out.map((l, i) => (i === heading ? `${l} — NOT A MEASUREMENT` : l));
  // A blank line before the entry's heading, whatever the file ended with.
  const text = fs.readFileSync(resultsFile, 'utf8');
  const gap = text === '' || text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
  fs.appendFileSync(resultsFile, gap + marked.join('\n') + '\n');
  if (quiet && current.length) updateCurrent(current);
  return true;
}

function updateCurrent(rows) {
  const table = fs.existsSync(currentFile) ? JSON.parse(fs.readFileSync(currentFile, 'utf8')) : {};
  const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const at = commit();
  for (const r of rows) table[r.measure] = { value: r.value, target: r.target ?? '', date, commit: at };
  fs.writeFileSync(currentFile, JSON.stringify(table, null, 1) + '\n');
  const md = [START, '', '| measure | latest quiet value | target | date (UTC) | commit |', '|---|---:|---|---|---|',
    ...Object.entries(table).map(([m, r]) => `| ${m} | ${r.value} | ${r.target} | ${r.date} | ${r.commit} |`), '', END];
  const text = fs.readFileSync(resultsFile, 'utf8');
  const s = text.indexOf(START);
  const e = text.indexOf(END);
  const next = s >= 0 && e > s ? text.slice(0, s) + md.join('\n') + text.slice(e + END.length) : text;
  fs.writeFileSync(resultsFile, next);
}
