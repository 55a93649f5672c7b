// The Hugging Face store shared with other tools: a cache layout written the
// way huggingface-cli leaves it is listed, served, shown and deleted; the
// catalog is listed and its models that are not downloaded point to `zest pull`.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { chatBody, makeHome, startZest, syntheticModel, zestBin } from '../lib/zest.mjs';

const run = promisify(execFile);
const commitMain = 'a'.repeat(40);
const commitOld = 'b'.repeat(40);

// blobs/<sha256> + snapshots/<commit>/<path> → ../../blobs/<sha256> + refs/main.
function writeRepo(hub, repo, commit, files) {
  const dir = path.join(hub, `models--${repo.replace('/', '--')}`);
  const blobs = {};
  for (const [file, source] of Object.entries(files)) {
    const bytes = fs.readFileSync(source);
    const sha = crypto.createHash('sha256').update(bytes).digest('hex');
    fs.mkdirSync(path.join(dir, 'blobs'), { recursive: true });
    if (!fs.existsSync(path.join(dir, 'blobs', sha))) fs.writeFileSync(path.join(dir, 'blobs', sha), bytes);
    const link = path.join(dir, 'snapshots', commit, file);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    const up = '../'.repeat(file.split('/').length + 1);
    fs.symlinkSync(`${up}blobs/${sha}`, link);
    blobs[file] = path.join(dir, 'blobs', sha);
  }
  fs.mkdirSync(path.join(dir, 'refs'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'refs', 'main'), commitMain);
  return { dir, blobs };
}

describe('Hugging Face store', () => {
  let zest;
  let hub;
  let env;
  let repo;
  let oldRepo;
  const cli = (...args) => run(zestBin, args, { env });
  const ids = async (p = '/v1/models') => (await zest.json(p)).data.data.map((m) => m.id);

  before(async () => {
    hub = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-test-hub-'));
    const a = syntheticModel('tiny');
    const b = syntheticModel('tiny', ['--seed', '7']);
    repo = writeRepo(hub, 'test-org/tiny-GGUF', commitMain, { 'tiny-Q8_0.gguf': a, 'tiny-F16.gguf': b });
    // An older snapshot shares tiny-F16's blob: deleting F16 must keep it.
    oldRepo = writeRepo(hub, 'test-org/tiny-GGUF', commitOld, { 'old-Q4_K_M.gguf': b });
    writeRepo(hub, 'unsloth/Qwen3-0.6B-GGUF', commitMain, { 'Qwen3-0.6B-Q8_0.gguf': a });
    // A snapshot link that leaves its repo is never followed.
    fs.symlinkSync(a, path.join(repo.dir, 'snapshots', commitMain, 'escape-Q2_K.gguf'));
    zest = await startZest({ home: makeHome({}), env: { HF_HUB_CACHE: hub } });
    env = { ...process.env, ZEST_HOST: zest.url, ZEST_HOME: zest.home };
  });
  after(async () => {
    await zest.stop();
    zest.cleanup();
    fs.rmSync(hub, { recursive: true, force: true });
  });

  test('store models are listed as org/repo:QUANT and served', async () => {
    const listed = await ids();
    for (const id of ['test-org/tiny-GGUF:Q8_0', 'test-org/tiny-GGUF:F16', 'test-org/tiny-GGUF:Q4_K_M']) {
      assert.ok(listed.includes(id), `${id} in ${listed}`);
    }
    assert.ok(!listed.some((id) => id.includes('escape')), 'a link out of the repo is ignored');
    // The downloaded catalog model is there under its catalog name too.
    assert.ok(listed.includes('Qwen3-0.6B-GGUF'), listed.join(' '));
    const res = await zest.json('/v1/chat/completions', chatBody('test-org/tiny-GGUF:Q8_0'));
    assert.equal(res.status, 200, JSON.stringify(res.data));
    assert.equal(res.data.model, 'test-org/tiny-GGUF:Q8_0');
    assert.ok(res.data.choices[0].message);
  });

  test('a catalog model that is not downloaded answers 404 naming zest pull', async () => {
    const res = await zest.json('/v1/chat/completions', chatBody('Qwen3-8B-GGUF'));
    assert.equal(res.status, 404);
    assert.match(res.data.error.message, /zest pull Qwen3-8B-GGUF/);
    assert.equal(res.data.error.code, 'model_not_found');
  });

  test('?all=true adds the catalog with downloaded flags', async () => {
    const { data } = await zest.json('/api/v1/models?all=true');
    const byId = Object.fromEntries(data.data.map((m) => [m.id, m]));
    assert.equal(byId['Qwen3-8B-GGUF'].downloaded, false);
    assert.equal(byId['Qwen3-8B-GGUF'].repo, 'unsloth/Qwen3-8B-GGUF');
    assert.ok(byId['Qwen3-8B-GGUF'].labels.includes('reasoning'));
    assert.equal(byId['whisper-tiny'].recipe, 'whispercpp');
    assert.equal(byId['Qwen3-0.6B-GGUF'].downloaded, true);
    assert.equal(byId['Qwen3-0.6B-GGUF'].source, 'catalog');
    assert.equal(byId['test-org/tiny-GGUF:Q8_0'].downloaded, true);
    assert.ok(!(await ids()).includes('Qwen3-8B-GGUF'), 'plain /v1/models lists only servable models');
    const { stdout } = await cli('list', '--all');
    assert.match(stdout, /^NAME\s+QUANT\s+SIZE\s+LABELS\s+SOURCE\s+DOWNLOADED\s+LOADED\s+FIT/m);
    // DOWNLOADED, LOADED, then FIT: whether this machine can run it (from its catalog size).
    const verdict = byId['Qwen3-8B-GGUF'].fit?.verdict ?? '-';
    assert.match(stdout, new RegExp(`^Qwen3-8B-GGUF\\s+Q4_K_M\\s+.*\\bno\\s+no\\s+${verdict}\\b`, 'm'));
  });

  test('show prints GGUF metadata', async () => {
    const { stdout } = await cli('show', 'test-org/tiny-GGUF:F16');
    assert.match(stdout, /general\.architecture = llama/);
    assert.match(stdout, /tokenizer\.ggml\.tokens = \[\d+ values\]/);
    assert.match(stdout, /^tensors\s+\d+/m);
    const res = await zest.json(`/api/v1/show?model=${encodeURIComponent('test-org/tiny-GGUF:F16')}`);
    assert.equal(res.status, 200);
    assert.ok(res.data.tensor_count > 0);
    assert.equal(res.data.details.repo, 'test-org/tiny-GGUF');
    const missing = await zest.json('/api/v1/show?model=nope');
    assert.equal(missing.status, 404);
  });

  test('rm stops the engine and deletes; blobs another snapshot links are kept', async () => {
    assert.ok((await zest.instances()).some((i) => i.model === 'test-org/tiny-GGUF:Q8_0'));
    const q8 = await cli('rm', 'test-org/tiny-GGUF:Q8_0');
    assert.match(q8.stdout, /deleted test-org\/tiny-GGUF:Q8_0/);
    assert.ok(!(await zest.instances()).some((i) => i.model === 'test-org/tiny-GGUF:Q8_0'));
    assert.ok(!fs.existsSync(repo.blobs['tiny-Q8_0.gguf']), 'Q8_0 blob deleted');
    await cli('rm', 'test-org/tiny-GGUF:F16');
    assert.ok(!fs.existsSync(path.join(repo.dir, 'snapshots', commitMain, 'tiny-F16.gguf')));
    assert.ok(fs.existsSync(repo.blobs['tiny-F16.gguf']), 'shared blob kept');
    assert.equal(repo.blobs['tiny-F16.gguf'], oldRepo.blobs['old-Q4_K_M.gguf']);
    const listed = await ids();
    assert.ok(!listed.includes('test-org/tiny-GGUF:Q8_0') && !listed.includes('test-org/tiny-GGUF:F16'));
    assert.ok(listed.includes('test-org/tiny-GGUF:Q4_K_M'));
    const res = await zest.json('/api/v1/models/test-org/tiny-GGUF:Q4_K_M', undefined, { method: 'DELETE' });
    assert.equal(res.status, 200, JSON.stringify(res.data));
    assert.ok(!fs.existsSync(repo.blobs['tiny-F16.gguf']), 'last link gone, blob gone');
  });

  test('rm of a `zest add` model removes only the registration', async () => {
    const file = path.join(zest.home, 'mine.gguf');
    fs.copyFileSync(syntheticModel('tiny'), file);
    await cli('add', 'mine', file);
    const res = await zest.json('/api/v1/delete', { model: 'mine' });
    assert.equal(res.status, 200);
    assert.equal(res.data.source, 'user');
    assert.ok(fs.existsSync(file), "the user's file is kept");
    assert.ok(!(await ids()).includes('mine'));
    const again = await zest.json('/api/v1/delete', { model: 'mine' });
    assert.equal(again.status, 404);
  });
});
