// The one way the app talks to zest: same-origin fetch with the stored API
// key as a bearer token, errors turned into ApiError with the server's own
// message (OpenAI's shape), and a 401 anywhere opening the key dialog.
import { signal } from '@preact/signals';
import { readSse } from './lib/sse';

const keyName = 'zest.key';

export type Access = 'admin' | 'inference' | 'none';

/** What the server said about the key we hold (GET /api/v1/session). */
export const session = signal<{ keysRequired: boolean; access: Access } | null>(null);
/** Whether the key dialog is open. */
export const keyDialogOpen = signal(false);

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(keyName);
  } catch {
    return null;
  }
}

export function storeKey(key: string | null): void {
  try {
    if (key) sessionStorage.setItem(keyName, key);
    else sessionStorage.removeItem(keyName);
  } catch {
    // Storage disabled: the key lasts as long as nothing; the dialog will ask again.
  }
}

/** An error answer, or a failure to reach the server. */
export class ApiError extends Error {
  constructor(message: string, readonly status: number, readonly param: string | null = null, readonly code: string | null = null) {
    super(message);
  }
}

/** The error in an OpenAI-shaped body, if it is one. */
export function errorFromBody(body: unknown, status: number): ApiError | null {
  const e = (body as { error?: { message?: unknown; param?: unknown; code?: unknown } } | null)?.error;
  if (!e || typeof e !== 'object') return null;
  const message = typeof e.message === 'string' ? e.message : `HTTP ${status}`;
  return new ApiError(message, status, typeof e.param === 'string' ? e.param : null, typeof e.code === 'string' ? e.code : null);
}

function headers(json: boolean): Record<string, string> {
  const h: Record<string, string> = {};
  const key = storedKey();
  if (key) h.Authorization = `Bearer ${key}`;
  if (json) h['Content-Type'] = 'application/json';
  return h;
}

/**
 * fetch with the key; resolves to a 2xx response or rejects with ApiError.
 * `body` is sent as JSON, `form` as multipart (uploads).
 */
export async function request(path: string, init: { method?: string; body?: unknown; form?: FormData; signal?: AbortSignal } = {}): Promise<Response> {
  let res: Response;
  const sending = init.body !== undefined || init.form !== undefined;
  try {
    res = await fetch(path, {
      method: init.method ?? (sending ? 'POST' : 'GET'),
      headers: headers(init.body !== undefined),
      body: init.form ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
      signal: init.signal,
    });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError('Cannot reach the zest server.', 0);
  }
  if (res.ok) return res;
  if (res.status === 401) keyDialogOpen.value = true;
  const text = await res.text().catch(() => '');
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page, say): fall back to the status below.
  }
  throw errorFromBody(body, res.status) ?? new ApiError(`HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`, res.status);
}

/** GET or POST returning parsed JSON. */
export async function getJson<T>(path: string, init: { method?: string; body?: unknown; form?: FormData; signal?: AbortSignal } = {}): Promise<T> {
  const res = await request(path, init);
  return (await res.json()) as T;
}

/**
 * A streamed request: calls onEvent with each SSE event's parsed JSON. An
 * event holding an OpenAI-shaped error rejects with that error.
 */
export async function stream<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal }, onEvent: (event: T) => void): Promise<void> {
  const res = await request(path, init);
  if (!res.body) throw new ApiError('The server sent no stream.', res.status);
  await readSse(res.body, (data) => {
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return;  // Not JSON: nothing this app understands.
    }
    const error = errorFromBody(event, 500);
    if (error) throw error;
    onEvent(event as T);
  });
}

/**
 * Asks the server what the stored key may do (GET /api/v1/session, which
 * needs no key, so asking never fails with 401); updates `session`.
 */
export async function refreshSession(): Promise<Access> {
  const s = await getJson<{ keys_required: boolean; access: Access }>('/api/v1/session');
  session.value = { keysRequired: s.keys_required, access: s.access };
  if (s.access === 'none') keyDialogOpen.value = true;
  return s.access;
}

/** True when the current key may use admin routes. */
export function isAdmin(): boolean {
  return session.value?.access === 'admin';
}

/** A model name as a path: each '/'-separated segment encoded on its own. */
export function modelPath(name: string): string {
  return name.split('/').map(encodeURIComponent).join('/');
}

/** A message for anything caught. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
