// Latency percentiles from zest's cumulative histograms (the `latency`
// field of /api/v1/events). The server's histograms count every request
// since it started; the dashboard wants each interval's percentiles, so it
// takes the difference of two successive snapshots and interpolates within
// a bucket the way Prometheus' histogram_quantile does.

/** [upper bound in seconds ("+Inf" for the last), cumulative count]. */
export type Bucket = [number | string, number];

export interface Histogram {
  buckets: Bucket[];
  count: number;
  sum: number;
}

function bound(b: Bucket): number {
  return b[0] === '+Inf' ? Infinity : Number(b[0]);
}

/**
 * The histogram of what happened between `prev` and `curr`. Without `prev`,
 * or when the counts went down (the server restarted), `curr` itself.
 */
export function histogramDelta(prev: Histogram | undefined, curr: Histogram): Histogram {
  if (!prev || curr.count < prev.count || prev.buckets.length !== curr.buckets.length) return curr;
  const buckets = curr.buckets.map((b, i): Bucket => [b[0], b[1] - prev.buckets[i][1]]);
  if (buckets.some((b) => b[1] < 0)) return curr;
  return { buckets, count: curr.count - prev.count, sum: curr.sum - prev.sum };
}

/**
 * The q-quantile (0..1) of a histogram with cumulative buckets, or null when
 * it holds no observations. Linear within the bucket the rank falls in (the
 * first bucket starts at 0); a rank in the +Inf bucket answers the highest
 * finite bound, as Prometheus does.
 */
export function quantile(q: number, h: Histogram): number | null {
  const buckets = [...h.buckets].sort((a, b) => bound(a) - bound(b));
  if (buckets.length === 0) return null;
  const total = buckets[buckets.length - 1][1];
  if (!(total > 0)) return null;
  const rank = Math.min(Math.max(q, 0), 1) * total;
  let i = buckets.findIndex((b) => b[1] >= rank);
  if (i < 0) i = buckets.length - 1;
  const upper = bound(buckets[i]);
  if (upper === Infinity) return i > 0 ? bound(buckets[i - 1]) : null;
  const lower = i > 0 ? bound(buckets[i - 1]) : 0;
  const below = i > 0 ? buckets[i - 1][1] : 0;
  const inBucket = buckets[i][1] - below;
  if (inBucket <= 0) return upper;
  return lower + (upper - lower) * ((rank - below) / inBucket);
}

/** p50, p95 and p99 of the interval between two snapshots. */
export function intervalPercentiles(prev: Histogram | undefined, curr: Histogram) {
  const d = histogramDelta(prev, curr);
  return { p50: quantile(0.5, d), p95: quantile(0.95, d), p99: quantile(0.99, d), count: d.count };
}

/** A rolling window: keeps the points newer than `seconds` before the newest. */
export function trimWindow<T extends { time: number }>(points: T[], seconds: number): T[] {
  if (points.length === 0) return points;
  const oldest = points[points.length - 1].time - seconds;
  const first = points.findIndex((p) => p.time >= oldest);
  return first <= 0 ? points : points.slice(first);
}
