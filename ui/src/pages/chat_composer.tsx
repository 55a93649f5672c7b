// The Chat page's message box: text, and images from the Attach button, a
// paste or a drop, shown as thumbnails until sent. Images are taken only
// when the model reads them; otherwise the page says why instead of
// dropping them. zest's limits are checked here first (lib/images.ts);
// what the server still refuses shows as the answer's error.
import { useRef, useState } from 'preact/hooks';
import { messageOf } from '../api';
import { imagesOf } from '../lib/conversations';
import { prepareImage } from '../lib/image_file';
import { heldBy, imageLimits, imageType, imagesLeft, refusalFor, tooManyImages } from '../lib/images';
import { refreshModels } from '../stores';
import { conversations, newChat, send, setFields, stop, streaming } from './chat_state';
import { canRecord, recording, talk } from './voice_state';

interface Pending {
  key: number;
  url: string;
  name: string;
}

/** Why `model` takes no image. */
export function cannotSee(model: string): string {
  return `${model || 'This model'} cannot read images (it has no vision projector)`;
}

let nextKey = 0;

const hasFiles = (e: DragEvent) => !!e.dataTransfer?.types.includes('Files');

interface Props {
  id: string | null;
  model: string;
  vision: boolean;
  /** The speech-to-text model voice mode transcribes with; '' for none. */
  listener: string;
}

export function Composer({ id, model, vision, listener }: Props) {
  const [text, setText] = useState('');
  const [images, setImages] = useState<Pending[]>([]);
  const [notes, setNotes] = useState<string[]>([]);
  const [dropping, setDropping] = useState(false);
  const [preparing, setPreparing] = useState(0);
  // The list as of now, for attaches that finish one after another; plus
  // the images being prepared, which count before they are ready.
  const pending = useRef<Pending[]>([]);
  const reserved = useRef(0);
  const picker = useRef<HTMLInputElement>(null);
  const busy = streaming.value !== null;
  const history = imagesOf(id ? conversations.value[id] : null);

  function setPending(list: Pending[]) {
    pending.current = list;
    setImages(list);
  }

  // The images a request would carry beside a new one: the history's, the
  // attached ones, and those still being prepared.
  function held(extra = 0) {
    const h = heldBy([...imagesOf(id ? conversations.value[id] : null), ...pending.current.map((p) => p.url)]);
    return { ...h, count: h.count + extra };
  }

  async function attach(files: File[], how: string) {
    if (files.length === 0) return;
    if (!vision) {
      setNotes([`${how} not attached: ${cannotSee(model)}.`]);
      return;
    }
    const out: string[] = [];
    const images = files.filter((f) => imageType(f) || (out.push(`${f.name} is not an image.`), false));
    const take = images.slice(0, imagesLeft(held(reserved.current)));
    if (take.length < images.length) out.push(tooManyImages(images.length - take.length));
    reserved.current += take.length;
    setPreparing((n) => n + take.length);
    setNotes([...out]);
    // One at a time: decoding several large photos at once can take the tab's memory.
    for (const file of take) {
      try {
        const r = await prepareImage(file);
        const refusal = r.ok ? refusalFor(file.name, r.url, held()) : r.error;
        if (refusal) out.push(refusal);
        else if (r.ok) setPending([...pending.current, { key: nextKey++, url: r.url, name: file.name }]);
      } catch (e) {
        out.push(`${file.name} could not be read: ${messageOf(e)}`);
      } finally {
        reserved.current--;
        setPreparing((n) => n - 1);
      }
    }
    setNotes([...out]);
  }

  // Images attached for a model that reads them stay when another model or
  // conversation is picked, but are not sent where zest would refuse them:
  // the user removes some, or goes back.
  const blind = !vision && images.length > 0;
  const over = images.length - imagesLeft(heldBy(history));
  const blocked = blind || over > 0;
  const sendable = (text.trim() !== '' || images.length > 0) && !!model && preparing === 0 && !blocked;

  function submit() {
    if (busy || !sendable) return;
    const target = id ?? newChat(model);
    if (conversations.value[target]?.model !== model) setFields(target, { model });
    void send(target, text, images.map((p) => p.url)).then(refreshModels);
    setText('');
    setPending([]);
    setNotes([]);
  }

  function onPaste(e: ClipboardEvent) {
    const data = e.clipboardData;
    const files = [...(data?.files ?? [])].filter((f) => imageType(f));
    if (files.length === 0) return;
    // Copied cells or a document come as text and as a picture of it: the
    // text pastes as always, and the picture is attached beside it where the
    // model reads images (one click removes it), not mentioned where not.
    const text = !!data?.types.includes('text/plain');
    if (!text) e.preventDefault();
    else if (!vision) return;
    void attach(files, files.length === 1 ? 'The pasted image was' : 'The pasted images were');
  }

  return (
    <form class={`composer${dropping ? ' dropping' : ''}`} onSubmit={(e) => { e.preventDefault(); submit(); }}
      onDragOver={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDropping(true);
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDropping(false);
      }}
      onDrop={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDropping(false);
        const files = [...(e.dataTransfer?.files ?? [])];
        void attach(files, files.length === 1 ? 'The dropped file was' : 'The dropped files were');
      }}>
      {dropping && <p class="drop-hint">{vision ? 'Drop images to attach them' : cannotSee(model)}</p>}
      {images.length > 0 && (
        <ul class="thumbs" aria-label="Images to send">
          {images.map((p) => (
            <li key={p.key}>
              <img src={p.url} alt={`Image to send: ${p.name}`} title={p.name} />
              <button type="button" class="icon-button small" aria-label={`Remove ${p.name}`}
                onClick={() => { setPending(pending.current.filter((q) => q.key !== p.key)); setNotes([]); }}>×</button>
            </li>
          ))}
        </ul>
      )}
      {preparing > 0 && <p class="muted small" role="status">Preparing {preparing} image{preparing === 1 ? '' : 's'}…</p>}
      {(notes.length > 0 || blocked) && (
        <div role="alert" class="error small">
          {notes.map((n) => <p key={n}>{n}</p>)}
          {blind && <p>{cannotSee(model)}: remove the images to send, or pick a model that reads them.</p>}
          {!blind && over > 0 && (
            <p>This conversation already holds {history.length} images; zest takes {imageLimits.maxImages} a request:
              remove {over}, or start a new chat.</p>
          )}
        </div>
      )}
      {!vision && history.length > 0 && (
        <p class="muted small">This conversation holds images, which {model} cannot read: zest will refuse its
          requests. Pick a model that reads images, or start a new chat.</p>
      )}
      <label class="visually-hidden" for="message">Message</label>
      <textarea id="message" rows={3} placeholder="Message (Enter sends, Shift+Enter for a new line)" value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onPaste={onPaste}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            submit();
          }
        }} />
      <div class="row">
        <button type="button" class="button" disabled={!vision}
          title={vision ? 'Attach images (or paste or drop them here)' : cannotSee(model)}
          onClick={() => picker.current?.click()}>
          Attach images
        </button>
        <input ref={picker} type="file" accept="image/*,.heic,.heif" multiple hidden tabIndex={-1}
          onChange={(e) => {
            const input = e.currentTarget;
            const files = [...(input.files ?? [])];
            input.value = '';
            void attach(files, 'The chosen files were');
          }} />
        {listener && canRecord() && !busy && (recording.value ? (
          <>
            <button type="button" class="button primary" disabled={!recording.value.hearing}
              onClick={() => recording.value?.finish()}>Stop and send</button>
            <button type="button" class="button" onClick={() => recording.value?.cancel()}>Cancel</button>
            <span class="muted small" role="status">{recording.value.hearing ? `Listening… ${recording.value.seconds} s` : 'Starting the microphone…'}</span>
          </>
        ) : (
          <button type="button" class="button" disabled={!model} title={`Speak your message; ${listener} writes it down`}
            onClick={() => {
              const target = id ?? newChat(model);
              if (conversations.value[target]?.model !== model) setFields(target, { model });
              void talk(target, listener).then(refreshModels);
            }}>
            Talk
          </button>
        ))}
        <span class="grow" />
        {busy ? (
          <button type="button" class="button danger" onClick={stop}>Stop</button>
        ) : (
          <button type="submit" class="button primary" disabled={!sendable}>Send</button>
        )}
      </div>
    </form>
  );
}
