// One message of a conversation: the user's (plain text and images, with Edit) or the
// model's (Markdown, folded reasoning, speed, Regenerate, Listen).
import { useMemo, useState } from 'preact/hooks';
import { Dialog } from '../components/dialog';
import { formatCount, formatRate } from '../lib/format';
import type { Message } from '../lib/conversations';
import { renderMarkdown } from '../lib/markdown';

function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // markdown-it runs with html: false, so this holds no markup from the model.
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

// A user message's images as thumbnails; a click shows one at full size.
function Attachments({ images }: { images: string[] }) {
  const [shown, setShown] = useState<number | null>(null);
  return (
    <div class="attachments">
      {images.map((src, i) => (
        <button type="button" key={i} class="attachment" title="View larger" onClick={() => setShown(i)}>
          <img src={src} alt={`Attached image ${i + 1}`} />
        </button>
      ))}
      {shown !== null && (
        <Dialog open wide title={`Attached image ${shown + 1} of ${images.length}`} onClose={() => setShown(null)}>
          <img class="viewer" src={images[shown]} alt={`Attached image ${shown + 1}, full size`} />
          <div class="row end">
            <button type="button" class="button" onClick={() => setShown(null)}>Close</button>
          </div>
        </Dialog>
      )}
    </div>
  );
}

interface UserProps {
  message: Message;
  busy: boolean;
  /** Null: the message cannot be edited (an audio file sent to a speech model). */
  onEdit: ((text: string) => void) | null;
}

export function UserMessage({ message, busy, onEdit }: UserProps) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(message.content);
  if (editing) {
    return (
      <article class="msg user" data-role="user">
        {message.images?.length ? <Attachments images={message.images} /> : null}
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            setEditing(false);
            onEdit?.(text);
          }}
        >
          <label class="field">
            <span>Edit message</span>
            <textarea rows={4} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          </label>
          <div class="row end">
            <button type="button" class="button" onClick={() => setEditing(false)}>Cancel</button>
            <button type="submit" class="button primary" disabled={busy || (!text.trim() && !message.images?.length)}>Save and send</button>
          </div>
        </form>
      </article>
    );
  }
  return (
    <article class="msg user" data-role="user">
      {message.images?.length ? <Attachments images={message.images} /> : null}
      {message.content.trim() && <div class="text">{message.content}</div>}
      {onEdit && (
        <div class="msg-actions">
          <button type="button" class="link-button" disabled={busy} onClick={() => { setText(message.content); setEditing(true); }}>
            Edit
          </button>
        </div>
      )}
    </article>
  );
}

interface AssistantProps {
  message: Message;
  streaming: boolean;
  canRegenerate: boolean;
  onRegenerate: () => void;
  /** Reads the answer aloud (or stops it); null without a speech-out model. */
  onListen: (() => void) | null;
  /** Whether this answer is being read aloud now. */
  listening: boolean;
}

export function AssistantMessage({ message, streaming, canRegenerate, onRegenerate, onListen, listening }: AssistantProps) {
  const s = message.stats;
  return (
    <article class="msg assistant" data-role="assistant" aria-busy={streaming ? 'true' : 'false'}>
      {message.reasoning && (
        <details class="reasoning">
          <summary>Reasoning</summary>
          <div class="text">{message.reasoning}</div>
        </details>
      )}
      {message.content ? <Markdown text={message.content} /> : streaming && <p class="muted">…</p>}
      {message.error && <p class={message.error === 'Stopped.' ? 'muted' : 'error'}>{message.error}</p>}
      <div class="msg-actions">
        {s && (
          <span class="muted small" data-testid="answer-stats">
            {formatRate(s.tokensPerSecond)} · {formatCount(s.completionTokens)} tokens
          </span>
        )}
        {canRegenerate && !streaming && (
          <button type="button" class="link-button" onClick={onRegenerate}>Regenerate</button>
        )}
        {onListen && !streaming && message.content.trim() && (
          <button type="button" class="link-button" aria-pressed={listening ? 'true' : 'false'} onClick={onListen}>
            {listening ? 'Stop reading' : 'Listen'}
          </button>
        )}
      </div>
    </article>
  );
}
