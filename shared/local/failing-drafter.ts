import { DraftFailedError, type Drafter } from '../outreach/drafter.js';

/**
 * The twin's drafting failure on demand: instructions holding this marker fail to draft (the email becomes
 * `failed`, nothing charged), so the failure path can be exercised end to end through the API. It lives on
 * the twin only: the twin wraps the drafting worker's drafter with `withFailureMarker` at start
 * (`decorateDrafters`), and no drafter of the service knows the marker.
 */
export const FAIL_DRAFT_MARKER = '[[fail-draft]]';

export function withFailureMarker(inner: Drafter): Drafter {
  return {
    async draft(input) {
      if ((input.instructions ?? '').includes(FAIL_DRAFT_MARKER)) throw new DraftFailedError('draft failed (test marker)');
      return inner.draft(input);
    },
  };
}
