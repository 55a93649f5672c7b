// Pulling a model: the form, and the progress of the one pull running,
// kept outside the component so it goes on while another page is shown.
import { signal } from '@preact/signals';
import { useState } from 'preact/hooks';
import { messageOf, stream } from '../api';
import { ProgressSample, formatBytes, formatDuration, percent, timeLeft, transferRate } from '../lib/format';
import { refreshModels } from '../stores';

interface PullState {
  model: string;
  file: string;
  completed: number;
  total: number;
  samples: ProgressSample[];
  abort: AbortController;
}

const running = signal<PullState | null>(null);
const outcome = signal<{ ok: boolean; text: string } | null>(null);
// The last pull that succeeded, shown full until the next one starts.
const finished = signal<PullState | null>(null);

interface PullEvent {
  status: string;
  file?: string;
  completed?: number;
  total?: number;
  model?: string;
}

/** Starts pulling `model` unless a pull is running. */
export async function startPull(model: string): Promise<void> {
  if (running.value || !model.trim()) return;
  const abort = new AbortController();
  running.value = { model, file: '', completed: 0, total: 0, samples: [], abort };
  outcome.value = null;
  finished.value = null;
  try {
    let served = model;
    await stream<PullEvent>('/api/v1/pull', { body: { model, stream: true }, signal: abort.signal }, (e) => {
      const r = running.value;
      if (!r) return;
      if (e.status === 'downloading') {
        const completed = e.completed ?? 0;
        // A new file starts its own samples, so its speed is its own.
        const samples = e.file === r.file ? [...r.samples.slice(-40), { time: Date.now(), bytes: completed }] : [{ time: Date.now(), bytes: completed }];
        running.value = { ...r, file: e.file ?? '', completed, total: e.total ?? 0, samples };
      } else if (e.status === 'success') {
        if (e.model) served = e.model;
        // Progress events come at most 4 a second: the last may be short of the end.
        finished.value = { ...r, completed: r.total, samples: [] };
      }
    });
    outcome.value = { ok: true, text: `Pulled ${model}${served !== model ? ` (served as ${served})` : ''}.` };
  } catch (e) {
    outcome.value = { ok: false, text: abort.signal.aborted ? `Pull of ${model} cancelled; the next pull resumes it.` : messageOf(e) };
  } finally {
    running.value = null;
    void refreshModels();
  }
}

function Progress({ p, done = false }: { p: PullState; done?: boolean }) {
  const rate = transferRate(p.samples);
  const pct = percent(p.completed, p.total);
  const left = timeLeft(p.completed, p.total, rate);
  return (
    <div class="pull-progress">
      <div class="row">
        <span class="grow ellipsis">{done ? 'Pulled' : 'Pulling'} <strong>{p.model}</strong>{p.file && <span class="muted"> · {p.file}</span>}</span>
        {!done && <button type="button" class="button" onClick={() => p.abort.abort()}>Cancel</button>}
      </div>
      <div class="bar" role="progressbar" aria-label={`Pulling ${p.model}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}
        aria-valuetext={`${pct}%`}>
        <div class="bar-fill" style={{ width: `${pct}%` }} />
      </div>
      <p class="muted small" data-testid="pull-detail">
        {pct}% · {formatBytes(p.completed)} of {formatBytes(p.total)}
        {rate != null && ` · ${formatBytes(rate)}/s`}
        {left != null && ` · ${formatDuration(left)} left`}
      </p>
    </div>
  );
}

export function PullForm() {
  const [name, setName] = useState('');
  const p = running.value;
  const o = outcome.value;
  return (
    <section class="card" aria-labelledby="pull-title">
      <h2 id="pull-title">Pull a model</h2>
      <form class="row wrap" onSubmit={(e) => { e.preventDefault(); void startPull(name.trim()); }}>
        <label class="field grow">
          <span>Model to pull</span>
          <input type="text" value={name} placeholder="Qwen3-0.6B-GGUF or org/repo:Q4_K_M" autocomplete="off" spellcheck={false}
            onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <button type="submit" class="button primary align-end" disabled={!!p || !name.trim()}>Pull</button>
      </form>
      {p && <Progress p={p} />}
      {!p && finished.value && <Progress p={finished.value} done />}
      {o && (o.ok ? <p role="status" class="ok">{o.text}</p> : <p role="alert" class="error">{o.text}</p>)}
    </section>
  );
}

export function isPulling(): boolean {
  return running.value !== null;
}
