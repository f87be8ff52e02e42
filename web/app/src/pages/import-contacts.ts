import { useState } from 'preact/hooks';
import { api, ApiError } from '../session.js';
import { CsvFileError, parseCsvText, readCsvFile, type ParsedCsv } from '../csv.js';
import { html } from '../ui.js';

/** A contact as POST /sequences/ takes it. */
export interface ContactIn {
  email: string;
  first_name: string;
  last_name?: string;
  company_name?: string;
  professional_url?: string;
  context?: string;
}

const FIELDS: { key: keyof ContactIn; label: string; required: boolean; guesses: RegExp }[] = [
  { key: 'email', label: 'Email', required: true, guesses: /^(e-?mail|email address|work email)$/i },
  { key: 'first_name', label: 'First name', required: true, guesses: /^(first[ _]?name|given[ _]?name|first)$/i },
  { key: 'last_name', label: 'Last name', required: false, guesses: /^(last[ _]?name|surname|family[ _]?name|last)$/i },
  { key: 'company_name', label: 'Company', required: false, guesses: /^(company|company[ _]?name|organi[sz]ation|account)$/i },
  { key: 'professional_url', label: 'Profile URL', required: false, guesses: /^(professional[ _]?url|profile[ _]?url|linkedin|profile)$/i },
  { key: 'context', label: 'Context', required: false, guesses: /^(context|notes?)$/i },
];

/** The sequence eligibility reasons (docs/decisions.md#sequence-eligibility), in words. */
export const REASONS: Record<string, string> = {
  invalid_contact: 'Invalid contact: a bad or missing email or first name, an address twice in the file, or an unsubscribed or bounced address',
  already_in_automation: 'Already in another running sequence',
  recently_contacted: 'Contacted in the last 30 days',
  not_enriched: 'Not enough to write to: add a company, a profile URL or context',
  already_enrolled: 'Already in this sequence',
};

/** Calls of the contact check and of create / add-contacts take at most this many contacts each. */
const CHECK_BATCH = 500;
const ADD_BATCH = 100;

type Mapping = Partial<Record<keyof ContactIn, string>>;

function guessMapping(headers: string[]): Mapping {
  const m: Mapping = {};
  for (const f of FIELDS) {
    const h = headers.find((x) => f.guesses.test(x.trim()));
    if (h) m[f.key] = h;
  }
  return m;
}

function toContact(row: Record<string, string>, m: Mapping): ContactIn {
  const c: Record<string, string> = {};
  for (const f of FIELDS) {
    const v = m[f.key] ? (row[m[f.key]!] ?? '').trim() : '';
    if (v || f.required) c[f.key] = v;
  }
  return c as unknown as ContactIn;
}

interface Checked {
  contacts: ContactIn[];
  reasons: (string | null)[];
  steps: number;
  price: number;
  room: number;
}

interface Outcome {
  accepted: number;
  rejected: { email: string; reason: string }[];
  sequenceId: string;
}

/**
 * A list of contacts (a CSV file, pasted CSV, or people handed over from a job's result) into a new sequence
 * or an existing one: column mapping, preview, the per-row report of the eligibility check (the server's judge),
 * the cost, then the calls that add them. Nothing is written before the confirm.
 */
export function ImportContacts(props: {
  sequenceId?: string;
  /** For a new sequence: its name, instructions and steps, read when the rows are checked and confirmed. */
  newSequence?: () => { name?: string; instructions: string; steps: number } | string;
  initial?: ContactIn[];
  onDone: (sequenceId: string) => void;
}) {
  const [csv, setCsv] = useState<ParsedCsv | null>(null);
  const [mapping, setMapping] = useState<Mapping>({});
  const [fileError, setFileError] = useState<string | null>(null);
  const [checked, setChecked] = useState<Checked | null>(null);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [pasted, setPasted] = useState('');

  const reset = () => {
    setChecked(null);
    setError(null);
    setOutcome(null);
  };
  const loaded = (parsed: ParsedCsv) => {
    const m = guessMapping(parsed.headers);
    setCsv(parsed);
    setMapping(m);
    reset();
    const missing = FIELDS.filter((f) => f.required && !m[f.key]);
    setFileError(missing.length ? `Missing required column: ${missing.map((f) => f.label.toLowerCase()).join(' and ')}. The file's columns are ${parsed.headers.join(', ')}; map them below or fix the file.` : null);
  };
  const fail = (e: unknown) => {
    setCsv(null);
    reset();
    setFileError(e instanceof CsvFileError ? e.message : `The file cannot be read: ${(e as Error).message}`);
  };
  const onFile = async (e: Event) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (!file) return;
    try {
      loaded(await readCsvFile(file));
    } catch (err) {
      fail(err);
    }
  };
  const onPaste = () => {
    try {
      loaded(parseCsvText(pasted));
    } catch (err) {
      fail(err);
    }
  };

  const contactsNow = (): ContactIn[] | null => {
    if (props.initial) return props.initial;
    if (!csv) return null;
    return csv.rows.map((r) => toContact(r, mapping));
  };

  const check = async () => {
    reset();
    const contacts = contactsNow();
    if (!contacts) return;
    const missing = props.initial ? [] : FIELDS.filter((f) => f.required && !mapping[f.key]);
    if (missing.length) return setError(`Choose the column that holds ${missing.map((f) => f.label.toLowerCase()).join(' and ')}.`);
    let steps = 3;
    if (props.newSequence) {
      const s = props.newSequence();
      if (typeof s === 'string') return setError(s);
      steps = s.steps;
    }
    setBusy(true);
    try {
      const reasons: (string | null)[] = [];
      let room = 500;
      let price = 2;
      // An address twice in the file: the later rows are invalid_contact, as one request would judge them.
      const seen = new Set<string>();
      for (let i = 0; i < contacts.length; i += CHECK_BATCH) {
        setProgress(`Checking rows ${i + 1}–${Math.min(i + CHECK_BATCH, contacts.length)} of ${contacts.length}…`);
        const batch = contacts.slice(i, i + CHECK_BATCH);
        const r = await api<{ results: { index: number; reason: string | null }[]; steps: number; price_per_email: number; room: number }>('POST', 'contact-checks/', {
          contacts: batch,
          ...(props.sequenceId ? { sequence_id: props.sequenceId } : { steps }),
        });
        steps = r.steps;
        price = r.price_per_email;
        room = r.room;
        r.results.forEach(({ index, reason }) => {
          const address = batch[index]!.email.toLowerCase();
          reasons.push(reason ?? (seen.has(address) ? 'invalid_contact' : null));
          if (address) seen.add(address);
        });
      }
      setChecked({ contacts, reasons, steps, price, room });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
      setProgress(null);
    }
  };

  const eligible = checked ? checked.contacts.filter((_, i) => checked.reasons[i] === null) : [];
  const adding = checked ? eligible.slice(0, checked.room) : [];
  const cost = checked ? adding.length * checked.steps * checked.price : 0;

  /** Add `contacts` in calls of 100; a call refused because a drafting pass runs is retried once it settles. */
  const confirm = async () => {
    if (!checked) return;
    setBusy(true);
    setError(null);
    const rejected: Outcome['rejected'] = [];
    let accepted = 0;
    let id = props.sequenceId ?? null;
    const note = (r: { contacts_accepted: number; contacts_rejected: { contact: { email?: string }; reason: string }[] }) => {
      accepted += r.contacts_accepted;
      rejected.push(...r.contacts_rejected.map((x) => ({ email: String(x.contact?.email ?? ''), reason: x.reason })));
    };
    try {
      for (let i = 0; i < adding.length; i += ADD_BATCH) {
        const batch = adding.slice(i, i + ADD_BATCH);
        setProgress(`Adding contacts ${i + 1}–${i + batch.length} of ${adding.length}…`);
        if (!id) {
          const s = props.newSequence!() as { name?: string; instructions: string; steps: number };
          const r = await api<{ id: string; contacts_accepted: number; contacts_rejected: { contact: { email?: string }; reason: string }[] }>('POST', 'sequences/', {
            contacts: batch,
            instructions: s.instructions,
            steps: s.steps,
            ...(s.name ? { name: s.name } : {}),
          });
          id = r.id;
          note(r);
          continue;
        }
        for (;;) {
          try {
            note(await api('POST', `sequences/${id}/contacts/`, { contacts: batch }));
            break;
          } catch (e) {
            if (!(e instanceof ApiError) || e.status !== 409 || !/drafting pass/i.test(e.message)) throw e;
            setProgress(`Added ${accepted} of ${adding.length}; waiting for the drafts of the last ones before adding more (keep this page open)…`);
            await new Promise((r) => setTimeout(r, 3_000));
          }
        }
      }
      setOutcome({ accepted, rejected, sequenceId: id! });
      setChecked(null);
    } catch (e) {
      setError(`${(e as Error).message}${accepted ? ` ${accepted} contacts were added before this; check the file again to add the rest (added ones are reported as already in this sequence).` : ''}`);
      if (id && accepted) setOutcome({ accepted, rejected, sequenceId: id });
    } finally {
      setBusy(false);
      setProgress(null);
    }
  };

  const preview = contactsNow()?.slice(0, 5) ?? [];
  return html`<div class="import" data-testid="import">
    ${!props.initial &&
    html`<div class="field"><label for="csv-file">CSV file (header row, UTF-8, up to 10,000 rows)</label>
        <input id="csv-file" type="file" accept=".csv,text/csv" onChange=${onFile} /></div>
      <details><summary>Or paste CSV</summary>
        <div class="field"><label for="csv-paste">CSV text</label><textarea id="csv-paste" rows="4" value=${pasted} onInput=${(e: Event) => setPasted((e.target as HTMLTextAreaElement).value)}></textarea></div>
        <button type="button" class="secondary" onClick=${onPaste}>Read pasted CSV</button>
      </details>`}
    ${fileError && html`<p class="error" role="alert" data-testid="file-error">${fileError}</p>`}
    ${csv &&
    html`<p class="muted">${csv.rows.length.toLocaleString()} rows read.</p>
      <fieldset><legend>Columns</legend><div class="row">
        ${FIELDS.map(
          (f) => html`<div class="field"><label for=${`map-${f.key}`}>${f.label}${f.required ? ' (required)' : ''}</label>
            <select id=${`map-${f.key}`} value=${mapping[f.key] ?? ''} onChange=${(e: Event) => (setMapping({ ...mapping, [f.key]: (e.target as HTMLSelectElement).value || undefined }), reset())}>
              <option value="">${f.required ? 'Choose…' : 'None'}</option>
              ${csv.headers.map((h) => html`<option value=${h}>${h}</option>`)}
            </select></div>`,
        )}
      </div></fieldset>`}
    ${preview.length > 0 &&
    html`<h4>Preview</h4><div class="table-wrap"><table data-testid="import-preview">
      <thead><tr>${FIELDS.map((f) => html`<th scope="col">${f.label}</th>`)}</tr></thead>
      <tbody>${preview.map((c) => html`<tr>${FIELDS.map((f) => html`<td>${c[f.key] ?? ''}</td>`)}</tr>`)}</tbody>
    </table></div>
    <button type="button" disabled=${busy} onClick=${check}>Check ${(contactsNow()?.length ?? 0).toLocaleString()} rows</button>`}
    ${checked &&
    html`<div data-testid="import-report">
      <h4>Validation report</h4>
      <p><strong data-testid="eligible-count">${eligible.length}</strong> of ${checked.contacts.length} rows can be added; <strong data-testid="rejected-count">${checked.contacts.length - eligible.length}</strong> cannot.</p>
      ${eligible.length > adding.length && html`<p class="error">A sequence holds at most 500 contacts: only the first ${adding.length} eligible rows are added.</p>`}
      ${checked.contacts.length > eligible.length &&
      html`<div class="table-wrap"><table data-testid="rejected-rows">
        <thead><tr><th scope="col">Row</th><th scope="col">Email</th><th scope="col">Reason</th></tr></thead>
        <tbody>${checked.reasons
          .map((r, i) => [r, i] as const)
          .filter(([r]) => r !== null)
          .slice(0, 500)
          .map(([r, i]) => html`<tr><td>${i + 2}</td><td>${checked.contacts[i]!.email || html`<span class="muted">(none)</span>`}</td><td><code>${r}</code> — ${REASONS[r!] ?? r}</td></tr>`)}</tbody>
      </table></div>`}
      <p data-testid="import-cost"><strong>Cost:</strong> ${adding.length} contacts × ${checked.steps} steps × ${checked.price} credits = <strong>${cost} credits</strong>, reserved now and charged per email drafted (failed drafts are released).</p>
      ${adding.length > 0 && html`<button type="button" disabled=${busy} onClick=${confirm}>Add ${adding.length} contacts (${cost} credits)</button>`}
    </div>`}
    ${progress && html`<p aria-live="polite">${progress}</p>`}
    ${error && html`<p class="error" role="alert">${error}</p>`}
    ${outcome &&
    html`<div role="status" data-testid="import-outcome">
      <p>${outcome.accepted} contacts added.${outcome.rejected.length ? ` ${outcome.rejected.length} were rejected when added:` : ''}</p>
      ${outcome.rejected.length > 0 && html`<ul>${outcome.rejected.map((r) => html`<li>${r.email}: ${REASONS[r.reason] ?? r.reason}</li>`)}</ul>`}
      <button type="button" onClick=${() => props.onDone(outcome.sequenceId)}>Open the sequence</button>
    </div>`}
  </div>`;
}
