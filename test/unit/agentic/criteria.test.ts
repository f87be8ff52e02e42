import { CHECK_NAME_MAX, CRITERIA_MAX, CRITERION_TEXT_MAX, capCriteria, parseCriteria } from '../../../shared/understanding/criteria.js';

describe('the built-in criteria engine', () => {
  test('splits persona, required evidence checks and priorities', () => {
    const c = parseCriteria('VP of Engineering at fintech companies that raised a Series B in the last year and are hiring data engineers. Ideally they use Snowflake or spoke at a conference.');
    expect(c.persona.titles).toEqual(['VP of Engineering']);
    expect(c.persona.industries).toEqual(['Financial Services']);
    expect(c.required.map((r) => r.check)).toEqual([
      { kind: 'funding', round: 'Series B', withinDays: 365 },
      { kind: 'hiring', role: 'data engineer' },
    ]);
    expect(c.priorities.map((p) => ('check' in p ? p.check : null))).toEqual([
      { kind: 'tech', tool: 'Snowflake' },
      { kind: 'talk', withinDays: null },
    ]);
  });

  test('exclusions reach the persona; persona priorities are kept as traits', () => {
    const c = parseCriteria('Heads of data in Berlin, not at Acme, hiring analytics engineers. Bonus if they wrote an article. Preferably in companies with 50-500 employees.');
    expect(c.persona.locations).toEqual([{ city: 'Berlin', region: 'Berlin', country: 'DE' }]);
    expect(c.persona.exclusions.companies).toEqual(['acme']);
    expect(c.required.map((r) => r.check)).toEqual([{ kind: 'hiring', role: 'analytics engineer' }]);
    expect(c.priorities).toHaveLength(2);
    expect('check' in c.priorities[0]! && c.priorities[0].check).toEqual({ kind: 'article', withinDays: null });
    expect('persona' in c.priorities[1]! && c.priorities[1].persona.companySize).toEqual({ min: 50, max: 500 });
  });

  test('launches, office openings, leadership changes and windows', () => {
    const checks = parseCriteria('CTOs at companies that launched a product in the last 6 months, opened an office in London and appointed a new CEO recently').required.map((r) => r.check);
    expect(checks).toEqual([
      { kind: 'launch', withinDays: 180 },
      { kind: 'office', city: 'London', withinDays: null },
      { kind: 'leadership', role: 'CEO', withinDays: 180 },
    ]);
  });

  test('a clause that names the persona and then a check is split between them', () => {
    const c = parseCriteria('Heads of sales in London at companies hiring account executives. Bonus if they wrote an article.');
    // "Heads of sales" stands for the sales line from Head of Sales up (docs/search.md "How titles match").
    expect(c.persona.titles).toEqual(['Head of Sales', 'Director of Sales', 'VP of Sales']);
    expect(c.persona.locations).toEqual([{ city: 'London', region: 'England', country: 'GB' }]);
    expect(c.required).toEqual([{ text: 'hiring account executives', check: { kind: 'hiring', role: 'account executive' } }]);
  });

  test('is deterministic', () => {
    const q = 'Data engineers at companies using dbt. Ideally they gave a talk in the past 2 years.';
    expect(parseCriteria(q)).toEqual(parseCriteria(q));
    expect(parseCriteria(q).priorities.map((p) => ('check' in p ? p.check : null))).toEqual([{ kind: 'talk', withinDays: 730 }]);
  });
});

describe('how much of a query becomes work', () => {
  const fill = (unit: string, n = 2000) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

  test('a 2,000-character query of 286 clauses asks for the first 8 checks, not 286', () => {
    const c = parseCriteria(fill('spoke, '));
    expect(c.required).toHaveLength(CRITERIA_MAX.required);
    expect(c.required.every((r) => r.check.kind === 'talk')).toBe(true);
    expect(c.priorities).toEqual([]);
  });

  test('at most 8 required and 8 priorities, the first ones in the query, on a query that asks for many of each', () => {
    const sentence = 'VP of Sales who led a team of 5, hiring engineers, uses Snowflake, spoke at a conference, wrote an article, launched a product, raised a Series B. Ideally they use dbt, spoke at a summit, wrote a blog, are in London. ';
    const c = parseCriteria(fill(sentence));
    const once = parseCriteria(sentence);
    const twice = parseCriteria(sentence.repeat(2));
    expect(c.required).toHaveLength(CRITERIA_MAX.required);
    expect(c.priorities).toHaveLength(CRITERIA_MAX.priorities);
    // The first ones, in order: the whole first sentence's seven, then the first of the next.
    expect(c.required.slice(0, once.required.length)).toEqual(once.required);
    expect(c.required).toEqual(twice.required.slice(0, CRITERIA_MAX.required));
    expect(c.priorities).toEqual(twice.priorities.slice(0, CRITERIA_MAX.priorities));
    expect(c.persona.titles).toEqual(once.persona.titles);
  });

  test('texts and named values are cut to what the language model may give', () => {
    const tool = parseCriteria(`Engineers at companies that use ${'a'.repeat(1900)}`).required[0]!;
    expect(tool.check.kind === 'tech' && tool.check.tool.length).toBeLessThanOrEqual(CHECK_NAME_MAX);
    expect(tool.text.length).toBeLessThanOrEqual(CRITERION_TEXT_MAX);
    const role = parseCriteria(`Heads of data hiring ${'data platform '.repeat(100)}engineers`).required[0]!;
    expect(role.check.kind === 'hiring' && role.check.role.length).toBeLessThanOrEqual(CHECK_NAME_MAX);
    expect(role.check.kind === 'hiring' && role.check.role.startsWith('data platform data platform')).toBe(true);
  });

  test('capping is idempotent and keeps what fits as it is', () => {
    const q = 'VP of Engineering at fintech companies that raised a Series B in the last year and are hiring data engineers. Ideally they use Snowflake or spoke at a conference.';
    const c = parseCriteria(q);
    expect(capCriteria(c)).toEqual(c);
    const big = parseCriteria(fill('Ideally they use Snowflake. uses dbt, '));
    expect(capCriteria(big)).toEqual(big);
  });
});
