// The Dashboard: devices, loaded instances, queues, totals, latency charts
// and recent errors, from the live feed (live.ts) while the page is shown.
import { LineChart } from '../components/line_chart';
import { formatBytes, formatClock, formatCount, formatDuration, formatRate } from '../lib/format';
import { predictedByDevice, type Instance } from '../lib/models';
import { Snapshot, SystemInfo, useLive } from '../live';

function Meter({ label, used, total, detail }: { label: string; used: number; total: number; detail: string }) {
  const pct = total > 0 ? Math.min(100, Math.round((used * 100) / total)) : 0;
  return (
    <div class="meter">
      <div class="row"><span class="grow">{label}</span><span class="muted small">{detail}</span></div>
      <div class="bar" role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} aria-valuetext={detail}>
        <div class={`bar-fill${pct >= 90 ? ' hot' : ''}`} style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}

// What zest's memory ledger reserved for the loaded models, per device.
function Predicted({ instances }: { instances: Instance[] }) {
  const byDevice = predictedByDevice(instances);
  if (byDevice.length === 0) return null;
  return (
    <p class="small" data-testid="predicted-memory">
      Predicted for the loaded models: {byDevice.map(([device, bytes]) => `${device} ${formatBytes(bytes)}`).join(', ')}
    </p>
  );
}

function Devices({ system, instances }: { system: SystemInfo; instances: Instance[] }) {
  const u = system.utilisation;
  const ramTotal = u?.ram_total_bytes || system.memory.total_bytes;
  const ramUsed = u?.ram_used_bytes ?? system.memory.total_bytes - system.memory.available_bytes;
  return (
    <section class="card" aria-labelledby="devices-title">
      <h2 id="devices-title">Devices</h2>
      <div class="stack tight">
        <Meter label="Memory" used={ramUsed} total={ramTotal}
          detail={`${formatBytes(ramUsed)} used, ${formatBytes(ramTotal - ramUsed)} free of ${formatBytes(ramTotal)}`} />
        {u?.cpu_percent != null && (
          <Meter label={`CPU (${system.cpu.threads} threads)`} used={u.cpu_percent} total={100} detail={`${Math.round(u.cpu_percent)}% busy`} />
        )}
        {system.gpus.map((g) => {
          const live = u?.gpus.find((x) => x.pci_address === g.pci.address);
          const used = live?.vram_used_bytes ?? g.vram_used_bytes;
          const busy = live?.busy_percent ?? g.busy_percent;
          return (
            <div key={g.pci.address} class="stack tight">
              <Meter label={`${g.name} memory`} used={used} total={g.vram_total_bytes}
                detail={`${formatBytes(used)} used, ${formatBytes(g.vram_total_bytes - used)} free of ${formatBytes(g.vram_total_bytes)}`} />
              {busy != null && <Meter label={`${g.name} utilisation`} used={busy} total={100} detail={`${busy}% busy`} />}
            </div>
          );
        })}
        {system.npus.map((n) => {
          const power = system.utilisation?.npus.find((x) => x.pci_address === n.pci.address)?.power_state;
          return (
            <p key={n.pci.address} class="small">
              <strong>{n.name}</strong> ({n.generation}) — {n.usable ? 'usable' : `not usable: ${n.reason}`}{power ? `, ${power}` : ''}
            </p>
          );
        })}
        {system.gpus.length === 0 && system.npus.length === 0 && <p class="muted small">No GPU or NPU found: models run on the CPU.</p>}
        <Predicted instances={instances} />
      </div>
    </section>
  );
}

function Totals({ s }: { s: Snapshot }) {
  const t = s.stats.totals;
  const items: [string, string, string?][] = [
    ['Requests', formatCount(t?.requests), 'total-requests'],
    ['Prompt tokens', formatCount(t?.prompt_tokens)],
    ['Generated tokens', formatCount(t?.completion_tokens)],
    ['Last tokens/s', formatRate(s.stats.tokens_per_second)],
    ['Last TTFT', formatDuration(s.stats.time_to_first_token)],
  ];
  return (
    <section class="totals" aria-label="Totals">
      {items.map(([label, value, testid]) => (
        <div key={label} class="stat">
          <span class="stat-label">{label}</span>
          <span class="stat-value" data-testid={testid}>{value}</span>
        </div>
      ))}
      {s.stats.model && <p class="muted small span-all">Last request: {s.stats.model}</p>}
    </section>
  );
}

function Instances({ s, rates }: { s: Snapshot; rates: Record<string, number> }) {
  const list = s.ps.instances;
  return (
    <section class="card span-2" aria-labelledby="instances-title">
      <h2 id="instances-title">Loaded models</h2>
      {list.length === 0 ? <p class="muted">No model is loaded.</p> : (
        <table class="table compact">
          <thead>
            <tr><th scope="col">Model</th><th scope="col">Device</th><th scope="col">State</th><th scope="col">Slots busy</th>
              <th scope="col">In flight</th><th scope="col">Tokens/s (10 s)</th><th scope="col">Memory</th><th scope="col">Placement</th></tr>
          </thead>
          <tbody>
            {list.map((i) => {
              const q = s.stats.queues.find((x) => x.model === i.model);
              return (
                <tr key={`${i.model}/${i.replica ?? 0}`}>
                  <th scope="row" data-label="Model">{i.model}</th>
                  <td data-label="Device">{(i.placement?.devices ?? [i.device ?? '—']).join(', ')}</td>
                  <td data-label="State"><span class={`badge state-${i.state}`}>{i.state}</span></td>
                  <td data-label="Slots busy" class="num">{q ? `${q.busy} / ${q.slots}` : `— / ${i.slots ?? '—'}`}</td>
                  <td data-label="In flight" class="num">{i.in_flight ?? 0}</td>
                  <td data-label="Tokens/s" class="num" data-testid={`tokens-per-second-${i.model}`}>{formatRate(rates[i.model] ?? 0)}</td>
                  <td data-label="Memory" class="num">{formatBytes(i.placement?.predicted_total_bytes)}</td>
                  <td data-label="Placement" class="small explain">{i.placement?.explanation ?? ''}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Queues({ s }: { s: Snapshot }) {
  const q = s.stats.queues;
  return (
    <section class="card" aria-labelledby="queues-title">
      <h2 id="queues-title">Queues</h2>
      {q.length === 0 ? <p class="muted">No queues yet.</p> : (
        <table class="table compact">
          <thead>
            <tr><th scope="col">Model</th><th scope="col">Busy</th><th scope="col">High</th><th scope="col">Normal</th><th scope="col">Low</th></tr>
          </thead>
          <tbody>
            {q.map((x) => (
              <tr key={x.model}>
                <th scope="row" data-label="Model">{x.model}</th>
                <td data-label="Busy" class="num">{x.busy} / {x.slots}</td>
                <td data-label="High" class="num">{x.waiting.high}</td>
                <td data-label="Normal" class="num">{x.waiting.normal}</td>
                <td data-label="Low" class="num">{x.waiting.low}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Errors({ s }: { s: Snapshot }) {
  const list = s.errors;
  return (
    <section class="card span-all" aria-labelledby="errors-title">
      <h2 id="errors-title">Recent errors</h2>
      {!list ? <p class="muted">Recent errors are shown to admin keys.</p> : list.length === 0 ? <p class="muted">No errors.</p> : (
        <table class="table compact">
          <thead>
            <tr><th scope="col">Time</th><th scope="col">Status</th><th scope="col">Request</th><th scope="col">Request id</th><th scope="col">Message</th></tr>
          </thead>
          <tbody>
            {list.map((e, i) => (
              <tr key={`${e.time}-${i}`}>
                <td data-label="Time">{formatClock(e.time)}</td>
                <td data-label="Status" class="num">{e.status}</td>
                <td data-label="Request">{e.method} {e.path}</td>
                <td data-label="Request id" class="small mono">{e.request_id}</td>
                <td data-label="Message" class="small">{e.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

const seconds = (v: number) => formatDuration(v);

export function DashboardPage() {
  const { snapshot: s, history, connected, error, tokenRates } = useLive();
  const times = history.map((p) => p.time);
  return (
    <div class="stack">
      <div class="row wrap">
        <h1 class="grow">Dashboard</h1>
        <span role="status" class={`live ${connected ? 'on' : 'off'}`}>{connected ? 'live' : 'disconnected'}</span>
      </div>
      {error && <p role="alert" class="error">{error}</p>}
      {!s ? <p class="muted">Connecting…</p> : (
        <>
          <Totals s={s} />
          <div class="grid">
            <Devices system={s.system} instances={s.ps.instances} />
            <Instances s={s} rates={tokenRates} />
            <Queues s={s} />
            <section class="card span-2 charts" aria-labelledby="charts-title">
              <h2 id="charts-title">Last 5 minutes</h2>
              <div class="chart-grid">
                <LineChart title="Time to first token" times={times} format={seconds} series={[
                  { name: 'p50', tone: 'tone-a', values: history.map((p) => p.ttft50) },
                  { name: 'p95', tone: 'tone-b', values: history.map((p) => p.ttft95) },
                ]} />
                <LineChart title="Gap between tokens" times={times} format={seconds} series={[
                  { name: 'p50', tone: 'tone-a', values: history.map((p) => p.gap50) },
                  { name: 'p95', tone: 'tone-b', values: history.map((p) => p.gap95) },
                ]} />
                <LineChart title="Requests waiting" times={times} format={(v) => formatCount(v)} series={[
                  { name: 'queued', tone: 'tone-c', values: history.map((p) => p.queue) },
                ]} />
              </div>
            </section>
            <Errors s={s} />
          </div>
        </>
      )}
    </div>
  );
}
