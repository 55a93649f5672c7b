// Conversations as a pure reducer over plain data, plus the JSON format of
// Export and Import and its validation. The IndexedDB adapter
// (conversation_db.ts) only stores what this produces.
import { isImageDataUrl } from './images';

export type Role = 'user' | 'assistant';

/** Speed and size of an answer, from the stream's final usage and timings. */
export interface AnswerStats {
  promptTokens?: number;
  completionTokens?: number;
  tokensPerSecond?: number;
}

export interface Message {
  role: Role;
  content: string;
  /** The model's reasoning_content, shown folded. */
  reasoning?: string;
  /** Attached images as base64 data: URLs (user messages; lib/images.ts says at what size). */
  images?: string[];
  stats?: AnswerStats;
  /** Why the answer stopped early: an error message, or "stopped". */
  error?: string;
}

export interface Conversation {
  id: string;
  title: string;
  model: string;
  system: string;
  messages: Message[];
  created: number;
  updated: number;
}

/** All conversations by id. */
export type Conversations = Record<string, Conversation>;

export type Action =
  | { type: 'replaceAll'; conversations: Conversation[] }
  | { type: 'put'; conversation: Conversation }
  | { type: 'delete'; id: string }
  | { type: 'append'; id: string; message: Message; now: number }
  | { type: 'updateLast'; id: string; patch: Partial<Message>; now: number }
  | { type: 'appendToLast'; id: string; content?: string; reasoning?: string }
  | { type: 'truncate'; id: string; length: number; now: number }
  | { type: 'setFields'; id: string; fields: Partial<Pick<Conversation, 'model' | 'system' | 'title'>>; now: number };

const titleLength = 60;

/** A title from the first user message: its first line, shortened ("Image" for an image alone). */
export function titleFrom(text: string, images = 0): string {
  const line = text.trim().split('\n')[0].trim();
  if (!line && images > 0) return images === 1 ? 'Image' : `${images} images`;
  return line.length > titleLength ? `${line.slice(0, titleLength - 1)}…` : line || 'New chat';
}

/** Every image a conversation holds, in order: all of them go with its next request. */
export function imagesOf(c: Conversation | null | undefined): string[] {
  return c ? c.messages.flatMap((m) => m.images ?? []) : [];
}

export function newConversation(id: string, model: string, system: string, now: number): Conversation {
  return { id, title: 'New chat', model, system, messages: [], created: now, updated: now };
}

function update(state: Conversations, id: string, f: (c: Conversation) => Conversation): Conversations {
  const c = state[id];
  return c ? { ...state, [id]: f(c) } : state;
}

export function reduce(state: Conversations, action: Action): Conversations {
  switch (action.type) {
    case 'replaceAll':
      return Object.fromEntries(action.conversations.map((c) => [c.id, c]));
    case 'put':
      return { ...state, [action.conversation.id]: action.conversation };
    case 'delete': {
      const { [action.id]: _gone, ...rest } = state;
      return rest;
    }
    case 'append':
      return update(state, action.id, (c) => ({
        ...c,
        title: c.messages.length === 0 && action.message.role === 'user' ? titleFrom(action.message.content, action.message.images?.length) : c.title,
        messages: [...c.messages, action.message],
        updated: action.now,
      }));
    case 'updateLast':
      return update(state, action.id, (c) => {
        if (c.messages.length === 0) return c;
        const last = { ...c.messages[c.messages.length - 1], ...action.patch };
        return { ...c, messages: [...c.messages.slice(0, -1), last], updated: action.now };
      });
    case 'appendToLast':
      return update(state, action.id, (c) => {
        if (c.messages.length === 0) return c;
        const last = c.messages[c.messages.length - 1];
        const next = { ...last, content: last.content + (action.content ?? '') };
        if (action.reasoning) next.reasoning = (last.reasoning ?? '') + action.reasoning;
        return { ...c, messages: [...c.messages.slice(0, -1), next] };
      });
    case 'truncate':
      return update(state, action.id, (c) => ({ ...c, messages: c.messages.slice(0, action.length), updated: action.now }));
    case 'setFields':
      return update(state, action.id, (c) => ({ ...c, ...action.fields, updated: action.now }));
  }
}

/** Newest first, as the sidebar lists them. */
export function byRecency(state: Conversations): Conversation[] {
  return Object.values(state).sort((a, b) => b.updated - a.updated);
}

export const exportFormat = 'zest-conversations';

/** The JSON text that Export downloads. */
export function exportJson(state: Conversations): string {
  return JSON.stringify({ format: exportFormat, version: 1, conversations: byRecency(state) }, null, 2);
}

export type ImportResult = { ok: true; conversations: Conversation[] } | { ok: false; error: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkMessage(m: unknown, where: string): string | Message {
  if (!isObject(m)) return `${where} is not an object`;
  if (m.role !== 'user' && m.role !== 'assistant') return `${where}.role must be "user" or "assistant"`;
  if (typeof m.content !== 'string') return `${where}.content must be a string`;
  const out: Message = { role: m.role, content: m.content };
  if (typeof m.reasoning === 'string') out.reasoning = m.reasoning;
  if (typeof m.error === 'string') out.error = m.error;
  if (m.images !== undefined) {
    if (!Array.isArray(m.images) || !m.images.every(isImageDataUrl)) {
      return `${where}.images must be a list of base64 data:image/ URLs`;
    }
    out.images = m.images;
  }
  if (isObject(m.stats)) {
    const s = m.stats;
    out.stats = {};
    for (const k of ['promptTokens', 'completionTokens', 'tokensPerSecond'] as const) {
      if (typeof s[k] === 'number') out.stats[k] = s[k] as number;
    }
  }
  return out;
}

function checkConversation(c: unknown, where: string): string | Conversation {
  if (!isObject(c)) return `${where} is not an object`;
  if (typeof c.id !== 'string' || c.id === '') return `${where}.id must be a non-empty string`;
  if (!Array.isArray(c.messages)) return `${where}.messages must be a list`;
  const messages: Message[] = [];
  for (let i = 0; i < c.messages.length; i++) {
    const m = checkMessage(c.messages[i], `${where}.messages[${i}]`);
    if (typeof m === 'string') return m;
    messages.push(m);
  }
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  return {
    id: c.id,
    title: typeof c.title === 'string' ? c.title : 'Imported chat',
    model: typeof c.model === 'string' ? c.model : '',
    system: typeof c.system === 'string' ? c.system : '',
    messages,
    created: num(c.created),
    updated: num(c.updated),
  };
}

/** Parses and checks an export file; only known fields are kept. */
export function parseImport(text: string): ImportResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, error: 'The file is not JSON.' };
  }
  if (!isObject(data) || data.format !== exportFormat || !Array.isArray(data.conversations)) {
    return { ok: false, error: `The file is not a zest conversations export (expected "format": "${exportFormat}").` };
  }
  const conversations: Conversation[] = [];
  for (let i = 0; i < data.conversations.length; i++) {
    const c = checkConversation(data.conversations[i], `conversations[${i}]`);
    if (typeof c === 'string') return { ok: false, error: `Invalid file: ${c}.` };
    conversations.push(c);
  }
  return { ok: true, conversations };
}
