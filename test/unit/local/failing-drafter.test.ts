import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decoratedDrafter, decorateDrafters, DraftFailedError, type Draft, type DraftInput, type Drafter } from '../../../shared/outreach/drafter.js';
import { FAIL_DRAFT_MARKER, withFailureMarker } from '../../../shared/local/failing-drafter.js';

const input: DraftInput = { contact: { email: 'jane@prospect.example', first_name: 'Jane' }, instructions: 'Say hello', sender: { email: 'rep@acme.test' } };
const draft: Draft = { subject: 's', body_plain: 'b', body_html: '<p>b</p>' };

function recording(): Drafter & { calls: DraftInput[] } {
  const calls: DraftInput[] = [];
  return { calls, draft: async (i) => (calls.push(i), draft) };
}

test("the twin's failure marker fails a draft before the drafter is asked; other instructions pass through", async () => {
  const inner = recording();
  const d = withFailureMarker(inner);
  await expect(d.draft({ ...input, instructions: `Say hello ${FAIL_DRAFT_MARKER}` })).rejects.toBeInstanceOf(DraftFailedError);
  expect(inner.calls).toHaveLength(0);
  expect(await d.draft(input)).toEqual(draft);
  expect(inner.calls).toEqual([input]);
});

test('the drafting worker uses the drafter as built unless a decorator is set (only the twin sets one)', async () => {
  const inner = recording();
  expect(decoratedDrafter(inner)).toBe(inner);
  decorateDrafters(withFailureMarker);
  try {
    await expect(decoratedDrafter(inner).draft({ ...input, instructions: FAIL_DRAFT_MARKER })).rejects.toBeInstanceOf(DraftFailedError);
  } finally {
    decorateDrafters(undefined);
  }
});

test('no production module knows the marker', () => {
  const files = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : []));
  const holders = [...files('shared'), ...files('functions')].filter((f) => !f.startsWith(join('shared', 'local')) && readFileSync(f, 'utf8').includes('fail-draft'));
  expect(holders).toEqual([]);
});
