import { optedOutPeople } from '../privacy/opt-outs.repository.js';
import type { Person } from '../directory/types.js';
import type { ParsedQuery } from '../search-engine/query.js';
import { cursorAfter, type SearchCursor, type SearchEngine, type SearchHit, type SearchOptions } from '../search-engine/search-port.js';

/**
 * The people who opted out (docs/privacy.md) are left out where search results are emitted, after the engine
 * answers, so the in-memory engine and OpenSearch stay identical and an opt-out counts at once, also for a
 * continuation of a search made before it and for candidates shortlisted before it.
 *
 * Which of `people` opted out (by profile URL or work email): a flag each, in order (one BatchGetItem call).
 */
export type OptedOutCheck = (people: readonly Pick<Person, 'professional_url' | 'work_email'>[]) => Promise<boolean[]>;

export const optedOutCheck: OptedOutCheck = (people) => optedOutPeople(people);

/** Engine calls one page may make to fill itself past the people left out. */
export const VISIBLE_PAGE_ROUNDS = 8;

export interface VisiblePage {
  /** Up to `limit` hits nobody opted out of, in rank order. */
  hits: SearchHit[];
  /** Where the page ended: after the last hit it looked at (a left-out one included), or undefined when it looked at none. */
  after: SearchCursor | undefined;
  /** Hits left out because their person opted out. */
  hidden: number;
}

/**
 * One page of a search without the people who opted out: the engine is asked for the page; the hits of opted-out
 * people are dropped (one privacy-table BatchGetItem per engine call), and the engine is asked again after the
 * last hit it gave for as many as were dropped, until the page is full, the engine has no more, or
 * VISIBLE_PAGE_ROUNDS calls were made. `after` continues exactly where the page stopped looking, so a next page
 * neither repeats nor skips anyone.
 */
export async function visiblePage(engine: SearchEngine, q: ParsedQuery, opts: SearchOptions, optedOut: OptedOutCheck = optedOutCheck): Promise<VisiblePage> {
  const limit = Math.max(0, Math.floor(opts.limit));
  const hits: SearchHit[] = [];
  let after = opts.after;
  let looked = false;
  let hidden = 0;
  for (let round = 0; hits.length < limit && round < VISIBLE_PAGE_ROUNDS; round++) {
    const want = limit - hits.length;
    const batch = await engine.search(q, { ...opts, limit: want, ...(after ? { after } : {}) });
    if (!batch.length) break;
    const out = await optedOut(batch.map((h) => h.person));
    batch.forEach((h, i) => (out[i] ? hidden++ : hits.push(h)));
    after = cursorAfter(batch);
    looked = true;
    if (batch.length < want) break;
  }
  return { hits, after: looked ? after : undefined, hidden };
}
