import fc from 'fast-check';
import { ComposerDrafter } from '../../../shared/outreach/composer/composer-drafter.js';
import { analyzeInstructions } from '../../../shared/outreach/composer/instructions.js';
import { DraftFailedError, type DraftInput } from '../../../shared/outreach/drafter.js';
import { FAIL_DRAFT_MARKER } from '../../../shared/local/failing-drafter.js';

const drafter = new ComposerDrafter();

const jane: DraftInput['contact'] = {
  email: 'jane.doe@acme.io',
  first_name: 'Jane',
  last_name: 'Doe',
  company_name: 'Acme',
  job_title: 'Head of Security',
  context: 'Recently raised a $20M Series B and is hiring a compliance lead.',
};
const sam = { email: 'sam@vaultly.io', name: 'Sam Lee' };
const SOC2 = 'Write a short, friendly email introducing our SOC 2 automation platform and ask for a 15-minute call next week.';

function input(overrides: Partial<DraftInput> = {}): DraftInput {
  return { contact: jane, instructions: SOC2, sender: sam, ...overrides };
}

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

describe('ComposerDrafter: determinism and shape', () => {
  it('returns the same draft for the same input', async () => {
    const a = await drafter.draft(input());
    const b = await drafter.draft(structuredClone(input()));
    expect(b).toEqual(a);
  });

  it('gives different recipients different drafts', async () => {
    const a = await drafter.draft(input());
    const b = await drafter.draft(input({ contact: { ...jane, email: 'raj@globex.com', first_name: 'Raj', company_name: 'Globex' } }));
    expect(b.body_plain).not.toEqual(a.body_plain);
    expect(b.body_plain).toContain('Raj');
    expect(b.body_plain).not.toContain('Jane');
  });

  it('greets by first name and signs off with the sender name', async () => {
    const draft = await drafter.draft(input());
    expect(draft.body_plain.split('\n')[0]).toMatch(/^(Hi|Hey|Dear) Jane[,!]$/);
    expect(draft.body_plain.trimEnd().endsWith('\nSam Lee')).toBe(true);
  });

  it('signs off with the local part of the sender email when no name is given', async () => {
    const draft = await drafter.draft(input({ sender: { email: 'alex.kim@costwise.dev' } }));
    expect(draft.body_plain.trimEnd().endsWith('\nalex.kim')).toBe(true);
  });

  it('derives body_html from the plain body as escaped paragraphs', async () => {
    const draft = await drafter.draft(
      input({ contact: { ...jane, company_name: 'Acme <script>alert(1)</script> & Co' } }),
    );
    expect(draft.body_html).not.toContain('<script>');
    expect(draft.body_html).toContain('&lt;script&gt;');
    expect(draft.body_html).toContain('&amp; Co');
    const paragraphs = draft.body_plain.split(/\n\n/).length;
    expect(draft.body_html.match(/<p>/g)?.length).toBe(paragraphs);
  });
});

describe('ComposerDrafter: personalisation', () => {
  it('uses the company, the role and the context', async () => {
    const draft = await drafter.draft(input({ instructions: 'Introduce our SOC 2 automation platform and ask for a call.' }));
    expect(draft.body_plain).toContain('Acme');
    expect(draft.body_plain).toContain('Head of Security');
    expect(draft.body_plain).toContain('Series B');
    expect(draft.body_plain).toMatch(/Congratulations on raising a \$20M Series B/);
    expect(draft.body_plain).toContain('is hiring a compliance lead');
  });

  it('turns third-person context into an opening addressed to the contact', async () => {
    const draft = await drafter.draft(
      input({
        contact: { ...jane, context: 'Spoke at KubeCon about platform engineering. Leads a 40-person infra org.' },
        instructions: 'Introduce our cost analytics service. Be detailed.',
      }),
    );
    expect(draft.body_plain).toContain('speaking with you at KubeCon about platform engineering');
    expect(draft.body_plain).toContain('you lead a 40-person infra org');
  });

  it('mentions the role when there is no context', async () => {
    const draft = await drafter.draft(
      input({ contact: { email: 'li@hooli.com', first_name: 'Li', job_title: 'CTO', company_name: 'Hooli' } }),
    );
    expect(draft.body_plain).toContain('CTO');
    expect(draft.body_plain).toContain('Hooli');
  });

  it('puts the first name or the company in the subject', async () => {
    for (const instructions of [SOC2, 'Write an email.', 'Invite them to our webinar on zero-trust networking.']) {
      const { subject } = await drafter.draft(input({ instructions }));
      expect(subject).toMatch(/Jane|Acme/);
    }
  });
});

describe('ComposerDrafter: following the instructions', () => {
  it('pulls the value proposition out of the instructions', async () => {
    const draft = await drafter.draft(input());
    expect(draft.body_plain).toContain('our SOC 2 automation platform');
    expect(draft.subject).toContain('SOC 2 automation platform');
  });

  it('does not echo the instructions as meta-text', async () => {
    const draft = await drafter.draft(input());
    const all = `${draft.subject}\n${draft.body_plain}`;
    expect(all).not.toContain(SOC2);
    expect(all).not.toMatch(/write a/i);
    expect(all).not.toMatch(/short, friendly email/i);
    expect(all).not.toMatch(/\b(?:email|instructions?|tone)\b/i);
  });

  it('does not copy any instruction sentence that talks about the email itself', async () => {
    const instructions =
      'Please draft a cold email to Jane that explains how we can help their recruiters cut time-to-hire in half. Keep the tone formal. Mention our integration with Greenhouse.';
    const draft = await drafter.draft(input({ instructions }));
    for (const sentence of instructions.split(/(?<=\.)\s+/)) {
      expect(draft.body_plain).not.toContain(sentence.replace(/\.$/, ''));
    }
    expect(draft.body_plain).toContain('how we can help your recruiters cut time-to-hire in half');
    expect(draft.body_plain).toContain('our integration with Greenhouse');
  });

  it('changes greeting, sign-off and wording with the tone', async () => {
    const formal = await drafter.draft(input({ instructions: 'Formal tone. Introduce our SOC 2 automation platform.' }));
    const casual = await drafter.draft(input({ instructions: 'Keep it casual. Introduce our SOC 2 automation platform.' }));
    const direct = await drafter.draft(input({ instructions: 'Be direct. Introduce our SOC 2 automation platform.' }));
    expect(formal.body_plain).toMatch(/^Dear Jane,/);
    expect(formal.body_plain).toContain('Kind regards,');
    expect(formal.body_plain).toContain('I am writing to introduce our SOC 2 automation platform.');
    expect(casual.body_plain).toMatch(/^Hey Jane,/);
    expect(casual.body_plain).toContain('Cheers,');
    expect(direct.body_plain).toContain('Thanks,');
    expect(new Set([formal.body_plain, casual.body_plain, direct.body_plain]).size).toBe(3);
  });

  it('reads negated tone words ("not too formal") as not formal', () => {
    expect(analyzeInstructions('Not too formal. Share our hiring report.').tone).toBe('friendly');
    expect(analyzeInstructions('Be formal. Share our hiring report.').tone).toBe('formal');
  });

  it('writes a shorter email for short instructions than for detailed ones', async () => {
    const base = 'Introduce our cost analytics service, which cuts cloud bills by 20%. Mention that we work with Stripe. Ask for a call.';
    const short = await drafter.draft(input({ instructions: `Keep it short. ${base}` }));
    const detailed = await drafter.draft(input({ instructions: `Be detailed. ${base}` }));
    expect(analyzeInstructions(`Keep it short. ${base}`).length).toBe('short');
    expect(analyzeInstructions(`Be detailed. ${base}`).length).toBe('detailed');
    expect(words(detailed.body_plain)).toBeGreaterThan(words(short.body_plain) + 25);
    expect(detailed.body_plain).toContain('we work with Stripe');
  });

  it('does not take "quick call" as a length instruction', () => {
    expect(analyzeInstructions('Introduce our platform and ask for a quick call.').length).toBe('medium');
  });

  it('shapes the ask: call with duration and timeframe, demo, intro, reply', async () => {
    const call = await drafter.draft(input());
    expect(call.body_plain).toMatch(/a 15-minute call next week\?/);

    const demo = await drafter.draft(input({ instructions: 'Introduce our SOC 2 automation platform and offer a 20 min demo.' }));
    expect(demo.body_plain).toMatch(/a 20-minute demo/);
    expect(demo.body_plain).not.toMatch(/\bcall\b/);

    const intro = await drafter.draft(
      input({ instructions: "Ask who the right person is to talk to about our data retention tooling. Don't ask for a call." }),
    );
    expect(analyzeInstructions("Ask who the right person is. Don't ask for a call.").ask.kind).toBe('intro');
    expect(intro.body_plain).toMatch(/right person/);
    expect(intro.body_plain).not.toMatch(/\bcall\b/);

    const reply = await drafter.draft(input({ instructions: 'Share our 2024 State of Hiring report and ask for their thoughts.' }));
    expect(reply.body_plain).toContain('our 2024 State of Hiring report');
    expect(reply.body_plain).toMatch(/thoughts|reply/);
    expect(new Set([call.body_plain, demo.body_plain, intro.body_plain, reply.body_plain]).size).toBe(4);
  });

  it('reads benefits, points and congratulations from the instructions', () => {
    const profile = analyzeInstructions(
      'Congratulate them on their new funding round. Introduce our sourcing assistant, which finds passive candidates in minutes. Mention that we work with Greenhouse.',
      'Pat',
    );
    expect(profile.congratulate).toBe('your new funding round');
    expect(profile.topic).toEqual({ phrase: 'our sourcing assistant', lead: 'introduce' });
    expect(profile.benefits).toContain('It finds passive candidates in minutes.');
    expect(profile.points).toContainEqual({ phrase: 'We work with Greenhouse.', kind: 'clause' });
  });

  it('invites to an event and asks to save a spot', async () => {
    const draft = await drafter.draft(input({ instructions: 'Invite them to our webinar on zero-trust networking on March 14.' }));
    expect(draft.body_plain).toContain('invite you to our webinar on zero-trust networking on March 14');
    expect(draft.body_plain).toMatch(/save you a spot/);
  });
});

describe('ComposerDrafter: follow-ups', () => {
  it('replies on the previous subject and is shorter than the intro', async () => {
    const intro = await drafter.draft(input({ instructions: SOC2.replace('short, ', '') }));
    const first = await drafter.draft(
      input({ instructions: SOC2.replace('short, ', ''), step: 1, totalSteps: 4, previousSubject: intro.subject }),
    );
    expect(first.subject).toBe(`Re: ${intro.subject}`);
    expect(words(first.body_plain)).toBeLessThan(words(intro.body_plain));
    expect(first.body_plain).toMatch(/follow(?:ing)? up on my (?:note|previous note)/i);
    expect(first.body_plain).toContain('our SOC 2 automation platform');
  });

  it('closes the loop on the last step and never stacks "Re:"', async () => {
    const last = await drafter.draft(input({ step: 3, totalSteps: 4, previousSubject: 'Re: Re: SOC 2 for Acme' }));
    expect(last.subject).toBe('Re: SOC 2 for Acme');
    expect(last.body_plain).toMatch(/haven't heard back/);
    expect(last.body_plain).toMatch(/^Hi Jane!/);
  });

  it('makes each step different', async () => {
    const drafts = await Promise.all([1, 2, 3].map((step) => drafter.draft(input({ step, totalSteps: 4 }))));
    expect(new Set(drafts.map((d) => d.body_plain)).size).toBe(3);
    for (const d of drafts) expect(d.subject.startsWith('Re: ')).toBe(true);
  });

  it('keeps a Re: subject within 80 characters', async () => {
    const previousSubject = `A very long subject line ${'about compliance automation '.repeat(4)}`.trim();
    const draft = await drafter.draft(input({ step: 1, previousSubject }));
    expect(draft.subject.length).toBeLessThanOrEqual(80);
    expect(draft.subject.startsWith('Re: A very long subject line')).toBe(true);
  });
});

describe('ComposerDrafter: failures', () => {
  it.each([
    ['empty instructions', ''],
    ['whitespace instructions', '   \n\t '],
  ])('rejects %s with DraftFailedError', async (_label, instructions) => {
    await expect(drafter.draft(input({ instructions }))).rejects.toBeInstanceOf(DraftFailedError);
  });

  it("knows no test marker: the twin's failure marker is ordinary text to the drafter", async () => {
    const draft = await drafter.draft(input({ instructions: `Introduce our platform ${FAIL_DRAFT_MARKER}` }));
    expect(draft.subject.length).toBeGreaterThan(0);
  });

  it('rejects a blank first name', async () => {
    await expect(drafter.draft(input({ contact: { ...jane, first_name: '  ' } }))).rejects.toThrow(DraftFailedError);
  });
});

describe('ComposerDrafter: properties', () => {
  const text = (max: number) => fc.string({ maxLength: max, unit: 'grapheme-ascii' });
  const contact = fc.record({
    email: fc.emailAddress(),
    first_name: text(30).filter((s) => s.trim() !== ''),
    company_name: fc.option(text(120), { nil: undefined }),
    job_title: fc.option(text(80), { nil: undefined }),
    context: fc.option(text(300), { nil: undefined }),
  });
  const instructions = fc.oneof(
    text(400).filter((s) => s.trim() !== ''),
    fc.constantFrom(SOC2, 'Introduce our ' + 'very '.repeat(40) + 'long product name and ask for a demo.'),
  );

  it('always produces a personalised subject of at most 80 characters and a greeting by name', async () => {
    await fc.assert(
      fc.asyncProperty(contact, instructions, fc.integer({ min: 0, max: 3 }), async (c, ins, step) => {
        const draft = await drafter.draft({ contact: c, instructions: ins, sender: sam, step, totalSteps: 4 });
        expect(draft.subject.length).toBeGreaterThan(0);
        expect(draft.subject.length).toBeLessThanOrEqual(80);
        expect(draft.subject).not.toMatch(/[\r\n]/);
        const first = draft.body_plain.split('\n')[0]!;
        expect(first).toMatch(/^(Hi|Hey|Dear) /);
        expect(draft.body_html).not.toMatch(/<(?!\/?p>|br>)/);
      }),
      { numRuns: 200 },
    );
  });
});
