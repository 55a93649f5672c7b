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

class IndexedDbStore implements ConversationStore {
  readonly persistent = true;
  constructor(private readonly db: IDBDatabase) {}

  private store(mode: IDBTransactionMode): IDBObjectStore {
    return this.db.transaction(storeName, mode).objectStore(storeName);
  }

  loadAll(): Promise<Conversation[]> {
    return request(this.store('readonly').getAll() as IDBRequest<Conversation[]>);
  }

  async put(c: Conversation): Promise<void> {
    await request(this.store('readwrite').put(c));
  }

  async remove(id: string): Promise<void> {
    await request(this.store('readwrite').delete(id));
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
