import { html } from 'htm/preact';
import { useCallback, useEffect, useState } from 'preact/hooks';

export { html };

/** Loads once on mount and again on `reload()`; pages render its three states the same way. */
export function useLoad<T>(load: () => Promise<T>): { data: T | null; error: string | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => live && (setData(d), setError(null)),
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [tick]);
  return { data, error, reload: useCallback(() => setTick((t) => t + 1), []) };
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export function Loading({ error }: { error: string | null }) {
  return error ? html`<p class="error" role="alert">${error}</p>` : html`<p class="muted" aria-live="polite">Loading…</p>`;
}

/** A secret shown exactly once, with a copy button; the page forgets it when dismissed. */
export function ShownOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(value).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return html`<div class="shown-once" role="status" aria-live="polite">
    <strong>${label}</strong>
    <p>Copy it now: it will not be shown again.</p>
    <code data-testid="shown-once">${value}</code>
    <div class="row">
      <button type="button" onClick=${copy}>${copied ? 'Copied' : 'Copy'}</button>
      <button type="button" class="secondary" onClick=${onDone}>Done</button>
    </div>
  </div>`;
}
