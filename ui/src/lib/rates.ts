// Tokens per second per model from the live feed's cumulative counters
// (`generated_tokens` of GET /api/v1/events): the difference between the
// newest snapshot and the oldest one within the window, over the time
// between them. Pure.

export interface CounterSample {
  time: number;  // unix seconds
  counts: Record<string, number>;
}

/** The samples no older than `windowSeconds` before the newest one. */
export function trimSamples(samples: CounterSample[], windowSeconds: number): CounterSample[] {
  const newest = samples.at(-1);
  if (!newest) return [];
  return samples.filter((s) => newest.time - s.time <= windowSeconds);
}

/**
 * Each model's rate over the samples; a model first seen mid-window counts
 * from zero there. A counter that went down (zest restarted) gives no rate.
 */
export function ratesPerModel(samples: CounterSample[]): Record<string, number> {
  const oldest = samples[0];
  const newest = samples.at(-1);
  const out: Record<string, number> = {};
  if (!oldest || !newest || newest.time <= oldest.time) return out;
  for (const [model, now] of Object.entries(newest.counts)) {
    const then = oldest.counts[model] ?? 0;
    if (now >= then) out[model] = (now - then) / (newest.time - oldest.time);
  }
  return out;
}
