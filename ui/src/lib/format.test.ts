import { describe, expect, it } from 'vitest';
import { formatBytes, formatCount, formatDuration, formatRate, percent, timeLeft, transferRate } from './format';

describe('formatBytes', () => {
  it('uses binary units with one decimal below 10', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(639000000)).toBe('609 MiB');
    expect(formatBytes(2.5 * 1024 ** 3)).toBe('2.5 GiB');
    expect(formatBytes(-2048)).toBe('-2.0 KiB');
    expect(formatBytes(null)).toBe('—');
  });
});

describe('formatDuration', () => {
  it('picks a unit by size', () => {
    expect(formatDuration(0.0048)).toBe('5 ms');
    expect(formatDuration(2.44)).toBe('2.4 s');
    expect(formatDuration(42)).toBe('42 s');
    expect(formatDuration(185)).toBe('3 min 05 s');
    expect(formatDuration(7620)).toBe('2 h 07 min');
    expect(formatDuration(undefined)).toBe('—');
  });
});

describe('counts and rates', () => {
  it('formats counts and token rates', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatRate(2738.65)).toBe('2739 tok/s');
    expect(formatRate(42.345)).toBe('42.3 tok/s');
  });
});

describe('download progress', () => {
  const samples = [
    { time: 0, bytes: 0 },
    { time: 1000, bytes: 1000 },
    { time: 6000, bytes: 21000 },
    { time: 7000, bytes: 25000 },
  ];

  it('measures the rate over the recent window', () => {
    // 5 s back from 7000 ms: the first sample at or after 2000 ms is the 6000 ms one.
    expect(transferRate(samples, 5000)).toBeCloseTo(4000);
    expect(transferRate(samples, 10000)).toBeCloseTo(25000 / 7);
    expect(transferRate(samples.slice(0, 1))).toBeNull();
  });

  it('estimates time left and percent', () => {
    expect(timeLeft(25000, 65000, 4000)).toBe(10);
    expect(timeLeft(1, 2, null)).toBeNull();
    expect(percent(25000, 65000)).toBe(38);
    expect(percent(5, 0)).toBe(0);
    expect(percent(70, 65)).toBe(100);
  });
});
