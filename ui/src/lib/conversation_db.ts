// Keeps conversations in IndexedDB (database "zest", store "conversations",
// keyed by id). Where IndexedDB is missing or refuses (private windows,
// storage disabled), it keeps them in memory for the session and says so.
import type { Conversation } from './conversations';

const dbName = 'zest';
const storeName = 'conversations';

export interface ConversationStore {
  /** False when conversations will not outlive the page. */
  readonly persistent: boolean;
  loadAll(): Promise<Conversation[]>;
  put(c: Conversation): Promise<void>;
  remove(id: string): Promise<void>;
}

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

// A write is kept only once its transaction commits: a full disk or quota
// (QuotaExceededError) aborts the transaction after the request itself
// has succeeded, so waiting on the request alone would report it saved.
function committed(t: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    t.oncomplete = () => resolve();
    t.onabort = () => reject(t.error ?? new DOMException('The write was aborted.', 'AbortError'));
  });
}

class IndexedDbStore implements ConversationStore {
  readonly persistent = true;
  constructor(private readonly db: IDBDatabase) {}

  loadAll(): Promise<Conversation[]> {
    return request(this.db.transaction(storeName, 'readonly').objectStore(storeName).getAll() as IDBRequest<Conversation[]>);
  }

  private write(f: (s: IDBObjectStore) => void): Promise<void> {
    const t = this.db.transaction(storeName, 'readwrite');
    f(t.objectStore(storeName));
    return committed(t);
  }

  put(c: Conversation): Promise<void> {
    return this.write((s) => s.put(c));
  }

  remove(id: string): Promise<void> {
    return this.write((s) => s.delete(id));
  }
}

class MemoryStore implements ConversationStore {
  readonly persistent = false;
  private readonly items = new Map<string, Conversation>();
  async loadAll() { return [...this.items.values()]; }
  async put(c: Conversation) { this.items.set(c.id, c); }
  async remove(id: string) { this.items.delete(id); }
}

/** Opens the browser's store, or an in-memory one where there is none. */
export async function openConversationStore(): Promise<ConversationStore> {
  if (typeof indexedDB === 'undefined') return new MemoryStore();
  try {
    const open = indexedDB.open(dbName, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(storeName, { keyPath: 'id' });
    return new IndexedDbStore(await request(open));
  } catch {
    return new MemoryStore();
  }
}
