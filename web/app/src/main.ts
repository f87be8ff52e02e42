import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from './ui.js';
import { idToken, signedInEmail, signIn, signOut } from './session.js';
import { OverviewPage } from './pages/overview.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { WebhookSecretsPage } from './pages/webhook-secrets.js';
import { CreditsPage } from './pages/credits.js';
import { SendingAccountsPage } from './pages/sending-accounts.js';
import { DeliverabilityPage } from './pages/deliverability.js';
import { SequencesPage } from './pages/sequences.js';
import { JobsPage } from './pages/jobs.js';
import { OutreachPage } from './pages/outreach.js';
import { NewSearchPage } from './pages/new-search.js';

/** The product's name, on the sign-in page and in every tab's title. */
export const PRODUCT = 'People Search & Outreach';

/**
 * The pages, in navigation order: `#/<path>` shows `page`. A new page is one module under pages/ and one row
 * here; `#/<path>/<id>` shows the same page with `rest` set to the id.
 */
const PAGES: { path: string; title: string; page: (props: { rest?: string }) => unknown }[] = [
  { path: 'overview', title: 'Overview', page: OverviewPage },
  { path: 'api-keys', title: 'API keys', page: ApiKeysPage },
  { path: 'webhook-secrets', title: 'Signing secrets', page: WebhookSecretsPage },
  { path: 'credits', title: 'Credits', page: CreditsPage },
  { path: 'sending-accounts', title: 'Sending accounts', page: SendingAccountsPage },
  { path: 'deliverability', title: 'Deliverability', page: DeliverabilityPage },
  { path: 'sequences', title: 'Sequences', page: SequencesPage },
  { path: 'search', title: 'New search', page: NewSearchPage },
  { path: 'jobs', title: 'Search jobs', page: JobsPage },
  { path: 'outreach', title: 'Outreach review', page: OutreachPage },
];

const currentPath = () => location.hash.replace(/^#\/?/, '') || PAGES[0]!.path;
const pageOf = (path: string) => PAGES.find((p) => p.path === path.split('/')[0]);

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      await signIn(String(form.get('email')), String(form.get('password')));
      onSignedIn();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="signin">
    <p class="product" aria-hidden="true"><img src="favicon.svg" alt="" width="32" height="32" /> ${PRODUCT}</p>
    <h1>Sign in to ${PRODUCT}</h1>
    <form onSubmit=${submit}>
      <div class="field"><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required /></div>
      <div class="field"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required /></div>
      <button type="submit" disabled=${busy}>Sign in</button>
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </form>
  </main>`;
}

function App() {
  const [signedIn, setSignedIn] = useState(idToken() !== null);
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const onHash = () => setPath(currentPath());
    const onSignedOut = () => setSignedIn(false);
    window.addEventListener('hashchange', onHash);
    window.addEventListener('app:signed-out', onSignedOut);
    return () => {
      window.removeEventListener('hashchange', onHash);
      window.removeEventListener('app:signed-out', onSignedOut);
    };
  }, []);
  useEffect(() => {
    const page = pageOf(path);
    document.title = signedIn ? `${page?.title ?? 'Not found'} — ${PRODUCT}` : `Sign in — ${PRODUCT}`;
    document.getElementById('main')?.focus();
  }, [path, signedIn]);
  if (!signedIn) return html`<${SignIn} onSignedIn=${() => setSignedIn(true)} />`;
  const page = pageOf(path);
  return html`<a class="skip" href="#main" onClick=${(e: Event) => (e.preventDefault(), document.getElementById('main')?.focus())}>Skip to content</a>
    <header class="top">
      <h1>${PRODUCT}</h1>
      <nav aria-label="Pages"><ul>
        ${PAGES.map((p) => html`<li><a href=${`#/${p.path}`} aria-current=${p === pageOf(path) ? 'page' : undefined}>${p.title}</a></li>`)}
      </ul></nav>
      <div class="row">
        <span class="muted">${signedInEmail()}</span>
        <button type="button" class="secondary" onClick=${() => (signOut(), setSignedIn(false))}>Sign out</button>
      </div>
    </header>
    <main id="main" tabindex="-1">${page ? html`<${page.page} key=${path} rest=${path.split('/').slice(1).join('/') || undefined} />` : html`<p>No such page.</p>`}</main>`;
}

const root = document.getElementById('root')!;
// The page's static "Loading…" is replaced, not diffed: Preact appends to a container it did not render.
root.replaceChildren();
render(html`<${App} />`, root);
