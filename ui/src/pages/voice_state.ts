// Speech out on the Chat page: the speech-out model answers are read with,
// the one answer playing now, and voice mode (record a question, have it
// transcribed, send it, and read the answer aloud). Kept outside the
// components, as chat_state.ts is, so playback goes on across pages.
import { signal } from '@preact/signals';
import { getJson, messageOf, request } from '../api';
import { speakableText } from '../lib/speech_text';
import { conversations, send, streaming } from './chat_state';

const voiceKey = 'zest.chat.voice';

function loadVoice(): string {
  try {
    return localStorage.getItem(voiceKey) ?? '';
  } catch {
    return '';
  }
}

/** The speech-out model that reads answers aloud; '' until one is picked. */
export const voiceModel = signal(loadVoice());
export function setVoiceModel(name: string): void {
  voiceModel.value = name;
  try {
    localStorage.setItem(voiceKey, name);
  } catch {
    // Storage disabled: the choice lasts for this page.
  }
}

/** The answer being read ("conversation id:message index") and how to stop it. */
export const speaking = signal<{ key: string; stop: () => void } | null>(null);
/**
 * Voice mode's recorder while it listens, and how to end the recording;
 * `hearing` once the microphone has delivered sound (then there is something to
 * send), and whole `seconds` recorded so far.
 */
export const recording = signal<{ finish: () => void; cancel: () => void; hearing: boolean; seconds: number } | null>(null);
/** What went wrong last in speaking or listening, for the page to show. */
export const voiceError = signal('');

export function stopSpeaking(): void {
  speaking.value?.stop();
}

/** Reads `markdown` aloud with `model`; a second call stops the first. */
export async function speak(key: string, markdown: string, model: string): Promise<void> {
  stopSpeaking();
  voiceError.value = '';
  const input = speakableText(markdown);
  if (!input || !model) return;
  const abort = new AbortController();
  let audio: HTMLAudioElement | null = null;
  let url = '';
  const stop = () => {
    abort.abort();
    audio?.pause();
    if (url) URL.revokeObjectURL(url);
    if (speaking.value?.key === key) speaking.value = null;
  };
  speaking.value = { key, stop };
  try {
    // WAV: every browser plays it, and zest converts nothing for it.
    const res = await request('/v1/audio/speech', {
      body: { model, input, voice: 'alloy', response_format: 'wav' }, signal: abort.signal,
    });
    const blob = await res.blob();
    if (abort.signal.aborted) return;
    url = URL.createObjectURL(blob);
    audio = new Audio(url);
    audio.dataset.testid = 'answer-audio';
    audio.onended = stop;
    await audio.play();
  } catch (e) {
    if (!abort.signal.aborted) {
      voiceError.value = (e as Error)?.name === 'NotAllowedError'
        ? 'The browser did not let the page play sound: use Listen on the answer.'
        : `Could not read the answer aloud: ${messageOf(e)}`;
    }
    stop();
  }
}

/** Whether this browser can record from a microphone (a secure page: https or localhost). */
export function canRecord(): boolean {
  return typeof MediaRecorder !== 'undefined' && !!navigator.mediaDevices?.getUserMedia;
}

// The recorder hands over what it has every chunkMs.
const chunkMs = 250;

async function transcribeBlob(blob: Blob, model: string): Promise<string> {
  const form = new FormData();
  form.append('model', model);
  form.append('file', blob, blob.type.includes('ogg') ? 'question.ogg' : 'question.webm');
  form.append('response_format', 'json');
  const r = await getJson<{ text: string }>('/v1/audio/transcriptions', { form });
  return r.text.trim();
}

/**
 * Voice mode: records until `recording.finish()`, has `listenModel`
 * transcribe it, sends the text in conversation `id`, and reads the answer
 * aloud with the voice model, if one is picked.
 */
export async function talk(id: string, listenModel: string): Promise<void> {
  if (recording.value || streaming.value) return;
  voiceError.value = '';
  stopSpeaking();
  let media: MediaStream;
  try {
    media = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (e) {
    voiceError.value = `The microphone is not available: ${messageOf(e)}`;
    return;
  }
  const chunks: Blob[] = [];
  const recorder = new MediaRecorder(media);
  let keep = true;
  const controls = {
    finish: () => recorder.stop(),
    cancel: () => { keep = false; recorder.stop(); },
  };
  const stopped = new Promise<void>((resolve) => {
    recorder.ondataavailable = (e) => {
      if (e.data.size > 0) chunks.push(e.data);
      const seconds = Math.floor((chunks.length * chunkMs) / 1000);
      if (chunks.length > 0 && recording.value && (!recording.value.hearing || recording.value.seconds !== seconds)) {
        recording.value = { ...controls, hearing: true, seconds };
      }
    };
    recorder.onstop = () => resolve();
  });
  recording.value = { ...controls, hearing: false, seconds: 0 };
  recorder.start(chunkMs);  // "hearing" as soon as sound arrives, and a running time
  await stopped;
  media.getTracks().forEach((t) => t.stop());
  recording.value = null;
  if (!keep) return;
  if (chunks.length === 0) {
    voiceError.value = 'No sound was recorded.';
    return;
  }
  try {
    const text = await transcribeBlob(new Blob(chunks, { type: recorder.mimeType }), listenModel);
    if (!text) {
      voiceError.value = 'No speech was heard.';
      return;
    }
    await send(id, text, []);
  } catch (e) {
    voiceError.value = `Could not transcribe the recording: ${messageOf(e)}`;
    return;
  }
  const c = conversations.value[id];
  const last = c?.messages.length ? c.messages[c.messages.length - 1] : undefined;
  if (last?.role === 'assistant' && !last.error && voiceModel.value) {
    await speak(`${id}:${c!.messages.length - 1}`, last.content, voiceModel.value);
  }
}
