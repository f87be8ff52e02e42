import { parseCriteria } from '../../../shared/understanding/criteria.js';

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
