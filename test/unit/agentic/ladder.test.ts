/**
 * The broadening ladder: its fixed order, what each rung widens (titles, seniority, place) and what it
 * never does (industry, size, companies, words, exclusions), and, on a real index over a small seeded
 * directory, that the rungs' shortlists are disjoint and together hold everyone the ladder describes.
 * Expectations are derived from the directory itself, never from the generator's exact counts.
 */
import { generateDirectory } from '../../../shared/directory/generate.js';
import type { DirectoryRecord, Person } from '../../../shared/directory/types.js';
import { inRung, isNewAt, ladderOf, metroNeighbours, RUNGS, type Rung } from '../../../shared/agentic/ladder.js';
import { AGENTIC_LIMITS, rungShortlist } from '../../../shared/agentic/research-step.js';
import { parseQuery } from '../../../shared/search-engine/query.js';
import { PeopleIndex } from '../../../shared/search-engine/search-engine.js';

const names = (l: Rung[]) => l.map((r) => r.rung);
const hard = (r: Rung) => {
  const { industries, companySize, companies, keywords, exclusions, functions } = r.persona;
  return { industries, companySize, companies, keywords, exclusions, functions };
};

describe('the broadening ladder', () => {
  test('rungs come in the documented order, each widening one thing', () => {
    const ladder = ladderOf(parseQuery('CTOs of fintech startups in London'));
    expect(names(ladder)).toEqual(['exact', 'equivalent_title', 'adjacent_seniority', 'same_metro', 'region']);
    expect(names(ladder)).toEqual(RUNGS.filter((r) => names(ladder).includes(r)));
    const [exact, equivalent, adjacent, metro, region] = ladder as [Rung, Rung, Rung, Rung, Rung];
    expect(exact).toMatchObject({ relaxes: 'none', added: [] });
    expect(exact.persona.titles).toEqual(['Chief Technology Officer']);
    // The same buyer under other names: the function's leadership.
    expect(equivalent.relaxes).toBe('title');
    expect(equivalent.persona.titles).toEqual(expect.arrayContaining(['Chief Technology Officer', 'VP of Engineering', 'Head of Engineering', 'Director of Engineering']));
    expect(adjacent.relaxes).toBe('seniority');
    expect(adjacent.added).toContain('Engineering Manager');
    expect(adjacent.persona.titles).toEqual(expect.arrayContaining(equivalent.persona.titles));
    // Place rungs search the asked role and its equivalents, not the adjacent seniority.
    for (const r of [metro, region]) {
      expect(r.relaxes).toBe('place');
      expect(r.persona.titles).toEqual(equivalent.persona.titles);
    }
    expect(metro.persona.locations[0]).toEqual({ city: 'London', region: 'England', country: 'GB' });
    expect(metro.persona.locations.length).toBeGreaterThan(1);
    expect(metro.persona.locations.every((p) => p.country === 'GB' && p.city)).toBe(true);
    expect(region.persona.locations).toContainEqual({ region: 'England', country: 'GB' });
    expect(region.added).toEqual(['England, GB']);
  });

  test('the VP of Sales stands for the sales leadership, then the managers below it', () => {
    const ladder = ladderOf(parseQuery('VP of Sales at software companies in Germany'));
    expect(names(ladder)).toEqual(['exact', 'equivalent_title', 'adjacent_seniority']);
    expect(ladder[1]!.added).toEqual(expect.arrayContaining(['Head of Sales', 'Director of Sales', 'Chief Revenue Officer']));
    expect(ladder[2]!.added).toEqual(['Sales Manager']);
    // A country asked for is never widened across its border.
    for (const r of ladder) expect(r.persona.locations).toEqual([{ country: 'DE' }]);
  });

  test('hard constraints: industry, size, companies, words and every exclusion stay as asked on every rung; only place rungs move the place', () => {
    for (const q of [
      'CTOs of fintech startups in London, not at Acme, excluding agencies',
      'Heads of sales in Berlin at software companies with 50-500 employees, no CRO',
      'Finance directors in Toronto, not in retail',
      'sales leaders in San Francisco',
    ]) {
      const ladder = ladderOf(parseQuery(q));
      const exact = ladder[0]!;
      for (const r of ladder) {
        expect(hard(r)).toEqual(hard(exact));
        if (r.relaxes === 'place') expect(r.persona.locations).not.toEqual(exact.persona.locations);
        else expect(r.persona.locations).toEqual(exact.persona.locations);
        // An excluded title is never brought back by a wider rung.
        for (const t of exact.persona.exclusions.titles) expect(r.persona.titles).not.toContain(t);
      }
    }
    const noCro = ladderOf(parseQuery('Heads of sales in Berlin, no CRO'));
    expect(noCro[0]!.persona.exclusions.titles).toEqual(['Chief Revenue Officer']);
  });

  test('nothing to widen, no rung: an empty persona, an individual role with nothing around it, a place with no metro', () => {
    expect(names(ladderOf(parseQuery('people who spoke at a conference')))).toEqual(['exact']);
    expect(names(ladderOf(parseQuery('people at Acme')))).toEqual(['exact']);
    expect(metroNeighbours({ country: 'DE' })).toEqual([]);
    // By seniority alone: the neighbouring seniority.
    const leaders = ladderOf(parseQuery('sales leaders in Berlin'));
    expect(leaders.find((r) => r.rung === 'adjacent_seniority')?.added).toEqual(['manager']);
  });

  test('is deterministic', () => {
    const q = 'Engineering managers in San Francisco at software companies';
    expect(JSON.stringify(ladderOf(parseQuery(q)))).toBe(JSON.stringify(ladderOf(parseQuery(q))));
  });
});

describe('rung shortlists on a real index', () => {
  const records: DirectoryRecord[] = [...generateDirectory({ seed: 23, people: 3000 })];
  const people = records.filter((r): r is Person => r.type === 'person');
  const index = PeopleIndex.build(records);

  test.each(['VP of Sales in the United States', 'Software engineers in San Francisco', 'Marketing directors in London'])('%s: disjoint rungs that together hold everyone the ladder describes', async (q) => {
    const ladder = ladderOf(parseQuery(q));
    expect(ladder.length).toBeGreaterThan(1);
    const lists: string[][] = [];
    for (let k = 0; k < ladder.length; k++) lists.push(await rungShortlist(index, ladder, k));
    // Rung 0 is exactly what the persona's own search gives.
    expect(lists[0]).toEqual((await index.search(ladder[0]!.persona, { limit: AGENTIC_LIMITS.SHORTLIST_MAX })).map((h) => h.person.id));
    const all = lists.flat();
    expect(new Set(all).size).toBe(all.length);
    const byId = new Map(people.map((p) => [p.id, p]));
    lists.forEach((ids, k) => {
      for (const id of ids) {
        expect(inRung(ladder[k]!, byId.get(id)!)).toBe(true);
        expect(isNewAt(ladder, k, byId.get(id)!)).toBe(true);
      }
    });
    // Below the per-rung cap, the rungs together are everyone any rung describes (brute force over the directory).
    if (lists.every((l) => l.length < AGENTIC_LIMITS.SHORTLIST_MAX)) {
      const expected = people.filter((p) => ladder.some((r) => inRung(r, p))).map((p) => p.id);
      expect(new Set(all)).toEqual(new Set(expected));
    }
    expect(all.length).toBeGreaterThan(lists[0]!.length);
  });
});
