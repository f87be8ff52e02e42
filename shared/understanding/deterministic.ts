import { parseQuery } from '../search-engine/query.js';
import { parseCriteria } from './criteria.js';
import { findProof } from './evaluate.js';
import type { Understanding } from './port.js';

/** The built-in engine: the gazetteer parser, the clause patterns and the evidence patterns. No model, no I/O. */
export const deterministicUnderstanding: Understanding = {
  parseQuery: async (text) => parseQuery(text),
  parseCriteria: async (query) => parseCriteria(query),
  judgeEvidence: async (check, blocks, today) => findProof(check, blocks, today),
};
