// Formatting of numbers for people: bytes, durations, rates, and the speed
// and time left of a download from its progress samples.

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** 1536 → "1.5 KiB"; binary units, as zest's own messages use. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes == null || !Number.isFinite(bytes)) return '—';
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const sign = bytes < 0 ? '-' : '';
  if (unit === 0) return `${sign}${value} B`;
  return `${sign}${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** Seconds as "850 ms", "2.4 s", "3 min 05 s", "2 h 07 min". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds == null || !Number.isFinite(seconds) || seconds < 0) return '—';
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
  const s = Math.round(seconds);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** A count with thousands separators: 12345 → "12,345". */
export function formatCount(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '—';
  return Math.round(n).toLocaleString('en-US');
}

/** Tokens per second with sensible precision. */
export function formatRate(perSecond: number | null | undefined): string {
  if (perSecond == null || !Number.isFinite(perSecond)) return '—';
  return `${perSecond < 100 ? perSecond.toFixed(1) : Math.round(perSecond)} tok/s`;
}

/** One observation of a download: `time` in ms, `bytes` done so far. */
export interface ProgressSample {
  time: number;
  bytes: number;
}

/**
 * Bytes per second over the last `windowMs` of samples (at least two
 * samples apart in time), or null when there is not enough to tell.
 */
export function transferRate(samples: ProgressSample[], windowMs = 5000): number | null {
  if (samples.length < 2) return null;
  const last = samples[samples.length - 1];
  const first = samples.find((s) => s.time >= last.time - windowMs) ?? samples[0];
  const ms = last.time - first.time;
  if (ms <= 0) return null;
  return Math.max(0, ((last.bytes - first.bytes) * 1000) / ms);
}

/** Seconds left to transfer `total` at `rate` bytes/s, or null when unknown. */
export function timeLeft(done: number, total: number, rate: number | null): number | null {
  if (rate == null || rate <= 0 || total <= 0) return null;
  return Math.max(0, total - done) / rate;
}

/** Whole percent done, 0..100. */
export function percent(done: number, total: number): number {
  if (!(total > 0)) return 0;
  return Math.min(100, Math.max(0, Math.floor((done * 100) / total)));
}

/** A unix time (seconds) as local "HH:MM:SS". */
export function formatClock(unixSeconds: number): string {
  const d = new Date(unixSeconds * 1000);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}
