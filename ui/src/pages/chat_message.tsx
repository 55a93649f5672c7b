// One message of a conversation: the user's (plain text, with Edit) or the
// model's (Markdown, folded reasoning, speed, Regenerate).
import { useMemo, useState } from 'preact/hooks';
import { formatCount, formatRate } from '../lib/format';
import type { Message } from '../lib/conversations';
import { renderMarkdown } from '../lib/markdown';

function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // markdown-it runs with html: false, so this holds no markup from the model.
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
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
            <button type="submit" class="button primary" disabled={busy || !text.trim()}>Save and send</button>
          </div>
        </form>
      </article>
    );
  }
  return (
    <article class="msg user" data-role="user">
      {message.images?.map((src, i) => <img key={i} class="attachment" src={src} alt={`Attached image ${i + 1}`} />)}
      <div class="text">{message.content}</div>
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
}

export function AssistantMessage({ message, streaming, canRegenerate, onRegenerate }: AssistantProps) {
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
      </div>
    </article>
  );
}
