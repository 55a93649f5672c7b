// The live feed of the Dashboard and Models pages: GET /api/v1/events, one
// snapshot a second, while the page that asked is shown (one connection per
// page, closed when it goes; reopened after a pause when it drops).
import { useEffect, useState } from 'preact/hooks';
import { stream } from './api';
import { Histogram, intervalPercentiles, trimWindow } from './lib/histogram';
import { CounterSample, ratesPerModel, trimSamples } from './lib/rates';
import type { Instance } from './lib/models';

export interface QueueStats {
  model: string;
  slots: number;
  busy: number;
  waiting: { high: number; normal: number; low: number };
}

export interface Stats {
  model: string | null;
  time_to_first_token: number | null;
  tokens_per_second: number | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  queues: QueueStats[];
  totals?: { requests: number; prompt_tokens: number; completion_tokens: number; cached_tokens: number };
}

/** A request that got an error answer (admin keys only). */
export interface RequestError {
  time: number;
  request_id: string;
  method: string;
  path: string;
  status: number;
  message: string;
}

export interface Gpu {
  name: string;
  vendor: string;
  pci: { address: string };
  integrated: boolean;
  vram_total_bytes: number;
  vram_used_bytes: number;
  busy_percent: number | null;
}

export interface SystemInfo {
  cpu: { model: string; cores: number; threads: number };
  memory: { total_bytes: number; available_bytes: number };
  gpus: Gpu[];
  npus: { name: string; generation: string; usable: boolean; reason: string; pci: { address: string } }[];
  utilisation?: {
    cpu_percent: number | null;
    ram_total_bytes: number;
    ram_used_bytes: number;
    gpus: { pci_address: string; busy_percent: number | null; vram_used_bytes: number }[];
    npus: { pci_address: string; power_state: string }[];
  };
}

export interface Snapshot {
  time: number;
  stats: Stats;
  ps: { instances: Instance[] };
  system: SystemInfo;
  latency?: { time_to_first_token: Histogram; inter_token_latency: Histogram; queue_wait: Histogram };
  errors?: RequestError[];
  /** Tokens each model generated since zest started. */
  generated_tokens?: Record<string, number>;
}

/** One point of the charts: per-interval percentiles (seconds) and queue depth. */
export interface Point {
  time: number;
  ttft50: number | null;
  ttft95: number | null;
  gap50: number | null;
  gap95: number | null;
  queue: number;
}

export const windowSeconds = 300;
/** Tokens/s per model: over the last few snapshots, so a burst shows for a while. */
export const rateWindowSeconds = 10;

export function pointOf(prev: Snapshot | null, s: Snapshot): Point {
  const ttft = s.latency ? intervalPercentiles(prev?.latency?.time_to_first_token, s.latency.time_to_first_token) : null;
  const gap = s.latency ? intervalPercentiles(prev?.latency?.inter_token_latency, s.latency.inter_token_latency) : null;
  const queue = s.stats.queues.reduce((n, q) => n + q.waiting.high + q.waiting.normal + q.waiting.low, 0);
  // The first snapshot has no interval: its histograms hold the server's whole life.
  const first = prev === null;
  return {
    time: s.time,
    ttft50: first ? null : ttft?.p50 ?? null,
    ttft95: first ? null : ttft?.p95 ?? null,
    gap50: first ? null : gap?.p50 ?? null,
    gap95: first ? null : gap?.p95 ?? null,
    queue,
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });

/** Opens the feed while the calling component is mounted. */
export function useLive() {
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [history, setHistory] = useState<Point[]>([]);
  const [connected, setConnected] = useState(false);
  const [error, setError] = useState('');
  const [tokenRates, setTokenRates] = useState<Record<string, number>>({});

  useEffect(() => {
    const abort = new AbortController();
    let prev: Snapshot | null = null;
    let counters: CounterSample[] = [];
    const accept = (s: Snapshot) => {
      const point = pointOf(prev, s);
      prev = s;
      counters = trimSamples([...counters, { time: s.time, counts: s.generated_tokens ?? {} }], rateWindowSeconds);
      setTokenRates(ratesPerModel(counters));
      setSnapshot(s);
      setConnected(true);
      setError('');
      setHistory((h) => trimWindow([...h, point], windowSeconds));
    };
    (async () => {
      while (!abort.signal.aborted) {
        try {
          await stream<Snapshot>('/api/v1/events', { signal: abort.signal }, accept);
        } catch (e) {
          if (abort.signal.aborted) return;
          setError(e instanceof Error ? e.message : String(e));
        }
        setConnected(false);
        await sleep(3000, abort.signal);  // Reconnect after a pause.
      }
    })();
    return () => abort.abort();
  }, []);

  return { snapshot, history, connected, error, tokenRates };
}
