// A small hand-written SVG line chart of a rolling window, with a text
// alternative (the latest value and range of each series) for screen readers.
import { formatClock } from '../lib/format';

export interface Series {
  name: string;
  /** A CSS class giving the line its colour. */
  tone: string;
  values: (number | null)[];
}

interface Props {
  title: string;
  times: number[];
  series: Series[];
  format: (v: number) => string;
}

const width = 320;
const height = 120;
const pad = { left: 4, right: 4, top: 8, bottom: 4 };

function path(values: (number | null)[], times: number[], x: (t: number) => number, y: (v: number) => number): string {
  let d = '';
  let pen = false;
  values.forEach((v, i) => {
    if (v == null) {
      pen = false;
      return;
    }
    d += `${pen ? 'L' : 'M'}${x(times[i]).toFixed(1)},${y(v).toFixed(1)}`;
    pen = true;
  });
  return d;
}

function summary(s: Series, format: (v: number) => string): string {
  const known = s.values.filter((v): v is number => v != null);
  if (known.length === 0) return `${s.name}: no data`;
  return `${s.name}: latest ${format(known[known.length - 1])}, highest ${format(Math.max(...known))}`;
}

export function LineChart({ title, times, series, format }: Props) {
  const known = series.flatMap((s) => s.values.filter((v): v is number => v != null));
  const max = Math.max(...known, 0) || 1;
  const t0 = times[0] ?? 0;
  const t1 = times[times.length - 1] ?? 1;
  const x = (t: number) => pad.left + ((t - t0) / Math.max(t1 - t0, 1)) * (width - pad.left - pad.right);
  const y = (v: number) => height - pad.bottom - (v / max) * (height - pad.top - pad.bottom);
  const description = series.map((s) => summary(s, format)).join('; ');
  return (
    <figure class="chart">
      <figcaption>
        <span class="chart-title">{title}</span>
        <span class="legend" aria-hidden="true">
          {series.map((s) => <span key={s.name} class={`legend-item ${s.tone}`}>{s.name}</span>)}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`${title}. ${description}`} preserveAspectRatio="none">
        <line class="grid" x1={pad.left} x2={width - pad.right} y1={y(max)} y2={y(max)} />
        <line class="grid" x1={pad.left} x2={width - pad.right} y1={y(max / 2)} y2={y(max / 2)} />
        <line class="axis" x1={pad.left} x2={width - pad.right} y1={y(0)} y2={y(0)} />
        {series.map((s) => <path key={s.name} class={`line ${s.tone}`} d={path(s.values, times, x, y)} />)}
      </svg>
      <div class="chart-scale muted small" aria-hidden="true">
        <span>{times.length ? formatClock(t0) : ''}</span>
        <span>{known.length ? `max ${format(max)}` : 'no data yet'}</span>
        <span>{times.length ? formatClock(t1) : ''}</span>
      </div>
    </figure>
  );
}
