// The Logs page: a live tail of zest's log, or of a running engine's
// output, filtered by request id or any text, with Pause.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { getJson, messageOf, stream } from '../api';
import type { Instance } from '../lib/models';

const maxLines = 5000;

export function LogsPage() {
  const [source, setSource] = useState('');  // '' is zest's own log
  const [engines, setEngines] = useState<string[]>([]);
  const [lines, setLines] = useState<string[]>([]);
  const [filter, setFilter] = useState('');
  const [paused, setPaused] = useState(false);
  const [shown, setShown] = useState<string[]>([]);
  const [error, setError] = useState('');
  const [connected, setConnected] = useState(false);
  const view = useRef<HTMLDivElement>(null);
  const follow = useRef(true);

  async function refreshEngines() {
    try {
      const ps = await getJson<{ instances: Instance[] }>('/api/v1/ps');
      setEngines([...new Set(ps.instances.map((i) => i.model))].sort());
    } catch {
      // The select keeps what it had; the stream's own error is shown.
    }
  }
  useEffect(() => void refreshEngines(), []);

  useEffect(() => {
    const abort = new AbortController();
    setLines([]);
    setError('');
    const path = `/api/v1/logs?n=500&follow=1${source ? `&model=${encodeURIComponent(source)}` : ''}`;
    let pending: string[] = [];
    let timer = 0;
    // Lines arrive in bursts; they are added to the view ten times a second.
    const flush = () => {
      timer = 0;
      const add = pending;
      pending = [];
      setLines((old) => {
        const next = old.concat(add);
        return next.length > maxLines ? next.slice(next.length - maxLines) : next;
      });
    };
    setConnected(true);
    stream<{ line: string }>(path, { signal: abort.signal }, (e) => {
      pending.push(e.line);
      if (!timer) timer = window.setTimeout(flush, 100);
    }).then(
      () => setError('The log stream ended.'),
      (e) => { if (!abort.signal.aborted) setError(messageOf(e)); },
    ).finally(() => setConnected(false));
    return () => {
      abort.abort();
      clearTimeout(timer);
    };
  }, [source]);

  useEffect(() => {
    if (!paused) setShown(lines);
  }, [lines, paused]);

  useLayoutEffect(() => {
    const el = view.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [shown, filter]);

  const needle = filter.trim();
  const visible = needle ? shown.filter((l) => l.includes(`[req:${needle}]`) || l.includes(needle)) : shown;

  return (
    <div class="stack logs-page">
      <div class="row wrap">
        <h1 class="grow">Logs</h1>
        <span role="status" class={`live ${connected ? 'on' : 'off'}`}>{connected ? (paused ? 'paused' : 'live') : 'disconnected'}</span>
      </div>
      <div class="row wrap toolbar">
        <label class="field">
          <span>Source</span>
          <select value={source} onFocus={() => void refreshEngines()} onChange={(e) => setSource(e.currentTarget.value)}>
            <option value="">zest</option>
            {[...new Set([...engines, ...(source ? [source] : [])])].map((m) => <option key={m} value={m}>{m} (engine)</option>)}
          </select>
        </label>
        <label class="field grow">
          <span>Request id</span>
          <input type="search" value={filter} placeholder="a request id or any text" spellcheck={false}
            onInput={(e) => setFilter(e.currentTarget.value)} />
        </label>
        <button type="button" class="button align-end" aria-pressed={paused ? 'true' : 'false'} onClick={() => setPaused(!paused)}>
          Pause
        </button>
      </div>
      {error && <p role="alert" class="error">{error}</p>}
      <div class="log-view" ref={view} role="log" aria-label="Log lines" tabIndex={0}
        onScroll={(e) => {
          const el = e.currentTarget;
          follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}>
        {visible.map((l, i) => <div key={i} class="log-line">{l}</div>)}
        {visible.length === 0 && <p class="muted">{needle ? 'No line matches.' : 'No lines yet.'}</p>}
      </div>
      <p class="muted small">{visible.length} of {shown.length} lines{paused && lines.length > shown.length ? ` (${lines.length - shown.length} more while paused)` : ''}</p>
    </div>
  );
}
