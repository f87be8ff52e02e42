import { copyAddresses, planMessages } from '../../../shared/outreach/copies.js';

const email = (cc: string[], bcc: string[]) => ({ to: { email: 'jane@acme.io', name: 'Jane Doe' }, cc, bcc });
const JANE = { email: 'jane@acme.io', name: 'Jane Doe' };

describe('planMessages', () => {
  test('envelope engines: every message shows To the lead and the CC; each goes only to its own recipients; only the lead’s is tracked, shared with nobody', () => {
    const plan = planMessages(email(['boss@acme.io'], ['crm@seller.io', 'ops@seller.io']), true);
    expect(plan.map((m) => [m.key, m.deliver, m.tracked, m.sharedWith])).toEqual([
      ['lead', { to: ['jane@acme.io'], cc: [], bcc: [] }, true, []],
      ['cc', { to: [], cc: ['boss@acme.io'], bcc: [] }, false, []],
      ['bcc0', { to: [], cc: [], bcc: ['crm@seller.io'] }, false, []],
      ['bcc1', { to: [], cc: [], bcc: ['ops@seller.io'] }, false, []],
    ]);
    for (const m of plan) expect([m.to, m.cc]).toEqual([[JANE], ['boss@acme.io']]);
  });

  test('header engines (Gmail, Graph): the lead’s message shows and reaches the lead and the CC, shared with the CC; no CC copy; each BCC gets a copy showing only themself', () => {
    const plan = planMessages(email(['boss@acme.io', 'cfo@acme.io'], ['crm@seller.io', 'ops@seller.io']), false);
    // What a message shows is exactly whom it is delivered to: the provider delivers to the headers.
    for (const m of plan) expect([...m.to.map((a) => a.email), ...m.cc]).toEqual([...m.deliver.to, ...m.deliver.cc]);
    expect(plan.map((m) => [m.key, m.to, m.cc, m.deliver, m.tracked, m.sharedWith])).toEqual([
      ['lead', [JANE], ['boss@acme.io', 'cfo@acme.io'], { to: ['jane@acme.io'], cc: ['boss@acme.io', 'cfo@acme.io'], bcc: [] }, true, ['boss@acme.io', 'cfo@acme.io']],
      ['bcc0', [{ email: 'crm@seller.io' }], [], { to: ['crm@seller.io'], cc: [], bcc: [] }, false, []],
      ['bcc1', [{ email: 'ops@seller.io' }], [], { to: ['ops@seller.io'], cc: [], bcc: [] }, false, []],
    ]);
    // No message names a BCC but the BCC's own.
    for (const m of plan.filter((x) => x.key !== 'bcc0')) expect(JSON.stringify(m)).not.toContain('crm@seller.io');
  });

  test('header engines without CC: the lead’s message is the lead’s alone (one-click stays)', () => {
    const plan = planMessages(email([], ['crm@seller.io']), false);
    expect(plan[0]).toMatchObject({ key: 'lead', cc: [], deliver: { to: ['jane@acme.io'], cc: [], bcc: [] }, sharedWith: [] });
  });

  test('an address listed twice, or that is the lead or already on CC, gets one message as what it is first', () => {
    const listed = email(['JANE@acme.io', 'boss@acme.io', 'Boss@acme.io'], ['boss@acme.io', 'crm@seller.io', 'CRM@seller.io', 'jane@acme.io']);
    expect(planMessages(listed, true).map((m) => [m.key, [...m.deliver.to, ...m.deliver.cc, ...m.deliver.bcc]])).toEqual([
      ['lead', ['jane@acme.io']],
      ['cc', ['boss@acme.io']],
      ['bcc0', ['crm@seller.io']],
    ]);
    expect(planMessages(listed, false).map((m) => [m.key, [...m.deliver.to, ...m.deliver.cc, ...m.deliver.bcc]])).toEqual([
      ['lead', ['jane@acme.io', 'boss@acme.io']],
      ['bcc0', ['crm@seller.io']],
    ]);
    expect(copyAddresses(listed)).toEqual(['boss@acme.io', 'crm@seller.io']);
  });

  test('a suppressed CC or BCC gets nothing and is shown nowhere; a BCC copy keeps its key whatever is suppressed', () => {
    const e = email(['boss@acme.io', 'gone@acme.io'], ['left@seller.io', 'crm@seller.io']);
    const suppressed = (a: string) => ['GONE@acme.io', 'left@seller.io'].map((x) => x.toLowerCase()).includes(a.toLowerCase());
    for (const envelope of [true, false]) {
      const plan = planMessages(e, envelope, suppressed);
      expect(JSON.stringify(plan)).not.toMatch(/gone@acme\.io|left@seller\.io/);
      expect(plan.map((m) => m.key)).toEqual(envelope ? ['lead', 'cc', 'bcc1'] : ['lead', 'bcc1']);
      expect(plan[0]!.cc).toEqual(['boss@acme.io']);
    }
    expect(planMessages(e, false, suppressed)[0]!.sharedWith).toEqual(['boss@acme.io']);
    // Every CC suppressed: no CC copy on envelope engines, a lead's message shared with nobody on header engines.
    const none = planMessages(email(['boss@acme.io'], []), false, () => true);
    expect(none.map((m) => [m.key, m.cc, m.sharedWith])).toEqual([['lead', [], []]]);
    expect(planMessages(email(['boss@acme.io'], []), true, () => true).map((m) => m.key)).toEqual(['lead']);
  });

  test('no CC or BCC: the lead’s message alone', () => {
    expect(planMessages(email([], []), false)).toHaveLength(1);
    expect(planMessages(email([], []), true)).toHaveLength(1);
  });
});
