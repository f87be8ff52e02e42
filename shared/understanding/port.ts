/**
 * The understanding port: reading a people query, reading an agentic query into criteria, and judging whether
 * a page proves an evidence check. Two implementations: the deterministic engine (./deterministic.ts, the
 * default everywhere and the oracle of the tests) and a language model behind its guards
 * (./model-understanding.ts over a `LanguageModel`, whose one adapter is shared/adapters/bedrock-language-model.ts).
 * Domain code asks `understanding()` (./understanding.ts) and never names an SDK.
 */
import type { ParsedQuery } from '../search-engine/query.js';
import type { Criteria, EvidenceCheck } from './criteria.js';
import type { Block } from './evaluate.js';

export type { LanguageModel, ToolRequest } from '../ports/language-model.js';

export interface Understanding {
  /** A plain-language people query → the constraints the search engines take. */
  parseQuery(text: string): Promise<ParsedQuery>;
  /** An agentic query → the persona to shortlist, the required evidence checks and the priorities. */
  parseCriteria(query: string): Promise<Criteria>;
  /** The block of a page (as `blocksOf` cut it) that satisfies the check, or null: only ever one of `blocks`. */
  judgeEvidence(check: EvidenceCheck, blocks: Block[], today: Date): Promise<Block | null>;
}
