// Experimental prefill/decode split (relay/prefill_handoff.h), what it costs
// here: one model with an instance on the CPU and one on Vulkan's llvmpipe
// (both computed by this machine's cores), long prompts streamed with the
// split off and on, alternating. Time to first token and total time per
// request; with the split on, zest's log gives the prefill time and the time
// to move the KV cache (save, move, restore). Appends a table to
// bench/RESULTS.md when the machine was quiet (bench/lib/quiet.mjs; the
// baseline: the split off, its requests in three rounds). Needs the Vulkan
// engine rootfs.
// Usage: node bench/prefill_split.mjs [--requests N] [--words N]
import { execFileSync } from 'node:child_process';
import { makeHome, repo, startZest } from '../tests/lib/zest.mjs';
import { machine } from './gateway_overhead.mjs';
import { everyRun, roundMedians } from './lib/runs.mjs';
import { watchMachine, verdict } from './lib/quiet.mjs';
import { appendResults } from './lib/results.mjs';

const arg = (name, def) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const REQUESTS = arg('--requests', 6);
const WORDS = arg('--words', 250);
const rootfs = process.env.ZEST_TEST_VULKAN_ROOTFS ?? '/var/cache/zest/engines/debian-sid-vulkan';
const model = { preset: 'bench', args: ['--layers', '6'] };

async function run(split) {
  const zest = await startZest({
    home: makeHome({ m: model }),
    args: ['--parallel', '2', '--ctx-size', '2048', '--split-prefill-tokens', split ? '256' : '0'],
    env: { ZEST_ENGINE_ROOTFS: rootfs, GGML_VK_VISIBLE_DEVICES: '0', ZEST_RESERVED_SLOTS: '0',
           ZEST_AUTOSCALE: '0', ZEST_LOG_LEVEL: 'info' },
  });
  try {
    for (const body of [{ model: 'm' }, { model: 'm', replica: true }]) {
      const r = await zest.json('/api/v1/load', body);
      if (r.status !== 200) throw new Error(JSON.stringify(r.data));
    }
    const rows = [];
    for (let i = 0; i < REQUESTS; ++i) {
      // A fresh prompt each time: nothing is cached from an earlier request.
      const words = Array.from({ length: WORDS }, (_, j) => `w${i}x${j}`).join(' ');
      const start = performance.now();
      const res = await zest.fetch('/v1/chat/completions', {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', stream: true, max_tokens: 32, ignore_eos: true,
                               messages: [{ role: 'user', content: words }] }),
      });
      let ttft = null;
      let text = '';
      const decoder = new TextDecoder();
      for await (const chunk of res.body) {
        text += decoder.decode(chunk, { stream: true });
        if (ttft === null && /"content":"[^"]/.test(text)) ttft = performance.now() - start;
      }
      if (res.status !== 200 || !text.includes("[DONE]")) throw new Error(`request failed: ${res.status} ${text.slice(0, 300)}`);
      rows.push({ ttft, total: performance.now() - start });
    }
    const handoffs = [...zest.logs().matchAll(/\((\d+) prompt tokens\) on (\S+) handed to (\S+): prefill (\d+) ms, KV cache moved in (\d+) ms/g)];
    return { rows, handoffs };
  } finally { await zest.stop(); zest.cleanup(); }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const watch = watchMachine();
const off = await run(false);
const on = await run(true);
const seen = watch.stop();
const h = on.handoffs;
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo }).toString().trim();
const lines = [
  `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — prefill/decode split: ${machine()} — commit ${commit}`,
  '',
  `Synthetic bench model (--layers 6), one instance on the CPU and one on Vulkan0 (llvmpipe), ${REQUESTS} streamed requests of ${WORDS} words (fresh prompts, nothing cached) and 32 tokens each, one at a time. Medians in ms.`,
  '',
  '| split | TTFT | total | prefill | KV cache moved | handed |',
  '|---|---:|---:|---:|---:|---|',
  `| off | ${median(off.rows.map((r) => r.ttft)).toFixed(0)} | ${median(off.rows.map((r) => r.total)).toFixed(0)} | | | |`,
  `| on | ${median(on.rows.map((r) => r.ttft)).toFixed(0)} | ${median(on.rows.map((r) => r.total)).toFixed(0)} | ${h.length ? median(h.map((x) => Number(x[4]))) : '-'} | ${h.length ? median(h.map((x) => Number(x[5]))) : '-'} | ${h.length} of ${REQUESTS}, ${h[0]?.[1] ?? '?'} tokens, ${[...new Set(h.map((x) => `${x[2]} → ${x[3]}`))].join(', ')} |`,
  '',
  `Every request's TTFT in order (ms): split off ${everyRun(off.rows.map((r) => r.ttft), 0)}; on ${everyRun(on.rows.map((r) => r.ttft), 0)}` +
    (h.length ? `; every handed request's prefill ${h.map((x) => x[4]).join(', ')} ms, KV cache moved in ${h.map((x) => x[5]).join(', ')} ms.` : '.'),
];
const ratio = (key) => (median(on.rows.map((r) => r[key])) / median(off.rows.map((r) => r[key]))).toFixed(2);
appendResults(lines, {
  verdict: verdict(seen, { 'split off, TTFT': roundMedians(off.rows.map((r) => r.ttft), 3) }),
  current: [
    { measure: 'prefill/decode split (CPU + llvmpipe): TTFT, on / off (medians)', value: ratio('ttft'), target: '' },
    ...(h.length ? [{ measure: 'prefill/decode split (CPU + llvmpipe): KV cache moved, median (ms)', value: String(median(h.map((x) => Number(x[5])))), target: '' }] : []),
  ],
});
