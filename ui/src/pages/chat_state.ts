// The Chat page's state, kept outside the components so a conversation goes
// on streaming while another page is shown: conversations (the pure reducer
// of lib/conversations.ts, saved through lib/conversation_db.ts), the one
// answer being streamed, and the sampling settings.
import { signal } from '@preact/signals';
import { getJson, messageOf, stream } from '../api';
import { Action, Conversation, Message, byRecency, newConversation, reduce } from '../lib/conversations';
import { ConversationStore, openConversationStore } from '../lib/conversation_db';

export const conversations = signal<Record<string, Conversation>>({});
export const currentId = signal<string | null>(null);
/** The conversation whose answer is streaming, and how to stop it. */
export const streaming = signal<{ id: string; abort: AbortController } | null>(null);
export const storageNote = signal('');
export const loaded = signal(false);

/** Sampling settings as typed (empty: the server's default). */
export interface Params {
  temperature: string;
  top_p: string;
  max_tokens: string;
}
const paramsKey = 'zest.chat.params';
function loadParams(): Params {
  const none = { temperature: '', top_p: '', max_tokens: '' };
  try {
    return { ...none, ...JSON.parse(localStorage.getItem(paramsKey) ?? '{}') };
  } catch {
    return none;
  }
}
export const params = signal<Params>(loadParams());
export function setParam(name: keyof Params, value: string): void {
  params.value = { ...params.value, [name]: value };
  try {
    localStorage.setItem(paramsKey, JSON.stringify(params.value));
  } catch {
    // Storage disabled: the settings last for this page.
  }
}

let store: Promise<ConversationStore> | null = null;
const notSaved = 'Could not save the conversation:';

function dispatch(action: Action): void {
  conversations.value = reduce(conversations.value, action);
}

function save(id: string): void {
  const c = conversations.value[id];
  void store?.then((s) => (c ? s.put(c) : s.remove(id))).then(() => {
    if (storageNote.value.startsWith(notSaved)) storageNote.value = '';
  }, (e) => {
    // Images are what fills a browser's storage; say so rather than name the exception.
    storageNote.value = (e as Error)?.name === 'QuotaExceededError'
      ? `${notSaved} the browser's storage for this site is full. Deleting conversations with images makes room.`
      : `${notSaved} ${messageOf(e)}`;
  });
}

/** Reads the saved conversations once. */
export async function loadConversations(): Promise<void> {
  if (store) return;
  store = openConversationStore();
  const s = await store;
  if (!s.persistent) storageNote.value = 'This browser keeps no conversations: they last until the page closes.';
  dispatch({ type: 'replaceAll', conversations: await s.loadAll() });
  currentId.value = byRecency(conversations.value)[0]?.id ?? null;
  loaded.value = true;
}

export function current(): Conversation | null {
  return currentId.value ? conversations.value[currentId.value] ?? null : null;
}

export function newChat(model: string, system = ''): string {
  const id = crypto.randomUUID();
  dispatch({ type: 'put', conversation: newConversation(id, model, system, Date.now()) });
  currentId.value = id;
  return id;
}

export function deleteChat(id: string): void {
  if (streaming.value?.id === id) stop();
  dispatch({ type: 'delete', id });
  save(id);
  if (currentId.value === id) currentId.value = byRecency(conversations.value)[0]?.id ?? null;
}

export function setFields(id: string, fields: Partial<Pick<Conversation, 'model' | 'system' | 'title'>>): void {
  dispatch({ type: 'setFields', id, fields, now: Date.now() });
  save(id);
}

export function importConversations(list: Conversation[]): void {
  for (const c of list) {
    dispatch({ type: 'put', conversation: c });
    save(c.id);
  }
  currentId.value = byRecency(conversations.value)[0]?.id ?? null;
}

/** Sends a user message in conversation `id` and streams the answer. */
export async function send(id: string, text: string, images: string[]): Promise<void> {
  const message: Message = { role: 'user', content: text };
  if (images.length > 0) message.images = images;
  dispatch({ type: 'append', id, message, now: Date.now() });
  await answer(id);
}

/** Answers the last user message again. */
export async function regenerate(id: string): Promise<void> {
  const c = conversations.value[id];
  if (!c) return;
  const lastUser = c.messages.map((m) => m.role).lastIndexOf('user');
  if (lastUser < 0) return;
  dispatch({ type: 'truncate', id, length: lastUser + 1, now: Date.now() });
  await answer(id);
}

/** Replaces user message `index`, drops what followed it, and answers again. */
export async function editAndResend(id: string, index: number, text: string): Promise<void> {
  const c = conversations.value[id];
  if (!c || c.messages[index]?.role !== 'user') return;
  const edited: Message = { ...c.messages[index], content: text };
  dispatch({ type: 'truncate', id, length: index, now: Date.now() });
  dispatch({ type: 'append', id, message: edited, now: Date.now() });
  await answer(id);
}

/**
 * Transcribes an audio file with the conversation's (speech) model: the file
 * name as the user's message, the transcript as the answer.
 */
export async function transcribe(id: string, file: File): Promise<void> {
  const c = conversations.value[id];
  if (!c || streaming.value) return;
  const abort = new AbortController();
  streaming.value = { id, abort };
  dispatch({ type: 'append', id, message: { role: 'user', content: `Audio file: ${file.name}` }, now: Date.now() });
  dispatch({ type: 'append', id, message: { role: 'assistant', content: '' }, now: Date.now() });
  const form = new FormData();
  form.append('model', c.model);
  form.append('file', file, file.name);
  form.append('response_format', 'json');
  try {
    const r = await getJson<{ text: string }>('/v1/audio/transcriptions', { form, signal: abort.signal });
    dispatch({ type: 'appendToLast', id, content: r.text.trim() || '(no speech found)', reasoning: '' });
  } catch (e) {
    dispatch({ type: 'updateLast', id, patch: { error: abort.signal.aborted ? 'Stopped.' : messageOf(e) }, now: Date.now() });
  } finally {
    streaming.value = null;
    save(id);
  }
}

export function stop(): void {
  streaming.value?.abort.abort();
}

function apiMessages(c: Conversation) {
  const out: unknown[] = [];
  if (c.system.trim()) out.push({ role: 'system', content: c.system });
  for (const m of c.messages) {
    if (m.images?.length) {
      // Images before the text, as the model cards' own examples put them (LLaVA, Qwen-VL, Gemma 3).
      const parts: unknown[] = m.images.map((url) => ({ type: 'image_url', image_url: { url } }));
      if (m.content.trim()) parts.push({ type: 'text', text: m.content });
      out.push({ role: m.role, content: parts });
    } else {
      out.push({ role: m.role, content: m.content });
    }
  }
  return out;
}

function requestBody(c: Conversation) {
  const body: Record<string, unknown> = {
    model: c.model,
    messages: apiMessages(c),
    stream: true,
    stream_options: { include_usage: true },
  };
  const p = params.value;
  for (const [field, value] of [['temperature', p.temperature], ['top_p', p.top_p], ['max_tokens', p.max_tokens]] as const) {
    if (value.trim() !== '' && Number.isFinite(Number(value))) body[field] = Number(value);
  }
  return body;
}

interface Chunk {
  choices?: { delta?: { content?: string | null; reasoning_content?: string | null } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  timings?: { predicted_per_second?: number };
}

async function answer(id: string): Promise<void> {
  const c = conversations.value[id];
  if (!c || streaming.value) return;
  const abort = new AbortController();
  streaming.value = { id, abort };
  dispatch({ type: 'append', id, message: { role: 'assistant', content: '' }, now: Date.now() });
  const started = performance.now();
  let firstToken = 0;
  try {
    await stream<Chunk>('/v1/chat/completions', { body: requestBody(c), signal: abort.signal }, (chunk) => {
      const delta = chunk.choices?.[0]?.delta;
      if (delta?.content || delta?.reasoning_content) {
        if (!firstToken) firstToken = performance.now();
        dispatch({ type: 'appendToLast', id, content: delta.content ?? '', reasoning: delta.reasoning_content ?? '' });
      }
      if (chunk.usage) {
        const seconds = (performance.now() - (firstToken || started)) / 1000;
        const completion = chunk.usage.completion_tokens;
        dispatch({
          type: 'updateLast', id, now: Date.now(),
          patch: { stats: {
            promptTokens: chunk.usage.prompt_tokens,
            completionTokens: completion,
            tokensPerSecond: chunk.timings?.predicted_per_second ?? (completion && seconds > 0 ? completion / seconds : undefined),
          } },
        });
      }
    });
  } catch (e) {
    const stopped = abort.signal.aborted;
    dispatch({ type: 'updateLast', id, patch: { error: stopped ? 'Stopped.' : messageOf(e) }, now: Date.now() });
  } finally {
    streaming.value = null;
    save(id);
  }
}
