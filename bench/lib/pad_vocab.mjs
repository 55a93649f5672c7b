// Widens a synthetic model's vocabulary (zest-make-model writes ~530 tokens)
// to a real model's size, 32k or 128k tokens, so the memory benchmark sees
// what a large vocabulary costs: a token embedding and an output head of
// n_embd × vocab, and logits of ubatch × vocab in the compute buffer.
//
// It rewrites the GGUF: the tokenizer arrays and `<arch>.vocab_size` grow,
// the two vocab-sized tensors get zero rows for the new tokens (holes in a
// sparse file), every other key and tensor is copied unchanged. The new
// tokens are UNUSED (llama.cpp never matches them in text and prints them
// as nothing), and their zero output rows give them a logit of 0.
// Only the tensor types zest-make-model writes (f32, f16, q8_0).
import fs from 'node:fs';

const T = { U8: 0, I8: 1, U16: 2, I16: 3, U32: 4, I32: 5, F32: 6, BOOL: 7, STRING: 8, ARRAY: 9,
  U64: 10, I64: 11, F64: 12 };
const SCALAR_BYTES = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const TOKEN_UNUSED = 5;  // llama_token_type
// Bytes of one row of `ne0` elements, by ggml type: f32, f16, q8_0 (blocks
// of 32 elements, a 2-byte scale + 32 bytes).
const ROW_BYTES = { 0: (n) => 4 * n, 1: (n) => 2 * n, 8: (n) => (n / 32) * 34 };
const VOCAB_TENSORS = new Set(['token_embd.weight', 'output.weight']);

class Reader {
  constructor(buf) { this.buf = buf; this.pos = 0; }
  u32() { const v = this.buf.readUInt32LE(this.pos); this.pos += 4; return v; }
  u64() { const v = this.buf.readBigUInt64LE(this.pos); this.pos += 8; return Number(v); }
  string() { const n = this.u64(); const s = this.buf.toString('utf8', this.pos, this.pos + n); this.pos += n; return s; }
  // Skips a value of `type`, returning nothing: only the raw span matters.
  skip(type) {
    if (type === T.STRING) { this.string(); return; }
    if (type === T.ARRAY) {
      const inner = this.u32();
      const n = this.u64();
      for (let i = 0; i < n; ++i) this.skip(inner);
      return;
    }
    const bytes = SCALAR_BYTES[type];
    if (bytes === undefined) throw new Error(`GGUF value type ${type} unknown`);
    this.pos += bytes;
  }
}

const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
const str = (s) => { const b = Buffer.from(s, 'utf8'); return Buffer.concat([u64(b.length), b]); };
const keyValue = (key, type, value) => Buffer.concat([str(key), u32(type), value]);
const align = (n, a) => Math.ceil(n / a) * a;

// The key/value pairs, each with its raw bytes; arrays of the tokenizer are
// decoded so they can grow.
function readKeyValues(r, count) {
  const kvs = [];
  for (let i = 0; i < count; ++i) {
    const start = r.pos;
    const key = r.string();
    const type = r.u32();
    const kv = { key, type };
    if (type === T.ARRAY && key.startsWith('tokenizer.ggml.')) {
      kv.inner = r.u32();
      const n = r.u64();
      const read = {
        [T.STRING]: () => r.string(),
        [T.F32]: () => { r.pos += 4; return r.buf.readFloatLE(r.pos - 4); },
        [T.I32]: () => { r.pos += 4; return r.buf.readInt32LE(r.pos - 4); },
      }[kv.inner];
      kv.items = read ? Array.from({ length: n }, read) : null;
      if (!read) for (let j = 0; j < n; ++j) r.skip(kv.inner);
    } else if (type === T.U32) {
      kv.value = r.u32();
    } else {
      r.skip(type);
    }
    kv.raw = r.buf.subarray(start, r.pos);
    kvs.push(kv);
  }
  return kvs;
}

function encodeArray(inner, items) {
  const parts = [u32(inner), u64(items.length)];
  for (const item of items) {
    if (inner === T.STRING) parts.push(str(item));
    else { const b = Buffer.alloc(4); inner === T.F32 ? b.writeFloatLE(item) : b.writeInt32LE(item); parts.push(b); }
  }
  return Buffer.concat(parts);
}

// New bytes of one key/value pair for a vocabulary of `vocab` tokens.
function widenKeyValue(kv, from, vocab) {
  if (kv.key.endsWith('.vocab_size') && kv.type === T.U32) return keyValue(kv.key, T.U32, u32(vocab));
  if (!kv.items || kv.items.length !== from) return kv.raw;
  const extra = Array.from({ length: vocab - from }, (_, i) => i + from);
  const grown = {
    'tokenizer.ggml.tokens': () => extra.map((id) => `<unused_${id}>`),
    'tokenizer.ggml.scores': () => extra.map(() => -1e9),
    'tokenizer.ggml.token_type': () => extra.map(() => TOKEN_UNUSED),
  }[kv.key];
  return grown ? keyValue(kv.key, T.ARRAY, encodeArray(kv.inner, [...kv.items, ...grown()])) : kv.raw;
}

// Writes `dest`: `src` with a vocabulary of `vocab` tokens (more than it has).
export function padVocab(src, dest, vocab) {
  const buf = fs.readFileSync(src);
  const r = new Reader(buf);
  if (buf.toString('ascii', 0, 4) !== 'GGUF') throw new Error(`${src} is not a GGUF file`);
  r.pos = 4;
  const version = r.u32();
  const tensorCount = r.u64();
  const kvs = readKeyValues(r, r.u64());
  const from = kvs.find((kv) => kv.key === 'tokenizer.ggml.tokens')?.items?.length;
  if (!from || vocab <= from) throw new Error(`${src}: vocabulary of ${from} cannot grow to ${vocab}`);
  const alignment = kvs.find((kv) => kv.key === 'general.alignment')?.value ?? 32;  // GGUF's default

  const tensors = [];
  for (let i = 0; i < tensorCount; ++i) {
    const name = r.string();
    const dims = Array.from({ length: r.u32() }, () => r.u64());
    const type = r.u32();
    const offset = r.u64();
    if (!ROW_BYTES[type]) throw new Error(`${name}: tensor type ${type} not handled`);
    const rowBytes = ROW_BYTES[type](dims[0]);
    const rows = dims.slice(1).reduce((a, b) => a * b, 1);
    tensors.push({ name, dims, type, offset, rowBytes, bytes: rowBytes * rows });
  }
  const srcData = align(r.pos, alignment);

  let next = 0;
  const infos = [];
  for (const t of tensors) {
    const widen = VOCAB_TENSORS.has(t.name) && t.dims[1] === from;
    t.newBytes = widen ? t.rowBytes * vocab : t.bytes;
    t.newOffset = next;
    next = align(next + t.newBytes, alignment);
    const dims = widen ? [t.dims[0], vocab, ...t.dims.slice(2)] : t.dims;
    infos.push(Buffer.concat([str(t.name), u32(dims.length), ...dims.map(u64), u32(t.type), u64(t.newOffset)]));
  }
  const header = Buffer.concat([Buffer.from('GGUF', 'ascii'), u32(version), u64(tensorCount),
    u64(kvs.length), ...kvs.map((kv) => widenKeyValue(kv, from, vocab)), ...infos]);
  const dataStart = align(header.length, alignment);

  const fd = fs.openSync(dest, 'w');
  try {
    fs.writeSync(fd, header, 0, header.length, 0);
    for (const t of tensors) {
      // Zero runs stay holes, as zest-make-model leaves them.
      const bytes = buf.subarray(srcData + t.offset, srcData + t.offset + t.bytes);
      for (let at = 0; at < bytes.length; at += 1 << 20) {
        const piece = bytes.subarray(at, at + (1 << 20));
        if (piece.some((b) => b !== 0)) fs.writeSync(fd, piece, 0, piece.length, dataStart + t.newOffset + at);
      }
    }
    fs.ftruncateSync(fd, dataStart + next);
  } finally {
    fs.closeSync(fd);
  }
  return dest;
}
