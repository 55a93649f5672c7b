import { describe, expect, it } from 'vitest';
import { Histogram, histogramDelta, intervalPercentiles, quantile, trimWindow } from './histogram';

const h = (counts: number[], bounds: (number | string)[] = [0.1, 0.5, 1, '+Inf'], sum = 0): Histogram => ({
  buckets: bounds.map((b, i) => [b, counts[i]]),
  count: counts[counts.length - 1],
  sum,
});

describe('quantile', () => {
  it('interpolates linearly inside the bucket the rank falls in', () => {
    // 10 observations: 4 under 0.1 s, 4 in (0.1, 0.5], 2 in (0.5, 1].
    const x = h([4, 8, 10, 10]);
    expect(quantile(0.5, x)).toBeCloseTo(0.1 + 0.4 * (1 / 4));
    expect(quantile(0.2, x)).toBeCloseTo(0.05);
    expect(quantile(0.9, x)).toBeCloseTo(0.75);
    expect(quantile(1, x)).toBeCloseTo(1);
  });

  it('answers the highest finite bound for a rank in +Inf, and null when empty', () => {
    expect(quantile(0.99, h([0, 0, 1, 10]))).toBe(1);
    expect(quantile(0.5, h([0, 0, 0, 0]))).toBeNull();
  });

  it('sorts buckets given out of order', () => {
    const x: Histogram = { buckets: [['+Inf', 10], [1, 10], [0.1, 4], [0.5, 8]], count: 10, sum: 0 };
    expect(quantile(0.5, x)).toBeCloseTo(0.2);
  });
});

describe('histogramDelta', () => {
  it('subtracts the previous snapshot bucket by bucket', () => {
    const d = histogramDelta(h([4, 8, 10, 10], undefined, 3), h([4, 9, 14, 15], undefined, 5));
    expect(d.buckets.map((b) => b[1])).toEqual([0, 1, 4, 5]);
    expect(d.count).toBe(5);
    expect(d.sum).toBe(2);
  });

  it('takes the current snapshot after a reset or without a previous one', () => {
    const curr = h([1, 1, 2, 2]);
    expect(histogramDelta(h([4, 8, 10, 10]), curr)).toBe(curr);
    expect(histogramDelta(undefined, curr)).toBe(curr);
  });

  it('gives interval percentiles, null when nothing happened', () => {
    const a = h([4, 8, 10, 10]);
    expect(intervalPercentiles(a, a).p50).toBeNull();
    const p = intervalPercentiles(a, h([4, 8, 20, 20]));
    expect(p.p50).toBeCloseTo(0.75);
    expect(p.p95).toBeCloseTo(0.975);
    expect(p.count).toBe(10);
  });
});

describe('trimWindow', () => {
  it('keeps only points within the window of the newest', () => {
    const pts = [0, 100, 200, 290, 400].map((time) => ({ time }));
    expect(trimWindow(pts, 300).map((p) => p.time)).toEqual([100, 200, 290, 400]);
    expect(trimWindow(pts, 50).map((p) => p.time)).toEqual([400]);
  });
});
