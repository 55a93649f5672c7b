// A benchmark's results table: appended to bench/RESULTS.md, which keeps
// every run (a later run never rewrites an earlier one's numbers), and
// printed for whoever ran it.
import fs from 'node:fs';
import path from 'node:path';
import { repo } from '../../tests/lib/zest.mjs';

// Appends `lines` (Markdown, one string a line) to bench/RESULTS.md and prints them.
export function appendResults(lines) {
  fs.appendFileSync(path.join(repo, 'bench/RESULTS.md'), lines.join('\n') + '\n');
  console.log(lines.join('\n'));
}
