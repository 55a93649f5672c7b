// The Models page: every model zest serves or can pull, its fit on this
// machine and whether it runs; admins also pull, load, unload, pin and
// delete here.
import { useEffect, useState } from 'preact/hooks';
import { getJson, isAdmin, messageOf, modelPath, request } from '../api';
import { Dialog } from '../components/dialog';
import { formatBytes, formatCount } from '../lib/format';
import { ModelEntry, isDownloaded, loadedStates } from '../lib/models';
import { useLive } from '../live';
import { models, modelsError, refreshModels } from '../stores';
import { PullForm, isPulling, startPull } from './pull';

const sourceNames: Record<string, string> = { models_dir: 'models dir', hf_cache: 'Hugging Face', user: 'added', catalog: 'catalog' };

function FitCell({ m }: { m: ModelEntry }) {
  if (!m.fit) return <span class="muted">—</span>;
  return (
    <div class="fit">
      <span class={`badge fit-${m.fit.verdict}`}>{m.fit.verdict}</span>
      <span class="muted small">{m.fit.reason}</span>
    </div>
  );
}

interface LoadFields { ctx: string; gpuLayers: string; kv: string; device: string; keepAlive: string }

function LoadDialog({ model, onClose, onDone }: { model: ModelEntry | null; onClose: () => void; onDone: (msg: string) => void }) {
  const empty: LoadFields = { ctx: '', gpuLayers: '', kv: '', device: '', keepAlive: '' };
  const [f, setF] = useState<LoadFields>(empty);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setF(empty);
    setError('');
  }, [model?.id]);
  const set = (k: keyof LoadFields) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });

  async function submit(e: Event) {
    e.preventDefault();
    if (!model) return;
    const options: Record<string, unknown> = {};
    if (f.ctx.trim()) options.ctx_size = Number(f.ctx);
    if (f.gpuLayers.trim()) options.n_gpu_layers = Number(f.gpuLayers);
    if (f.kv) options.kv_type = f.kv;
    if (f.device.trim()) options.device = f.device.trim();
    const body: Record<string, unknown> = { model: model.id };
    if (Object.keys(options).length > 0) body.options = options;
    if (f.keepAlive.trim()) body.keep_alive = f.keepAlive.trim();
    setBusy(true);
    try {
      const r = await getJson<{ load_ms: number }>('/api/v1/load', { body });
      onDone(`Loaded ${model.id} in ${formatCount(r.load_ms)} ms.`);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={model !== null} title={`Load ${model?.id ?? ''}`} onClose={onClose}>
      <form class="stack" onSubmit={submit}>
        <div class="form-grid">
          <label class="field"><span>Context size</span>
            <input type="number" min="0" step="1" placeholder={String(model?.suggested_ctx ?? model?.context_length ?? 'default')} value={f.ctx} onInput={set('ctx')} />
          </label>
          <label class="field"><span>GPU layers</span>
            <input type="number" min="-1" step="1" placeholder="automatic" value={f.gpuLayers} onInput={set('gpuLayers')} />
          </label>
          <label class="field"><span>KV cache type</span>
            <select value={f.kv} onChange={set('kv')}>
              <option value="">default</option>
              <option value="f16">f16</option>
              <option value="q8_0">q8_0</option>
              <option value="q4_0">q4_0</option>
            </select>
          </label>
          <label class="field"><span>Device</span>
            <input type="text" placeholder="automatic (e.g. CUDA0)" value={f.device} onInput={set('device')} />
          </label>
          <label class="field"><span>Keep alive</span>
            <input type="text" placeholder="default (10m; -1 forever)" value={f.keepAlive} onInput={set('keepAlive')} />
          </label>
        </div>
        {error && <p role="alert" class="error">{error}</p>}
        <div class="row end">
          <button type="button" class="button" onClick={onClose}>Cancel</button>
          <button type="submit" class="button primary" disabled={busy}>{busy ? 'Loading…' : 'Load'}</button>
        </div>
      </form>
    </Dialog>
  );
}

function DeleteDialog({ model, onClose, onConfirm }: { model: string | null; onClose: () => void; onConfirm: () => void }) {
  return (
    <Dialog open={model !== null} title={`Delete ${model ?? ''}?`} onClose={onClose}>
      <p>This stops the model's engines and deletes its files from this machine.</p>
      <div class="row end">
        <button type="button" class="button" onClick={onClose}>Cancel</button>
        <button type="button" class="button danger" onClick={onConfirm}>Delete</button>
      </div>
    </Dialog>
  );
}

function Actions({ m, state, act, openLoad, openDelete }: {
  m: ModelEntry; state: string | undefined;
  act: (what: string, f: () => Promise<unknown>) => void; openLoad: () => void; openDelete: () => void;
}) {
  if (!isDownloaded(m)) {
    if (m.source !== 'catalog') return null;
    return <button type="button" class="button small" aria-label={`Pull ${m.id}`} disabled={isPulling()} onClick={() => void startPull(m.id)}>Pull</button>;
  }
  const post = (path: string, body: unknown) => () => request(path, { body });
  return (
    <div class="row-actions">
      <button type="button" class="button small" aria-label={`Load ${m.id}`} onClick={openLoad}>Load</button>
      {state && (
        <button type="button" class="button small" aria-label={`Unload ${m.id}`}
          onClick={() => act(`Unloaded ${m.id}.`, post('/api/v1/unload', { model: m.id }))}>Unload</button>
      )}
      <button type="button" class="button small" aria-label={`Pin ${m.id}`} title="Load and keep loaded"
        onClick={() => act(`Pinned ${m.id}: it stays loaded.`, post('/api/v1/load', { model: m.id, keep_alive: '-1' }))}>Pin</button>
      <button type="button" class="button small danger-text" aria-label={`Delete ${m.id}`} onClick={openDelete}>Delete</button>
    </div>
  );
}

export function ModelsPage() {
  const live = useLive();
  const [loadModel, setLoadModel] = useState<ModelEntry | null>(null);
  const [deleteModel, setDeleteModel] = useState<string | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState('');
  useEffect(() => {
    void refreshModels();
  }, []);
  const admin = isAdmin();
  const states = live.snapshot ? loadedStates(live.snapshot.ps.instances) : null;

  function act(done: string, f: () => Promise<unknown>) {
    setBusy(done);
    setMessage(null);
    f().then(
      () => setMessage({ ok: true, text: done }),
      (e) => setMessage({ ok: false, text: messageOf(e) }),
    ).finally(() => {
      setBusy('');
      void refreshModels();
    });
  }

  const list = models.value;
  return (
    <div class="stack">
      <h1>Models</h1>
      {admin && <PullForm />}
      {modelsError.value && <p role="alert" class="error">{modelsError.value}</p>}
      {message && (message.ok ? <p role="status" class="ok">{message.text}</p> : <p role="alert" class="error">{message.text}</p>)}
      {busy && <p role="status" class="muted">Working…</p>}
      {list === null ? <p class="muted">Loading…</p> : (
        <table class="table models-table">
          <caption class="visually-hidden">Models</caption>
          <thead>
            <tr>
              <th scope="col">Name</th><th scope="col">Source</th><th scope="col">Size</th><th scope="col">Quantization</th>
              <th scope="col">Context</th><th scope="col">Fit</th><th scope="col">Loaded</th>
              {admin && <th scope="col"><span class="visually-hidden">Actions</span></th>}
            </tr>
          </thead>
          <tbody>
            {list.map((m) => {
              const state = states ? states.get(m.id) : m.loaded ? 'ready' : undefined;
              return (
                <tr key={m.id} data-model={m.id}>
                  <th scope="row" data-label="Name">
                    <span class="model-name">{m.id}</span>
                    {m.description && <span class="muted small block">{m.description}</span>}
                    {m.error && <span class="error small block">{m.error}</span>}
                  </th>
                  <td data-label="Source">{sourceNames[m.source] ?? m.source}</td>
                  <td data-label="Size" class="num">{formatBytes(m.size)}</td>
                  <td data-label="Quantization">{m.quantization ?? '—'}</td>
                  <td data-label="Context" class="num">{m.context_length ? formatCount(m.context_length) : '—'}</td>
                  <td data-label="Fit"><FitCell m={m} /></td>
                  <td data-label="Loaded">
                    {state ? <span class={`badge state-${state}`}>{state === 'ready' ? 'loaded' : state}</span> : <span class="muted">{isDownloaded(m) ? 'no' : 'not downloaded'}</span>}
                  </td>
                  {admin && (
                    <td data-label="Actions">
                      <Actions m={m} state={state} act={act} openLoad={() => setLoadModel(m)} openDelete={() => setDeleteModel(m.id)} />
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <LoadDialog model={loadModel} onClose={() => setLoadModel(null)}
        onDone={(text) => { setLoadModel(null); setMessage({ ok: true, text }); void refreshModels(); }} />
      <DeleteDialog model={deleteModel} onClose={() => setDeleteModel(null)}
        onConfirm={() => {
          const name = deleteModel!;
          setDeleteModel(null);
          act(`Deleted ${name}.`, () => request(`/api/v1/models/${modelPath(name)}`, { method: 'DELETE' }));
        }} />
      {live.error && <p class="muted small">Live state unavailable: {live.error}</p>}
    </div>
  );
}
