// A STAND-IN for llama.cpp's `llama-tts`, for the speech-out tests: the
// engine rootfs's llama-tts (build 11669, the libmtmd rewrite) speaks only
// with Qwen3-TTS and Pocket TTS, whose codecs load as projectors, and no
// synthetic model of those exists yet (a real one is gigabytes); the
// synthetic OuteTTS pair (zest-make-model --arch outetts) is what this
// llama-tts refuses. It takes the real tool's command line, so that zest's
// side runs for real: speech-out model detection, its placement, the
// engine's command line and sandbox, `zest tts-engine`, admission, the
// relay, ffmpeg's formats, supervision and metrics.
//
//   llama-tts -m BACKBONE -mm VOCODER -p TEXT -o OUT.wav -n FRAMES [-t THREADS]
//
// Both model files must be GGUF (it checks the magic; exit 1 otherwise, as
// the real tool fails to load anything else). It writes 12.5 frames a second
// (Qwen3-TTS-12Hz: 80 ms a frame), as many frames as the text has
// characters plus four, at most FRAMES, as 24 kHz mono 16-bit WAV of noise;
// each frame takes 4 ms, so a long text keeps it busy for a while. It says
// what the real one says when done ("generated N frames...", "wrote OUT").
import fs from 'node:fs';
import path from 'node:path';

export const FRAME_SECONDS = 0.08;

export function writeFakeLlamaTts(dir) {
  const script = path.join(dir, 'llama-tts');
  fs.writeFileSync(script, `#!${process.execPath}
// STAND-IN llama-tts, written by tests/lib/fake_llama_tts.mjs.
const fs = require('node:fs');
const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
for (const flag of ['-m', '-mm']) {
  const file = option(flag);
  let magic = '';
  try { magic = fs.readFileSync(file).subarray(0, 4).toString(); } catch {}
  if (magic !== 'GGUF') {
    console.error('STAND-IN llama-tts: failed to load ' + (flag === '-m' ? 'model' : 'mmproj') + ' ' + file);
    process.exit(1);
  }
}
const text = option('-p') ?? '';
const out = option('-o') ?? 'output.wav';
const limit = Number(option('-n') ?? 1000);
const frames = Math.min(limit, [...text].length + 4);
const samples = frames * 1920;
const wav = Buffer.alloc(44 + samples * 2);
wav.write('RIFF', 0); wav.writeUInt32LE(36 + samples * 2, 4); wav.write('WAVEfmt ', 8);
wav.writeUInt32LE(16, 16); wav.writeUInt16LE(1, 20); wav.writeUInt16LE(1, 22);
wav.writeUInt32LE(24000, 24); wav.writeUInt32LE(48000, 28); wav.writeUInt16LE(2, 32); wav.writeUInt16LE(16, 34);
wav.write('data', 36); wav.writeUInt32LE(samples * 2, 40);
let seed = 12345;
for (let i = 0; i < samples; i++) {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  wav.writeInt16LE((seed % 16000) - 8000, 44 + i * 2);
}
setTimeout(() => {
  fs.writeFileSync(out, wav);
  console.log('generated ' + frames + ' frames, ' + wav.length + ' bytes of WAV audio (24000 Hz)');
  console.log('wrote ' + out);
}, frames * 4);
`, { mode: 0o755 });
  return script;
}

// A STAND-IN codec for the stand-in llama-tts: a GGUF that says what a
// Qwen3-TTS or Pocket TTS codec says of itself, as those repos publish it
// (an mmproj: general.architecture "clip", clip.has_gen_audio_encoder,
// clip.gen.audio.projector_type), and holds no tensor. Only the stand-in
// runs it; zest reads its header to pair it with the backbone as a
// vocoder, which is what the tests of that pairing need.
export function writeStandInCodec(file, { type = 'qwen3tts', name = 'STAND-IN codec' } = {}) {
  const parts = [];
  const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
  const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
  const str = (s) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);
  const GGUF_BOOL = 7;
  const GGUF_STRING = 8;
  const kv = [
    ['general.architecture', GGUF_STRING, str('clip')],
    ['general.type', GGUF_STRING, str('mmproj')],
    ['general.name', GGUF_STRING, str(name)],
    ['clip.has_gen_audio_encoder', GGUF_BOOL, Buffer.from([1])],
    ['clip.gen.audio.projector_type', GGUF_STRING, str(type)],
  ];
  parts.push(Buffer.from('GGUF'), u32(3), u64(0), u64(kv.length));
  for (const [key, kind, value] of kv) parts.push(str(key), u32(kind), value);
  fs.writeFileSync(file, Buffer.concat(parts));
  return file;
}
