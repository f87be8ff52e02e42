import { MalformedMessageError, QUEUE_MESSAGES, isSearchJobKind, messages, parseMessage } from '../../../shared/catalog/messages.js';
import { canonicalJson } from '../../../shared/jobs/accept-job.js';

const JOB = 'dj_01jq4y8m2k3n4p5q6r7s8t9v0w';
const ACCT = 'acct_01jq4y8m2k3n4p5q6r7s8t9v0w';
const EMAIL = 'em_01jq4y8m2k3n4p5q6r7s8t9v0w';
const TEST_EMAIL = '3b241101-e2bb-4255-8caf-4136c566a962';

describe('queue message catalogue', () => {
  it('every builder produces a message its queue parses back to the same value', () => {
    const built = [
      ['search', messages.job('people_search', JOB)],
      ['search', messages.job('phone_enrich', JOB)],
      ['search', messages.agenticStep(JOB, 7)],
      ['drafting', messages.draftEmail(ACCT, EMAIL)],
      ['sending', messages.sendEmail(ACCT, EMAIL)],
      ['webhooks', messages.deliverJobEvent(JOB, 3)],
      ['timers', messages.webhookRetry(JOB, 4)],
      ['timers', messages.sendDue(ACCT, EMAIL)],
      ['timers', messages.reviewExpired(ACCT, EMAIL)],
      ['sending', messages.sendTestEmail(ACCT, TEST_EMAIL)],
      ['timers', messages.testEmailTimeout(ACCT, TEST_EMAIL)],
      ['directory-import', messages.directoryChunk('0123456789abcdef', 12)],
      ['directory-import', messages.directoryCleanup('0123456789abcdef', 3, 16)],
      ['directory-import', messages.directoryCleanup('0123456789abcdef', 3, 16, { pk: 'V#0123456789abcdef#url#linkedin.com/in/a', sk: 'P' })],
      ['directory-finalize', messages.directoryFinalize('0123456789abcdef')],
    ] as const;
    for (const [queue, m] of built) expect(parseMessage(queue, JSON.stringify(m))).toEqual(m);
  });

  it('refuses a kind that belongs to another queue, naming the kind', () => {
    expect(() => parseMessage('sending', JSON.stringify(messages.draftEmail(ACCT, EMAIL)))).toThrow(MalformedMessageError);
    try {
      parseMessage('sending', JSON.stringify(messages.draftEmail(ACCT, EMAIL)));
    } catch (e) {
      expect((e as MalformedMessageError).kind).toBe('draft_email');
      expect((e as MalformedMessageError).queue).toBe('sending');
    }
  });

  it.each([
    ['not JSON', 'kind=people_search'],
    ['no kind', JSON.stringify({ job_id: JOB })],
    ['bad id shape', JSON.stringify({ kind: 'people_search', job_id: 'dj_x' })],
    ['unknown field', JSON.stringify({ kind: 'people_search', job_id: JOB, extra: 1 })],
    ['attempt not a positive integer', JSON.stringify({ kind: 'deliver_job_event', job_id: JOB, attempt: 0 })],
    ['null', 'null'],
    ['agentic step without its step', JSON.stringify({ kind: 'agentic_step', job_id: JOB })],
    ['negative agentic step', JSON.stringify({ kind: 'agentic_step', job_id: JOB, step: -1 })],
    ['directory version not hex', JSON.stringify({ kind: 'directory_chunk', version: 'V#x', chunk: 0 })],
  ])('refuses a malformed body: %s', (_what, body) => {
    const queue = body.includes('deliver_job_event') ? 'webhooks' : body.includes('directory_chunk') ? 'directory-import' : 'search';
    expect(() => parseMessage(queue, body)).toThrow(MalformedMessageError);
  });

  it('knows which job tiers run on the search queue', () => {
    expect(isSearchJobKind('people_search')).toBe(true);
    expect(isSearchJobKind('phone_enrich')).toBe(true);
    expect(isSearchJobKind('agentic_search')).toBe(false);
    // An agentic search runs as a chain of steps, never as one job message.
    expect(isSearchJobKind('agentic_step')).toBe(false);
    expect(Object.keys(QUEUE_MESSAGES).sort()).toEqual(['directory-finalize', 'directory-import', 'drafting', 'mail-events', 'search', 'sending', 'timers', 'webhooks']);
  });
});

describe('canonical JSON for idempotency hashes', () => {
  it('is the same for the same body in any key order, at every depth', () => {
    expect(canonicalJson({ b: 1, a: { y: [1, { q: 1, p: 2 }], x: 'z' } })).toBe(canonicalJson({ a: { x: 'z', y: [1, { p: 2, q: 1 }] }, b: 1 }));
  });

  it('keeps nested values, so bodies that differ only inside an object differ', () => {
    expect(canonicalJson({ to: { email: 'a@x.test' } })).not.toBe(canonicalJson({ to: { email: 'b@x.test' } }));
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});
