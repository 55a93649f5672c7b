// Asks for an API key when the server wants one (or the header's key button
// is pressed), checks it with GET /api/v1/session, and keeps it in
// sessionStorage for this tab only.
import { useEffect, useState } from 'preact/hooks';
import { type Access, keyDialogOpen, messageOf, refreshSession, session, storeKey, storedKey } from '../api';
import { Dialog } from './dialog';

export function KeyDialog() {
  const open = keyDialogOpen.value;
  const [key, setKey] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const hasKey = storedKey() !== null;

  useEffect(() => {
    if (open) {
      setKey('');
      setError('');
    }
  }, [open]);

  async function submit(e: Event) {
    e.preventDefault();
    const previous = storedKey();
    storeKey(key.trim());
    setBusy(true);
    let access: Access;
    try {
      access = await refreshSession();
    } catch (err) {
      storeKey(previous);
      setError(messageOf(err));
      return;
    } finally {
      setBusy(false);
    }
    if (access === 'none') {
      storeKey(previous);
      setError('The server did not accept this key.');
      keyDialogOpen.value = true;
      return;
    }
    keyDialogOpen.value = false;
    location.reload();  // Every page reloads its data with the new rights.
  }

  function forget() {
    storeKey(null);
    location.reload();
  }

  const access = session.value?.access;
  return (
    <Dialog open={open} title="API key" onClose={() => (keyDialogOpen.value = false)}>
      <form onSubmit={submit} class="stack">
        <p class="muted">
          {access === 'none'
            ? 'This zest server needs an API key.'
            : `The key you use now gives ${access === 'admin' ? 'admin' : 'inference'} access.`}{' '}
          It is kept in this tab only.
        </p>
        <label class="field">
          <span>API key</span>
          <input type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        </label>
        {error && <p role="alert" class="error">{error}</p>}
        <div class="row end">
          {hasKey && <button type="button" class="button" onClick={forget}>Forget key</button>}
          <button type="button" class="button" onClick={() => (keyDialogOpen.value = false)}>Close</button>
          <button type="submit" class="button primary" disabled={busy}>Use key</button>
        </div>
      </form>
    </Dialog>
  );
}
