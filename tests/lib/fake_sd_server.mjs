// A STAND-IN for stable-diffusion.cpp's `sd-server`, for machines without
// one: no Debian package ships sd-server, and a real diffusion model is
// gigabytes. It speaks the server's documented HTTP API (examples/server in
// leejet/stable-diffusion.cpp) so that zest's side runs for real: the image
// model's placement, the engine's command line, its own network namespace
// and the engine bridge, the relay, supervision and metrics.
//
//   sd-server --listen-ip IP --listen-port PORT -m MODEL [-t THREADS]
//   GET  /v1/models                 → {data: [{id: "sd-cpp-local", ...}]}
//   POST /v1/images/generations     {prompt, n, size "WxH", output_format}
//        → {created, output_format, data: [{b64_json}]}; 400 {error} when
//          the prompt is missing.
//
// The model must be a safetensors file (it reads the header, as the real
// server would fail to load anything else). Each image is a real PNG of the
// asked size, one colour made from the prompt; making it takes 1 ms per
// 1,000 pixels, so a large image keeps the engine busy for a while. It
// encodes PNG only and refuses any other output_format with a 400, as an
// sd-server build without other encoders would: so a jpeg or webp image
// that comes back through zest was made by zest. A prompt starting
// "STAND-IN: refuse" is refused too (400), for tests of an engine's refusal.
import fs from 'node:fs';
import path from 'node:path';

export function writeFakeSdServer(dir) {
  const script = path.join(dir, 'sd-server');
  fs.writeFileSync(script, `#!${process.execPath}
// STAND-IN sd-server, written by tests/lib/fake_sd_server.mjs.
const fs = require('node:fs');
const http = require('node:http');
const zlib = require('node:zlib');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const model = option('-m');
try {
  const bytes = fs.readFileSync(model);
  const length = Number(bytes.readBigUInt64LE(0));
  JSON.parse(bytes.subarray(8, 8 + length).toString());
} catch (e) {
  console.error('STAND-IN sd-server: cannot load model ' + model + ': ' + e.message);
  process.exit(1);
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
};
// An RGB PNG of one colour.
const png = (width, height, rgb) => {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;  // bit depth
  ihdr[9] = 2;  // truecolour
  const row = Buffer.alloc(1 + width * 3);  // filter 0, then pixels
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
};
const send = (res, status, body) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};

let busy = Promise.resolve();  // one job at a time, as the real server's mutex
http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => { body += d; });
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      return send(res, 200, { data: [{ id: 'sd-cpp-local', object: 'model', owned_by: 'local' }] });
    }
    if (req.method !== 'POST' || req.url !== '/v1/images/generations') return send(res, 404, { error: 'not found' });
    let j;
    try { j = JSON.parse(body); } catch { return send(res, 400, { error: 'invalid json' }); }
    if (!j.prompt) return send(res, 400, { error: 'prompt required' });
    if (j.prompt.startsWith('STAND-IN: refuse')) return send(res, 400, { error: 'the STAND-IN refuses this prompt' });
    const format = j.output_format ?? 'png';
    if (format !== 'png') return send(res, 400, { error: 'the STAND-IN encodes png only' });
    const n = Math.max(1, j.n ?? 1);
    const [width, height] = (j.size ?? '512x512').split('x').map(Number);
    busy = busy.then(() => new Promise((done) => {
      setTimeout(() => {
        let h = 0;
        for (const c of j.prompt) h = (h * 31 + c.charCodeAt(0)) >>> 0;
        const image = png(width, height, [h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff]);
        const data = Array.from({ length: n }, () => ({ b64_json: image.toString('base64') }));
        send(res, 200, { created: Math.floor(Date.now() / 1000), output_format: format, data });
        done();
      }, (n * width * height) / 1000);
    }));
  });
}).listen(Number(option('--listen-port', '1234')), option('--listen-ip', '127.0.0.1'), () => {
  console.log('STAND-IN sd-server: listening, model ' + model);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
`, { mode: 0o755 });
  return script;
}

// A safetensors file holding `tensors` ({name: {dtype, shape}}) with zeroed
// data: the format's u64 header length, the JSON header, the data.
export function writeSafetensors(file, tensors) {
  const header = {};
  let offset = 0;
  const sizes = { F32: 4, F16: 2, BF16: 2 };
  for (const [name, { dtype, shape }] of Object.entries(tensors)) {
    const bytes = shape.reduce((a, b) => a * b, 1) * sizes[dtype];
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  fs.writeFileSync(file, Buffer.concat([length, json, Buffer.alloc(offset)]));
}
