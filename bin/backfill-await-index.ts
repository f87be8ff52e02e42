/**
 * `OUTREACH_TABLE_NAME=<table> npx tsx bin/backfill-await-index.ts` (AWS credentials of an operator): gives the
 * emails parked awaiting sending capacity before the outreach table's `await` index their entries, so raising
 * their sending account's daily limit wakes them. Run once after the deploy that adds the index; safe to repeat.
 */
import { backfillAwaitEntries } from '../shared/outreach/emails.repository.js';

console.log(JSON.stringify({ awaiting_capacity: await backfillAwaitEntries() }));
