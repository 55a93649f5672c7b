// Models where users already keep them: an Ollama store and an LM Studio
// tree, written by the test as those tools lay them out (from a synthetic
// vision model and its projector), served in place, never copied or
// changed. Ollama's models under Ollama's names through all four APIs,
// with their projector and their Modelfile's SYSTEM and PARAMETERs; a model
// added to the store is noticed; a blob that changed after it was served,
// and one that never matched its digest, are refused with a message that
// says so. LM Studio's tree likewise (no digests: it keeps none). The
// stores are the test's own directories (OLLAMA_MODELS,
// ZEST_LMSTUDIO_MODELS), never the real HOME's.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeHome, startZest, syntheticVision, waitFor, zestBin } from '../lib/zest.mjs';

const sha256 = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

// Every file under `dir` with its bytes' hash and mtime: what "read in
// place, never changed" is checked against.
function snapshot(dir) {
  const out = {};
  for (const rel of fs.readdirSync(dir, { recursive: true }).sort()) {
    const file = path.join(dir, rel);
    const st = fs.statSync(file);
    if (st.isFile()) out[rel] = `${sha256(file)} ${st.mtimeMs}`;
  }
  return out;
}

// An Ollama models directory: blobs/sha256-<hex> and
// manifests/registry.ollama.ai/<namespace>/<model>/<tag>, as `ollama pull`
// leaves them.
class OllamaStore {
  constructor(root) {
    this.root = root;
    fs.mkdirSync(path.join(root, 'blobs'), { recursive: true });
  }

  // The blob of `bytes`, named by their sha256 unless `digest` is given.
  blob(bytes, digest = crypto.createHash('sha256').update(bytes).digest('hex')) {
    fs.writeFileSync(path.join(this.root, 'blobs', `sha256-${digest}`), bytes);
    return { digest: `sha256:${digest}`, size: bytes.length };
  }

  blobPath(layer) { return path.join(this.root, 'blobs', layer.digest.replace(':', '-')); }

  manifest(namespace, model, tag, layers) {
    const file = path.join(this.root, 'manifests/registry.ollama.ai', namespace, model, tag);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const config = this.blob(Buffer.from(JSON.stringify({ model_format: 'gguf' })));
    fs.writeFileSync(file, JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
      config: { mediaType: 'application/vnd.docker.container.image.v1+json', ...config },
      layers: layers.map(([kind, layer]) => ({ mediaType: `application/vnd.ollama.image.${kind}`, ...layer })),
    }));
  }
}

// A 37 x 23 PNG test pattern (ffmpeg, as the vision tests make theirs).
function png() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-stores-png-'));
  try {
    const file = path.join(dir, 'p.png');
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=s=37x23',
      '-frames:v', '1', '-y', file]);
    return fs.readFileSync(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const QUESTION = 'Say something.';
const SYSTEM = 'You are a model from an Ollama store, and you answer every question at some length.';

// One short turn through each API; each resolves to the HTTP status and
// the error message, if any.
const apis = {
  openai: (zest, model) => zest.json('/v1/chat/completions',
    { model, max_tokens: 2, messages: [{ role: 'user', content: QUESTION }] }),
  anthropic: (zest, model) => zest.json('/v1/messages',
    { model, max_tokens: 2, messages: [{ role: 'user', content: QUESTION }] }),
  responses: (zest, model) => zest.json('/v1/responses',
    { model, max_output_tokens: 2, store: false, input: QUESTION }),
  ollama: (zest, model) => zest.json('/api/chat',
    { model, stream: false, options: { num_predict: 2 }, messages: [{ role: 'user', content: QUESTION }] }),
};
const errorOf = (data) => (typeof data?.error === 'string' ? data.error : data?.error?.message ?? JSON.stringify(data));

describe('model stores: Ollama\'s and LM Studio\'s models served in place', () => {
  let zest;
  let ollama;
  let lmstudioRoot;
  let storesRoot;
  let vision;
  let modelLayer;
  let before_;
  const image = png();

  before(async () => {
    vision = syntheticVision();
    storesRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'zest-stores-'));
    ollama = new OllamaStore(path.join(storesRoot, 'ollama'));
    modelLayer = ollama.blob(fs.readFileSync(vision.model));
    const projector = ollama.blob(fs.readFileSync(vision.mmproj));
    const system = ollama.blob(Buffer.from(SYSTEM));
    // num_predict: the default answer length, where a request sets none.
    const params = ollama.blob(Buffer.from(JSON.stringify({ num_predict: 3, stop: ['<never-seen>'] })));
    const template = ollama.blob(Buffer.from('{{ .System }}{{ .Prompt }}'));
    ollama.manifest('library', 'seer', '3b', [['model', modelLayer], ['projector', projector],
      ['template', template], ['system', system], ['params', params]]);
    ollama.manifest('library', 'seer', 'latest', [['model', modelLayer], ['projector', projector]]);
    ollama.manifest('someone', 'plain', 'q8', [['model', modelLayer]]);
    // A blob whose bytes never matched the digest its manifest names.
    const wrong = ollama.blob(fs.readFileSync(vision.model), 'e'.repeat(64));
    ollama.manifest('library', 'broken', 'latest', [['model', wrong]]);

    lmstudioRoot = path.join(storesRoot, 'lmstudio');
    fs.mkdirSync(path.join(lmstudioRoot, 'pub/Seer-GGUF'), { recursive: true });
    fs.copyFileSync(vision.model, path.join(lmstudioRoot, 'pub/Seer-GGUF/Seer-Q8_0.gguf'));
    fs.copyFileSync(vision.mmproj, path.join(lmstudioRoot, 'pub/Seer-GGUF/mmproj-Seer-F16.gguf'));
    before_ = snapshot(storesRoot);

    zest = await startZest({
      home: makeHome({ own: 'tiny' }),
      env: { OLLAMA_MODELS: ollama.root, ZEST_LMSTUDIO_MODELS: lmstudioRoot },
    });
  });
  after(async () => {
    await zest?.stop();
    zest?.cleanup();
    fs.rmSync(storesRoot, { recursive: true, force: true });
  });

  test('listed under the stores\' own names, from where they lie, with their projectors', async () => {
    const { data } = (await zest.json('/v1/models')).data;
    const byId = Object.fromEntries(data.map((m) => [m.id, m]));
    assert.deepEqual(Object.keys(byId).sort(),
      ['broken', 'own', 'pub/Seer-GGUF:Q8_0', 'seer', 'seer:3b', 'someone/plain:q8']);
    assert.equal(byId.own.source, 'models_dir');
    for (const id of ['seer', 'seer:3b', 'someone/plain:q8', 'broken']) assert.equal(byId[id].source, 'ollama', id);
    assert.equal(byId['pub/Seer-GGUF:Q8_0'].source, 'lmstudio');
    assert.equal(byId['seer:3b'].path, ollama.blobPath(modelLayer));
    assert.equal(byId['pub/Seer-GGUF:Q8_0'].path, path.join(lmstudioRoot, 'pub/Seer-GGUF/Seer-Q8_0.gguf'));
    for (const id of ['seer', 'seer:3b', 'pub/Seer-GGUF:Q8_0']) {
      assert.ok(byId[id].capabilities.includes('vision'), `${id}: ${JSON.stringify(byId[id].capabilities)}`);
    }
    assert.ok(!byId['someone/plain:q8'].capabilities.includes('vision'));
    // Ollama's own listing: tags as Ollama shows them.
    const tags = (await zest.json('/api/tags')).data.models.map((m) => m.name);
    for (const name of ['seer:latest', 'seer:3b', 'someone/plain:q8']) assert.ok(tags.includes(name), tags.join());
    // `zest list` says where each came from.
    const listed = execFileSync(zestBin, ['list'], { env: { ...process.env, ZEST_HOST: zest.url }, encoding: 'utf8' });
    assert.match(listed, /^NAME\s.*\sSOURCE\s/m);
    assert.match(listed, /^seer:3b\s.*\sollama\s/m);
    assert.match(listed, /^pub\/Seer-GGUF:Q8_0\s.*\slmstudio\s/m);
  });

  for (const [api, send] of Object.entries(apis)) {
    test(`${api}: Ollama's and LM Studio's models answer`, async () => {
      for (const model of ['seer:3b', 'seer:latest', 'someone/plain:q8', 'pub/Seer-GGUF:Q8_0']) {
        const r = await send(zest, model);
        assert.equal(r.status, 200, `${model}: ${JSON.stringify(r.data)}`);
      }
    });
  }

  test('the Modelfile\'s SYSTEM and PARAMETERs are honoured; its projector sees images', async () => {
    const ask = (model, extra = {}) => zest.json('/v1/chat/completions',
      { model, messages: [{ role: 'user', content: QUESTION }], ...extra });
    // The same blob: seer:3b's prompt has its SYSTEM in front.
    const plain = await ask('seer', { max_tokens: 1 });
    const withSystem = await ask('seer:3b', { max_tokens: 1 });
    assert.equal(plain.status, 200, JSON.stringify(plain.data));
    assert.equal(withSystem.status, 200, JSON.stringify(withSystem.data));
    assert.ok(withSystem.data.usage.prompt_tokens > plain.data.usage.prompt_tokens,
      `${withSystem.data.usage.prompt_tokens} vs ${plain.data.usage.prompt_tokens}`);
    // PARAMETER num_predict 3, where the request sets no length.
    const defaulted = await ask('seer:3b');
    assert.equal(defaulted.status, 200, JSON.stringify(defaulted.data));
    assert.equal(defaulted.data.usage.completion_tokens, 3);
    assert.equal(defaulted.data.choices[0].finish_reason, 'length');
    // An image adds the projector's tokens, from either store.
    for (const model of ['seer', 'pub/Seer-GGUF:Q8_0']) {
      const text = { type: 'text', text: QUESTION };
      const picture = { type: 'image_url', image_url: { url: `data:image/png;base64,${image.toString('base64')}` } };
      const without = await ask(model, { max_tokens: 1, messages: [{ role: 'user', content: [text] }] });
      const withImage = await ask(model, { max_tokens: 1, messages: [{ role: 'user', content: [text, picture] }] });
      assert.equal(withImage.status, 200, JSON.stringify(withImage.data));
      assert.equal(withImage.data.usage.prompt_tokens - without.data.usage.prompt_tokens, vision.imageTokens, model);
    }
  });

  test('a blob that does not match its digest is refused, through every API, and listed so', async () => {
    for (const [api, send] of Object.entries(apis)) {
      const r = await send(zest, 'broken');
      assert.equal(r.status, 500, `${api}: ${JSON.stringify(r.data)}`);
      assert.match(errorOf(r.data), /does not match its digest: the store names sha256:e{64}, the file's bytes are sha256:[0-9a-f]{64}/, api);
    }
    const broken = (await zest.json('/v1/models')).data.data.find((m) => m.id === 'broken');
    assert.match(broken.error, /does not match its digest/);
  });

  test('the stores are read in place: nothing in them was written, copied or moved', () => {
    assert.deepEqual(snapshot(storesRoot), before_);
  });

  test('a model added to a store is noticed, and a blob changed after it was served is refused', async () => {
    const names = async () => (await zest.json('/v1/models')).data.data.map((m) => m.id);
    const own = ollama.blob(fs.readFileSync(vision.model));  // the same bytes: the same blob
    ollama.manifest('library', 'late', '1b', [['model', own]]);
    await waitFor(async () => (await names()).includes('late:1b'), { what: 'late:1b listed' });
    // A blob of its own, served once (and so hashed), then changed on disk.
    const bytes = fs.readFileSync(vision.model);
    bytes[bytes.length - 1] ^= 1;  // another blob, still a valid GGUF (a tensor's last byte)
    const changing = ollama.blob(bytes);
    ollama.manifest('library', 'changing', 'latest', [['model', changing]]);
    await waitFor(async () => (await names()).includes('changing'), { what: 'changing listed' });
    const first = await apis.openai(zest, 'changing');
    assert.equal(first.status, 200, JSON.stringify(first.data));
    const file = ollama.blobPath(changing);
    bytes[bytes.length - 1] ^= 1;
    fs.writeFileSync(file, bytes);
    const later = new Date(fs.statSync(file).mtimeMs + 2000);
    fs.utimesSync(file, later, later);
    let refused;
    await waitFor(async () => (refused = await apis.ollama(zest, 'changing')).status === 500,
      { what: 'the changed blob refused', timeout: 10000 });
    assert.match(errorOf(refused.data), /does not match its digest/);
  });
});
