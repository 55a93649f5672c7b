import { describe, expect, it } from 'vitest';
import { ratesPerModel, trimSamples } from './rates';

describe('rates', () => {
  it('divides each counter difference by the time between the ends', () => {
    const rates = ratesPerModel([
      { time: 100, counts: { a: 10, b: 5 } },
      { time: 101, counts: { a: 30, b: 5 } },
      { time: 104, counts: { a: 90, b: 5, c: 8 } },
    ]);
    expect(rates.a).toBeCloseTo(20);
    expect(rates.b).toBe(0);
    expect(rates.c).toBeCloseTo(2);  // first seen mid-window: from zero
  });

  it('gives nothing without an interval, or when a counter went down', () => {
    expect(ratesPerModel([])).toEqual({});
    expect(ratesPerModel([{ time: 5, counts: { a: 1 } }])).toEqual({});
    expect(ratesPerModel([{ time: 5, counts: { a: 100 } }, { time: 6, counts: { a: 3 } }])).toEqual({});
  });

  it('keeps the samples within the window of the newest', () => {
    const s = [0, 3, 6, 9, 12].map((time) => ({ time, counts: {} }));
    expect(trimSamples(s, 6).map((x) => x.time)).toEqual([6, 9, 12]);
    expect(trimSamples([], 6)).toEqual([]);
  });
});
