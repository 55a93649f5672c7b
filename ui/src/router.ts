// Hash routing: #/chat (the default), #/models, #/dashboard, #/logs.
import { signal } from '@preact/signals';

export const pages = ['chat', 'models', 'dashboard', 'logs'] as const;
export type Page = (typeof pages)[number];

function current(): Page {
  const name = location.hash.replace(/^#\/?/, '').split(/[/?]/)[0];
  return (pages as readonly string[]).includes(name) ? (name as Page) : 'chat';
}

export const route = signal<Page>(current());
window.addEventListener('hashchange', () => {
  route.value = current();
});
