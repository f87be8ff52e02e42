/**
 * `OUTREACH_TABLE_NAME=<table> npx tsx bin/backfill-list-index.ts` (AWS credentials of an operator): gives the
 * API-created emails and sequences written before the outreach table's `list` index their entries, so
 * GET /emails/ and GET /sequences/ list them, and sequence replies theirs, so GET /sequences/{id}/replies/ pages
 * them. Run once after the deploy that adds the index (or the reply entries); safe to repeat.
 */
import { backfillListEntries } from '../shared/outreach/list-entries.repository.js';
import { backfillSequenceReplyEntries } from '../shared/sequences/sequences.repository.js';

console.log(JSON.stringify({ ...(await backfillListEntries()), sequence_replies: await backfillSequenceReplyEntries() }));
