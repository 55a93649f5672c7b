// Speculative decoding, side by side in one run: decode tokens/s of the
// synthetic bench target (~0.5B parameters, Q8_0) with and without a draft,
// direct llama-server and through zest (the draft loaded by
// POST /api/v1/load {"model":"T","options":{"draft":"D"}}, with zest's
// default draft settings, as a user would load it); the same with the
// draft's largest step (draft_max) set by hand, which is how zest's default
// was chosen; a draft that agrees only by chance (the cost where drafting
// does not pay: forced with speculative = "draft", and under auto, which
// switches it off after its sample and reloads the model without it); and
// n-gram drafting (no draft model, zest's defaults) on an edit-shaped
// request, whose answer repeats its prompt, against the same request plain.
// The target and the drafts come from zest-make-model --preset bench
// --draft-out (successor chains: tools/successor_chain.h). Greedy decoding
// (temperature 0), one request at a time, rounds interleaved. The run counts
// only on a quiet machine (bench/lib/quiet.mjs; the direct engine's plain
// rounds are the baseline whose spread is checked).
// BENCH_SPEC_ROUNDS (3), BENCH_SPEC_TOKENS (256), BENCH_SPEC_SWEEP
// (3,8,16,32: the draft_max values tried by hand; empty: none).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { engineArgv, makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { machine } from './gateway_overhead.mjs';
import { withDirectEngine } from './lib/direct_engine.mjs';
import { everyRun } from './lib/runs.mjs';
import { appendResults, commit } from './lib/results.mjs';
import { verdict, watchMachine } from './lib/quiet.mjs';

const ROUNDS = Number(process.env.BENCH_SPEC_ROUNDS ?? 3);
const TOKENS = Number(process.env.BENCH_SPEC_TOKENS ?? 256);
const SWEEP = (process.env.BENCH_SPEC_SWEEP ?? '3,8,16,32').split(',').filter(Boolean).map(Number);
// A chance draft costs several times plain decoding per token: a short answer.
const CHANCE_TOKENS = Number(process.env.BENCH_SPEC_CHANCE_TOKENS ?? 8);
const makeModel = path.join(repo, 'build/zest-make-model');

// The target and both drafts, written once into the bench cache.
function benchPair() {
  const dir = path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'zest', 'bench');
  fs.mkdirSync(dir, { recursive: true });
  const files = { target: path.join(dir, 'spec-target.gguf'), draft: path.join(dir, 'spec-draft.gguf'),
    chance: path.join(dir, 'spec-chance.gguf') };
  if (!fs.existsSync(files.draft)) {
    execFileSync(makeModel, ['--preset', 'bench', '--out', files.target, '--draft-out', files.draft], { stdio: 'inherit' });
  }
  if (!fs.existsSync(files.chance)) {
    const scratch = path.join(dir, 'spec-chance-target.gguf');  // the same target again
    execFileSync(makeModel, ['--preset', 'bench', '--out', scratch, '--draft-out', files.chance, '--draft-chance'],
      { stdio: 'inherit' });
    fs.rmSync(scratch);
  }
  return files;
}

const chat = (content, extra = {}) => ({
  model: 'T', messages: [{ role: 'user', content }], max_tokens: TOKENS, temperature: 0, ...extra,
});

// Decode tokens/s of one request (the engine's own timings) and its text.
async function decode(url, body) {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const data = await res.json();
  if (res.status !== 200) throw new Error(JSON.stringify(data));
  const t = data.timings ?? {};
  if (!t.predicted_per_second) throw new Error(`no timings: ${JSON.stringify(data).slice(0, 300)}`);
  return { tps: t.predicted_per_second, drafted: t.draft_n ?? 0, accepted: t.draft_n_accepted ?? 0,
    text: data.choices[0].message.content };
}

// Each load from nothing: a load without options finds the instance an
// earlier setup left (the chance draft's, once: its 5 tok/s was measured
// as the edit-shaped prompt's plain baseline, 2026-12-07).
async function load(zest, options) {
  await zest.json('/api/v1/unload', { model: 'T' });
  const r = await zest.json('/api/v1/load', { model: 'T', ...(options ? { options } : {}) });
  if (r.status !== 200) throw new Error(JSON.stringify(r.data));
  const [instance] = (await zest.instances()).filter((i) => i.model === 'T');
  return engineArgv(instance.pid);
}

// The same engine command line, by hand on TCP, while zest's is unloaded.
async function direct(zest, argv, body) {
  await zest.json('/api/v1/unload', { model: 'T' });
  return withDirectEngine(argv, (url) => decode(url, body), { timeout: 300000, interval: 50 });
}

// Rounds of zest and direct, interleaved, for one engine setup.
async function sideBySide(zest, options, body) {
  const z = [];
  const d = [];
  let argv;
  for (let i = 0; i < ROUNDS; i++) {
    argv = await load(zest, options);
    z.push(await decode(zest.url, body));
    d.push(await direct(zest, argv, body));
  }
  return { z, d, argv };
}

async function zestOnly(zest, options, body) {
  await load(zest, options);
  const runs = [];
  for (let i = 0; i < ROUNDS; i++) runs.push(await decode(zest.url, body));
  return runs;
}

// Under `auto` a draft that does not pay drafts until its sample is in
// (scheduler/draft_acceptance.h), then zest reloads the model without it:
// requests until /api/v1/ps says so (`before`), then the measured rounds.
async function untilSwitchedOff(zest, options, body) {
  await load(zest, options);
  const before = [];
  const switched = async () =>
    (await zest.instances()).find((i) => i.model === 'T')?.placement.speculative?.switched_off;
  while (!(await switched())) {
    if (before.length >= 50) throw new Error('auto never switched the draft off');
    before.push(await decode(zest.url, body));
  }
  const runs = [];
  for (let i = 0; i < ROUNDS; i++) runs.push(await decode(zest.url, body));
  return { before, runs, off: await switched() };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const tps = (runs) => median(runs.map((r) => r.tps));
const acceptance = (runs) => {
  const drafted = runs.reduce((s, r) => s + r.drafted, 0);
  return drafted ? (runs.reduce((s, r) => s + r.accepted, 0) / drafted).toFixed(2) : '–';
};

async function main() {
  const files = benchPair();
  const watch = watchMachine();
  const zest = await startZest({
    home: makeHome({ T: files.target, D: files.draft, C: files.chance }),
    env: { ZEST_LOG_LEVEL: 'info', ZEST_SAVE_SLOTS: 'false' },
  });
  try {
    const story = chat('Write a story.');
    const plain = await sideBySide(zest, null, story);
    const drafted = await sideBySide(zest, { draft: 'D' }, story);
    const sweep = [];
    for (const max of SWEEP) sweep.push({ max, runs: await zestOnly(zest, { draft: 'D', draft_max: max }, story) });
    const short = { ...story, max_tokens: CHANCE_TOKENS };
    const chance = await untilSwitchedOff(zest, { draft: 'C' }, short);
    const forced = await zestOnly(zest, { draft: 'C', speculative: 'draft' }, short);
    // Edit-shaped: the prompt holds the text the answer repeats (the
    // model's own answer to the story prompt).
    const edit = chat(`Fix the spelling in this text and give it back whole:\n${plain.z[0].text}`);
    const editPlain = await sideBySide(zest, null, edit);
    const ngram = await sideBySide(zest, { speculative: 'ngram' }, edit);
    const seen = watch.stop();

    const f = (x) => x.toFixed(2);
    const base = tps(plain.z);
    const row = (what, direct, through, ref, target, acc = '–') =>
      `| ${what} | ${direct === null ? '' : f(direct)} | ${f(through)} | ${f(through / ref)} | ${acc} | ${target} |`;
    const draftUp = tps(drafted.z) / base;
    const ngramUp = tps(ngram.z) / tps(editPlain.z);
    const autoCost = tps(chance.runs) / base;
    const v = verdict(seen, { 'plain, direct': plain.d.map((r) => r.tps), 'edit plain, direct': editPlain.d.map((r) => r.tps) });
    // The engine's speculative flags and their values, as zest gave them.
    const draftArgs = (argv) => argv.flatMap((a, i) => (/^--spec-/.test(a) ? [a, argv[i + 1]] : [])).join(' ');
    const lines = [
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — speculative decoding: ${machine()} — commit ${commit()}`,
      '',
      `Target: synthetic bench preset (24 blocks, ~0.5B params, Q8_0) with a successor chain; draft: the same ` +
        `width and vocabulary, 1 block (21 MiB), same chain (agrees by construction); chance draft: another ` +
        `chain. ${TOKENS}-token greedy answers (the chance draft: ${CHANCE_TOKENS}), ${ROUNDS} rounds each, median decode tokens/s from the engine's ` +
        `timings. Direct: zest's own engine command line run by hand on TCP. zest's default draft flags: ` +
        `\`${draftArgs(drafted.argv)}\`; n-gram: \`${draftArgs(ngram.argv)}\`.`,
      '',
      '| setup | llama-server direct (tok/s) | through zest (tok/s) | speed-up vs plain | acceptance | target |',
      '|---|---:|---:|---:|---:|---|',
      row('plain decoding', tps(plain.d), base, base, ''),
      row('draft model (agrees), zest\'s defaults', tps(drafted.d), tps(drafted.z), base, '≥ 1.5×', acceptance(drafted.z)),
      ...sweep.map((s) => row(`draft model (agrees), draft_max ${s.max}${s.max === 3 ? ' (the engine\'s own default)' : ''}`, null, tps(s.runs), base, '', acceptance(s.runs))),
      row('draft model (chance agreement), speculative = "draft"', null, tps(forced), base, '', acceptance(forced)),
      row('draft model (chance agreement), auto: after the switch-off', null, tps(chance.runs), base, '≤ 5 % slower'),
      row('edit-shaped prompt, plain', tps(editPlain.d), tps(editPlain.z), tps(editPlain.z), ''),
      row('edit-shaped prompt, n-gram drafting, zest\'s defaults', tps(ngram.d), tps(ngram.z), tps(editPlain.z), '≥ 1.3×', acceptance(ngram.z)),
      '',
      `Every run, tokens/s: plain direct ${everyRun(plain.d.map((r) => r.tps))}, zest ${everyRun(plain.z.map((r) => r.tps))}; ` +
        `draft direct ${everyRun(drafted.d.map((r) => r.tps))}, zest ${everyRun(drafted.z.map((r) => r.tps))}; ` +
        sweep.map((s) => `draft_max ${s.max} ${everyRun(s.runs.map((r) => r.tps))}; `).join('') +
        `chance forced ${everyRun(forced.map((r) => r.tps))}; chance under auto before the switch-off ` +
        `${everyRun(chance.before.map((r) => r.tps))} (${chance.before.length} request(s): ` +
        `${chance.off.drafted_tokens} tokens drafted, acceptance ${chance.off.acceptance.toFixed(2)}), after ` +
        `${everyRun(chance.runs.map((r) => r.tps))}; edit plain direct ${everyRun(editPlain.d.map((r) => r.tps))}, zest ${everyRun(editPlain.z.map((r) => r.tps))}; ` +
        `n-gram direct ${everyRun(ngram.d.map((r) => r.tps))}, zest ${everyRun(ngram.z.map((r) => r.tps))}.`,
    ];
    appendResults(['', ...lines], { verdict: v, current: [
      { measure: 'Speculative: agreeing draft, zest defaults, decode speed-up vs plain', value: `${f(draftUp)}×`, target: '≥ 1.5×' },
      { measure: 'Speculative: n-gram on an edit, zest defaults, speed-up vs plain', value: `${f(ngramUp)}×`, target: '≥ 1.3×' },
      { measure: 'Speculative: chance draft under auto, after the switch-off, vs plain', value: `${f(autoCost)}×`, target: '≥ 0.95×' },
    ] });
  } finally {
    await zest.stop();
    zest.cleanup();
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
