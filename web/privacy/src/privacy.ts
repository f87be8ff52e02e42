import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { ask, confirm, held, PrivacyApiError, type Held, type Profile, type RequestKind } from './api.js';

/**
 * The privacy page (`/privacy/` on the web app's host, no sign-in): anyone asks what is held about their
 * address, to opt out, or to be erased, and gets a link by email; the link (`?token=`) opens what is held
 * and a button that carries the request out. A small bundle of its own: it loads nothing of the app.
 */
const PRODUCT = 'People Search & Outreach';

const KINDS: Record<RequestKind, { label: string; explain: string; title: string; before: string; button: string; done: string }> = {
  access: {
    label: 'See what is held',
    explain: 'Shows the directory record for your address and how often accounts emailed it. Nothing changes.',
    title: 'What is held about your address',
    before: 'Nothing is changed when you close this request.',
    button: 'Close this request',
    done: 'This request is closed. Nothing was changed.',
  },
  opt_out: {
    label: 'Opt out',
    explain: 'Removes you from every customer’s search and enrichment results and stops every account from emailing you.',
    title: 'Opt out',
    before: 'Once you confirm, no account can find your address or the record above in search or enrichment, and no account can email you through the service.',
    button: 'Opt me out',
    done: 'You are opted out. No account can find your address in search or enrichment, and no account can email you through the service.',
  },
  erase: {
    label: 'Erase',
    explain: 'Opts you out and deletes your directory record; only a one-way hash of your address is kept so you are not added back.',
    title: 'Erase your data',
    before: 'Once you confirm, you are opted out and the record above is deleted. Only a one-way hash of your address is kept, so a later import of the directory does not add you back.',
    button: 'Erase my data',
    done: 'Your directory record is deleted and you are opted out. Only a one-way hash of your address is kept.',
  },
};
const KIND_ORDER: RequestKind[] = ['access', 'opt_out', 'erase'];

type View =
  | { kind: 'form'; expired?: boolean }
  | { kind: 'sent' }
  | { kind: 'loading' }
  | { kind: 'review'; data: Held }
  | { kind: 'done'; data: Held; completedAt: string | null }
  | { kind: 'error'; message: string };

const longDate = (iso: string, withTime: boolean) =>
  new Intl.DateTimeFormat(undefined, withTime ? { dateStyle: 'long', timeStyle: 'short' } : { dateStyle: 'long' }).format(new Date(iso));

/** `YYYY-MM` as "March 2019" (the month itself, whatever the viewer's time zone). */
const month = (ym: string | null | undefined) => {
  if (!ym) return null;
  const [y, m] = ym.split('-').map(Number);
  if (!y || !m) return ym;
  return new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(Date.UTC(y, m - 1, 1)));
};
const span = (start?: string | null, end?: string | null) => {
  const from = month(start);
  const to = end ? month(end) : 'present';
  return from ? `${from} – ${to}` : null;
};
const joined = (...parts: (string | null | undefined)[]) => parts.filter((p) => p && String(p).trim()).join(', ');

/** The profile's fields this page lays out itself; any other plain field shows under "Also held". */
const LAID_OUT = new Set(['first_name', 'last_name', 'full_name', 'headline', 'location', 'current_position', 'experience', 'education']);
const LABELS: Record<string, string> = { professional_url: 'Profile URL', work_email: 'Work email', email_status: 'Email status' };
const labelOf = (field: string) => {
  const words = field.replace(/_/g, ' ').replace(/\burl\b/, 'URL');
  return LABELS[field] ?? words[0]!.toUpperCase() + words.slice(1);
};
const plain = (value: unknown): string | null => {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.length && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.join(', ');
  return null;
};

function ProfileCard({ profile }: { profile: Profile }) {
  const name = profile.full_name || joined(profile.first_name, profile.last_name) || 'Unnamed record';
  const position = profile.current_position;
  const place = profile.location ? joined(profile.location.city, profile.location.country) : '';
  const other = Object.entries(profile).flatMap(([field, value]) => {
    if (LAID_OUT.has(field)) return [];
    const text = plain(value);
    return text ? [[labelOf(field), text] as const] : [];
  });
  const experience = profile.experience ?? [];
  const education = profile.education ?? [];
  return html`<article class="profile" aria-label=${name}>
    <h3>${name}</h3>
    ${profile.headline && html`<p>${profile.headline}</p>`}
    <dl class="facts">
      ${position && html`<dt>Current position</dt><dd>${joined(position.title, position.company_name)}${position.company_industry ? ` (${position.company_industry})` : ''}</dd>`}
      ${place && html`<dt>Location</dt><dd>${place}</dd>`}
      ${other.map(([label, text]) => html`<dt>${label}</dt><dd>${text}</dd>`)}
    </dl>
    ${experience.length > 0 &&
    html`<h4>Experience</h4>
      <ul>
        ${experience.map((x) => html`<li>${joined(x.title, x.company_name)}${span(x.start, x.end) ? ` (${span(x.start, x.end)})` : ''}</li>`)}
      </ul>`}
    ${education.length > 0 &&
    html`<h4>Education</h4>
      <ul>
        ${education.map((x) => html`<li>${joined(x.school_name, joined(x.degree, x.field_of_study))}${span(x.start, x.end) ? ` (${span(x.start, x.end)})` : ''}</li>`)}
      </ul>`}
  </article>`;
}

function outreachSentence(outreach: Held['outreach']): string {
  const n = outreach.accounts_that_emailed;
  if (!n) return 'No account emailed this address through the service in the last 12 months.';
  const last = outreach.last_emailed_at ? `, last on ${longDate(outreach.last_emailed_at, false)}` : '';
  return `${n} ${n === 1 ? 'account' : 'accounts'} emailed this address in the last 12 months${last}.`;
}

function Heading({ text, focus }: { text: string; focus: boolean }) {
  const ref = useRef<HTMLHeadingElement>(null);
  // A new view moves keyboard and screen-reader focus to its heading (not on the page's first paint).
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, [text, focus]);
  return html`<h1 ref=${ref} tabindex="-1">${text}</h1>`;
}

function RequestForm({ expired, onSent, focus }: { expired: boolean; onSent: () => void; focus: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      await ask(String(form.get('email')).trim(), String(form.get('request')) as RequestKind);
      onSent();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return html`<${Heading} text="Your data and privacy" focus=${focus} />
    ${expired && html`<p class="notice" role="alert">This link has expired or was already used; ask again below.</p>`}
    <p>
      ${PRODUCT} keeps a directory of professional profiles that its customers search and email. If your work address is in
      it, or a customer emailed you through the service, you can see what is held, opt out, or have it erased. You need no
      account: we email a link to the address to check that it is yours.
    </p>
    <form onSubmit=${submit} aria-describedby=${error ? 'form-error' : undefined}>
      <div class="field">
        <label for="email">Your email address</label>
        <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" />
      </div>
      <fieldset>
        <legend>What would you like to do?</legend>
        <div class="choices">
          ${KIND_ORDER.map(
            (k) => html`<div class="choice">
              <input type="radio" id=${`request-${k}`} name="request" value=${k} required aria-describedby=${`request-${k}-explain`} />
              <label for=${`request-${k}`}>${KINDS[k].label}</label>
              <p id=${`request-${k}-explain`}>${KINDS[k].explain}</p>
            </div>`,
          )}
        </div>
      </fieldset>
      <button type="submit" disabled=${busy}>${busy ? 'Sending…' : 'Email me a link'}</button>
      ${error && html`<p class="error" id="form-error" role="alert">${error}</p>`}
    </form>`;
}

function Review({ data, token, onDone, focus }: { data: Held; token: string; onDone: (completedAt: string) => void; focus: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const kind = KINDS[data.request] ?? KINDS.access;
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      onDone((await confirm(token)).completed_at);
    } catch (err) {
      setError((err as PrivacyApiError).status === 404 ? 'This link has expired or was already used; ask again.' : (err as Error).message);
      setBusy(false);
    }
  };
  return html`<${Heading} text=${kind.title} focus=${focus} />
    <p>For <strong class="email">${data.email}</strong></p>
    <section aria-labelledby="held-directory">
      <h2 id="held-directory">In the people directory</h2>
      ${data.directory.length
        ? data.directory.map((p) => html`<${ProfileCard} profile=${p} />`)
        : html`<p>No directory record has this address.</p>`}
    </section>
    <section aria-labelledby="held-outreach">
      <h2 id="held-outreach">Outreach</h2>
      <p>${outreachSentence(data.outreach)}</p>
    </section>
    <section aria-labelledby="held-confirm">
      <h2 id="held-confirm">${data.request === 'access' ? 'Close this request' : 'Confirm'}</h2>
      <p>${kind.before}</p>
      <button type="button" class=${data.request === 'erase' ? 'danger' : ''} disabled=${busy} onClick=${go}>${busy ? 'Working…' : kind.button}</button>
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </section>`;
}

function Done({ data, completedAt, onAgain, focus }: { data: Held; completedAt: string | null; onAgain: () => void; focus: boolean }) {
  const kind = KINDS[data.request] ?? KINDS.access;
  return html`<${Heading} text="Done" focus=${focus} />
    <div class="done" role="status">
      <p>${kind.done}</p>
      ${completedAt && html`<p>Completed on <time datetime=${completedAt}>${longDate(completedAt, true)}</time>.</p>`}
    </div>
    <p>For <strong class="email">${data.email}</strong></p>
    <button type="button" class="secondary" onClick=${onAgain}>Make another request</button>`;
}

function Page() {
  const token = new URLSearchParams(location.search).get('token');
  const [view, setView] = useState<View>(token ? { kind: 'loading' } : { kind: 'form' });
  const first = useRef(true);
  const focus = !first.current;
  useEffect(() => {
    first.current = false;
  });
  const forgetToken = () => history.replaceState(null, '', location.pathname);
  const load = () => {
    if (!token) return;
    setView({ kind: 'loading' });
    held(token).then(
      (data) => {
        if (data.status === 'completed') {
          forgetToken();
          setView({ kind: 'done', data, completedAt: data.completed_at ?? null });
        } else setView({ kind: 'review', data });
      },
      (err: PrivacyApiError) => {
        if (err.status === 404) {
          forgetToken();
          setView({ kind: 'form', expired: true });
        } else setView({ kind: 'error', message: err.message });
      },
    );
  };
  useEffect(load, []);
  useEffect(() => {
    const titles: Record<View['kind'], string> = { form: 'Your data', sent: 'Check your email', loading: 'Your data', review: 'Your data', done: 'Done', error: 'Your data' };
    document.title = `${titles[view.kind]} — ${PRODUCT}`;
  }, [view.kind]);

  let body: unknown;
  switch (view.kind) {
    case 'form':
      body = html`<${RequestForm} expired=${view.expired === true} focus=${focus || view.expired === true} onSent=${() => setView({ kind: 'sent' })} />`;
      break;
    case 'sent':
      body = html`<${Heading} text="Check your email" focus=${true} />
        <p role="status">If that address is in our records, we've emailed a link to it. The link works once, within 24 hours.</p>
        <button type="button" class="secondary" onClick=${() => setView({ kind: 'form' })}>Ask about another address</button>`;
      break;
    case 'loading':
      body = html`<p class="muted" aria-live="polite">Loading…</p>`;
      break;
    case 'review':
      body = html`<${Review}
        data=${view.data}
        token=${token!}
        focus=${focus}
        onDone=${(completedAt: string) => (forgetToken(), setView({ kind: 'done', data: view.data, completedAt }))}
      />`;
      break;
    case 'done':
      body = html`<${Done} data=${view.data} completedAt=${view.completedAt} focus=${focus} onAgain=${() => setView({ kind: 'form' })} />`;
      break;
    case 'error':
      body = html`<${Heading} text="Something went wrong" focus=${focus} />
        <p class="error" role="alert">${view.message}</p>
        <button type="button" onClick=${load}>Try again</button>`;
      break;
  }
  return html`<main id="main" class="privacy">
    <header class="brand"><img src="../app/favicon.svg" alt="" width="24" height="24" /> ${PRODUCT}</header>
    ${body}
  </main>`;
}

const root = document.getElementById('root')!;
// The page's static "Loading…" is replaced, not diffed: Preact appends to a container it did not render.
root.replaceChildren();
render(html`<${Page} />`, root);
