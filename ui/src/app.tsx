// The page frame: header with navigation and the key button, the current
// page, and the key dialog.
import { useEffect } from 'preact/hooks';
import { keyDialogOpen, refreshSession, session } from './api';
import { KeyDialog } from './components/key_dialog';
import { ChatPage } from './pages/chat';
import { DashboardPage } from './pages/dashboard';
import { LogsPage } from './pages/logs';
import { ModelsPage } from './pages/models';
import { Page, route } from './router';

const links: { page: Page; label: string; admin?: boolean }[] = [
  { page: 'chat', label: 'Chat' },
  { page: 'models', label: 'Models' },
  { page: 'dashboard', label: 'Dashboard' },
  { page: 'logs', label: 'Logs', admin: true },
];

function KeyIcon() {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <circle cx="8" cy="15" r="4" fill="none" stroke="currentColor" stroke-width="2" />
      <path d="M11 12l8-8m-3 3l3 3m-5-1l2 2" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
    </svg>
  );
}

function Header() {
  const admin = session.value?.access === 'admin';
  const current = route.value;
  return (
    <header class="header">
      <a class="brand" href="#/chat">zest</a>
      <nav aria-label="Main">
        <ul class="nav">
          {links.filter((l) => !l.admin || admin).map((l) => (
            <li key={l.page}>
              <a href={`#/${l.page}`} aria-current={current === l.page ? 'page' : undefined}>{l.label}</a>
            </li>
          ))}
        </ul>
      </nav>
      <button type="button" class="icon-button" aria-label="API key" title="API key" onClick={() => (keyDialogOpen.value = true)}>
        <KeyIcon />
      </button>
    </header>
  );
}

function CurrentPage() {
  const s = session.value;
  if (!s) return <p class="muted">Connecting…</p>;
  if (s.access === 'none') return <p class="muted">Enter an API key to use this server.</p>;
  switch (route.value) {
    case 'models':
      return <ModelsPage />;
    case 'dashboard':
      return <DashboardPage />;
    case 'logs':
      return s.access === 'admin' ? <LogsPage /> : <p class="muted">The logs need an admin key.</p>;
    default:
      return <ChatPage />;
  }
}

export function App() {
  useEffect(() => {
    // Unreachable server: the pages' own requests say so.
    refreshSession().catch(() => {});
  }, []);
  useEffect(() => {
    const name = links.find((l) => l.page === route.value)?.label ?? 'Chat';
    document.title = `${name} · zest`;
  }, [route.value]);
  return (
    <>
      <Header />
      <main id="main" class={`main page-${route.value}`}>
        <CurrentPage />
      </main>
      <KeyDialog />
    </>
  );
}
