// What the app needs to know about the entries of GET /api/v1/models?all=true
// and GET /api/v1/ps: their shapes, and which models can chat or see images.

export interface Fit {
  verdict: 'yes' | 'partial' | 'cpu' | 'no';
  needed_bytes: number;
  available_bytes: number;
  reason: string;
}

export interface ModelEntry {
  id: string;
  source: string;
  downloaded?: boolean;
  loaded?: boolean;
  size?: number;
  quantization?: string;
  context_length?: number;
  suggested_ctx?: number;
  /** llm, embedding, reranker, speech (to text), tts (speech out) or image; absent for catalog entries. */
  type?: string;
  labels?: string[];
  recipe?: string;
  mmproj?: string;
  /** completion, vision, tools, thinking, embedding (served models; GET /v1/models). */
  capabilities?: string[];
  description?: string;
  error?: string;
  fit?: Fit;
}

export interface Instance {
  model: string;
  replica?: number;
  pid?: number;  // admin keys only, with socket
  state: string;
  device?: string;
  slots?: number;
  in_flight?: number;
  expires_in_s?: number | null;
  placement?: {
    devices?: string[];
    predicted_bytes?: Record<string, { total: number }>;
    predicted_total_bytes?: number;
    explanation?: string;
    ctx_size?: number;
  };
}

/** A model that can be asked for chat completions now (downloaded, a language model). */
export function isChatModel(m: ModelEntry): boolean {
  if (m.error || m.source === 'catalog') return false;  // catalog entries are served under their store name too
  return m.type === undefined || m.type === 'llm';
}

/** A downloaded speech-to-text model: the chat page transcribes audio files with it. */
export function isSpeechModel(m: ModelEntry | undefined): boolean {
  return !!m && !m.error && m.source !== 'catalog' && m.type === 'speech';
}

/** A downloaded speech-out model: it reads answers aloud. */
export function isSpeechOutModel(m: ModelEntry | undefined): boolean {
  return !!m && !m.error && m.source !== 'catalog' && m.type === 'tts';
}

/**
 * A model that reads images: zest lists "vision" in its capabilities when a
 * projector that sees is paired with it (a projector alone may hear only).
 */
export function canSeeImages(m: ModelEntry | undefined): boolean {
  return !!m && !m.error && (m.capabilities ?? []).includes('vision');
}

/** Whether the model's files are here (catalog entries say; others are files). */
export function isDownloaded(m: ModelEntry): boolean {
  return m.downloaded !== false && !m.error;
}

/** Model names with a ready (or loading) engine, from /api/v1/ps. */
export function loadedStates(instances: Instance[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const i of instances) {
    // One model may have several instances; "ready" wins over anything else.
    if (out.get(i.model) !== 'ready') out.set(i.model, i.state);
  }
  return out;
}

/** The text of an option in the chat model picker. */
export function pickerLabel(m: ModelEntry, state: string | undefined): string {
  const parts = [state === 'ready' || (!state && m.loaded) ? 'loaded' : state ?? 'not loaded'];
  if (m.fit) parts.push(`fit: ${m.fit.verdict}`);
  return `${m.id} (${parts.join(', ')})`;
}

/** The memory placement predicted for `instances`, summed per device, largest first. */
export function predictedByDevice(instances: Instance[]): [string, number][] {
  const sums = new Map<string, number>();
  for (const i of instances) {
    for (const [device, use] of Object.entries(i.placement?.predicted_bytes ?? {})) {
      sums.set(device, (sums.get(device) ?? 0) + (use.total ?? 0));
    }
  }
  return [...sums].sort((a, b) => b[1] - a[1]);
}
