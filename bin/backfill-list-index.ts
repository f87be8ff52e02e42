/**
 * `OUTREACH_TABLE_NAME=<table> npx tsx bin/backfill-list-index.ts` (AWS credentials of an operator): gives the
 * API-created emails and sequences written before the outreach table's `list` index their entries, so
 * GET /emails/ and GET /sequences/ list them. Run once after the deploy that adds the index; safe to repeat.
 */
import { backfillListEntries } from '../shared/outreach/list-entries.repository.js';

console.log(JSON.stringify(await backfillListEntries()));
