// The Chat page: conversations on the side, the current one in the middle,
// its model and settings above it and the message box below.
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { byRecency, exportJson, parseImport } from '../lib/conversations';
import { canSeeImages, isChatModel, isSpeechModel, isSpeechOutModel, pickerLabel } from '../lib/models';
import { models, modelsError, refreshModels } from '../stores';
import { Composer } from './chat_composer';
import { AssistantMessage, UserMessage } from './chat_message';
import {
  conversations, current, currentId, deleteChat, editAndResend, importConversations, loadConversations, loaded,
  newChat, params, regenerate, setFields, setParam, stop, storageNote, streaming, transcribe,
} from './chat_state';
import { setVoiceModel, speak, speaking, stopSpeaking, voiceError, voiceModel } from './voice_state';

function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function Sidebar({ defaultModel }: { defaultModel: string }) {
  const [importError, setImportError] = useState('');
  const [imported, setImported] = useState('');
  const list = byRecency(conversations.value);
  const wide = typeof matchMedia === 'function' && matchMedia('(min-width: 760px)').matches;

  async function onImport(e: Event) {
    const input = e.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    const r = parseImport(await file.text());
    if (!r.ok) {
      setImported('');
      setImportError(r.error);
      return;
    }
    importConversations(r.conversations);
    setImportError('');
    setImported(`Imported ${r.conversations.length} conversation${r.conversations.length === 1 ? '' : 's'}.`);
  }

  return (
    <aside class="sidebar" aria-label="Conversations">
      <details open={wide} class="sidebar-fold">
        <summary>Conversations ({list.length})</summary>
        <button type="button" class="button primary wide" onClick={() => newChat(defaultModel)}>New chat</button>
        <ul class="conv-list">
          {list.map((c) => (
            <li key={c.id} class={c.id === currentId.value ? 'selected' : ''}>
              <button type="button" class="conv-title" aria-current={c.id === currentId.value ? 'true' : undefined}
                onClick={() => (currentId.value = c.id)}>
                {c.title}
              </button>
              <button type="button" class="icon-button small" aria-label={`Delete conversation ${c.title}`} onClick={() => deleteChat(c.id)}>
                ×
              </button>
            </li>
          ))}
        </ul>
        <div class="stack tight">
          <button type="button" class="button" disabled={list.length === 0}
            onClick={() => download('zest-conversations.json', exportJson(conversations.value))}>
            Export
          </button>
          <label class="button file-button">
            Import conversations
            <input type="file" accept="application/json,.json" class="visually-hidden" onChange={onImport} />
          </label>
          {importError && <p role="alert" class="error small">{importError}</p>}
          {imported && <p role="status" class="muted small">{imported}</p>}
          {storageNote.value && <p class="muted small">{storageNote.value}</p>}
        </div>
      </details>
    </aside>
  );
}

function Settings({ id }: { id: string | null }) {
  const c = id ? conversations.value[id] : null;
  const p = params.value;
  return (
    <details class="settings">
      <summary>System prompt and sampling</summary>
      <div class="settings-grid">
        <label class="field span-all">
          <span>System prompt</span>
          <textarea rows={3} value={c?.system ?? ''} disabled={!c}
            onInput={(e) => id && setFields(id, { system: e.currentTarget.value })} />
        </label>
        <label class="field">
          <span>Temperature</span>
          <input type="number" min="0" max="2" step="0.05" placeholder="default" value={p.temperature}
            onInput={(e) => setParam('temperature', e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Top P</span>
          <input type="number" min="0" max="1" step="0.01" placeholder="default" value={p.top_p}
            onInput={(e) => setParam('top_p', e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Max tokens</span>
          <input type="number" min="1" step="1" placeholder="default" value={p.max_tokens}
            onInput={(e) => setParam('max_tokens', e.currentTarget.value)} />
        </label>
      </div>
    </details>
  );
}

// A speech model's composer: an audio file to transcribe.
function AudioComposer({ id, model }: { id: string | null; model: string }) {
  const [file, setFile] = useState<File | null>(null);
  const busy = streaming.value !== null;
  function submit() {
    if (busy || !file || !model) return;
    const target = id ?? newChat(model);
    if (conversations.value[target]?.model !== model) setFields(target, { model });
    void transcribe(target, file).then(refreshModels);
    setFile(null);
  }
  return (
    <form class="composer" onSubmit={(e) => { e.preventDefault(); submit(); }}>
      <p class="muted small">{model} turns speech into text: pick an audio file (WAV, MP3, FLAC, OGG; others where ffmpeg is installed).</p>
      <div class="row wrap">
        <label class="button file-button">
          Audio file
          <input type="file" accept="audio/*,video/webm" class="visually-hidden"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        </label>
        <span class="grow ellipsis">{file ? file.name : 'No file chosen'}</span>
        {busy ? (
          <button type="button" class="button danger" onClick={stop}>Stop</button>
        ) : (
          <button type="submit" class="button primary" disabled={!file || !model}>Transcribe</button>
        )}
      </div>
    </form>
  );
}

function Messages({ id, speech, voice }: { id: string; speech: boolean; voice: string }) {
  const c = conversations.value[id];
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const live = streaming.value?.id === id;
  useEffect(() => {
    const el = ref.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });
  if (!c) return null;
  const lastAssistant = c.messages.map((m) => m.role).lastIndexOf('assistant');
  return (
    <div class="messages" ref={ref}
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}>
      {c.messages.length === 0 && <p class="muted empty">Ask something to start.</p>}
      {c.messages.map((m, i) =>
        m.role === 'user' ? (
          <UserMessage key={`${i}-${m.content}`} message={m} busy={streaming.value !== null} onEdit={speech ? null : (t) => void editAndResend(id, i, t)} />
        ) : (
          <AssistantMessage key={i} message={m} streaming={live && i === c.messages.length - 1}
            canRegenerate={!speech && i === lastAssistant && i === c.messages.length - 1 && streaming.value === null}
            onRegenerate={() => void regenerate(id)}
            listening={speaking.value?.key === `${id}:${i}`}
            onListen={voice ? () => (speaking.value?.key === `${id}:${i}` ? stopSpeaking() : void speak(`${id}:${i}`, m.content, voice)) : null} />
        ),
      )}
    </div>
  );
}

export function ChatPage() {
  const pickerId = useId();
  // The model chosen before a conversation exists.
  const [pick, setPick] = useState('');
  useEffect(() => {
    void loadConversations();
    void refreshModels();
  }, []);
  // Language models chat; speech models transcribe audio files.
  const chatModels = (models.value ?? []).filter((m) => isChatModel(m) || isSpeechModel(m));
  const c = current();
  const id = c?.id ?? null;
  const known = (name: string | undefined) => !!name && chatModels.some((m) => m.id === name);
  const model = known(c?.model) ? c!.model : known(pick) ? pick : chatModels[0]?.id ?? '';
  const entry = chatModels.find((m) => m.id === model);
  // Speech-out models read answers aloud; a speech-to-text model hears voice mode.
  const voices = (models.value ?? []).filter((m) => isSpeechOutModel(m));
  const voice = voices.some((m) => m.id === voiceModel.value) ? voiceModel.value : '';
  const listener = (models.value ?? []).find((m) => isSpeechModel(m))?.id ?? '';

  return (
    <div class="chat">
      <Sidebar defaultModel={model} />
      <section class="chat-main" aria-labelledby="chat-title">
        <h1 id="chat-title" class="visually-hidden">Chat</h1>
        <div class="chat-toolbar">
          <label class="field inline" for={pickerId}>Model</label>
          <select id={pickerId} value={model} disabled={chatModels.length === 0}
            onChange={(e) => {
              const name = e.currentTarget.value;
              setPick(name);
              if (id) setFields(id, { model: name });
            }}>
            {chatModels.map((m) => <option key={m.id} value={m.id}>{pickerLabel(m, m.loaded ? 'ready' : undefined)}</option>)}
          </select>
          {voices.length > 0 && (
            <>
              <label class="field inline" for={`${pickerId}-voice`}>Voice</label>
              <select id={`${pickerId}-voice`} value={voice} onChange={(e) => setVoiceModel(e.currentTarget.value)}>
                <option value="">None</option>
                {voices.map((m) => <option key={m.id} value={m.id}>{m.id}</option>)}
              </select>
            </>
          )}
          <Settings id={id} />
        </div>
        {voiceError.value && <p role="alert" class="error small">{voiceError.value}</p>}
        {modelsError.value && <p role="alert" class="error">{modelsError.value}</p>}
        {models.value && chatModels.length === 0 && (
          <p class="muted">No chat model is downloaded yet: pull one on the <a href="#/models">Models</a> page.</p>
        )}
        {loaded.value && id ? <Messages id={id} speech={isSpeechModel(entry)} voice={voice} /> : <div class="messages"><p class="muted empty">Ask something to start.</p></div>}
        {isSpeechModel(entry) ? <AudioComposer id={id} model={model} /> : <Composer id={id} model={model} vision={canSeeImages(entry)} listener={listener} />}
      </section>
    </div>
  );
}
