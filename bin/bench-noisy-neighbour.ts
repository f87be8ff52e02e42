/**
 * `npx tsx bin/bench-noisy-neighbour.ts [--rounds 16] [--blocks 4] [--interval-ms 1100] [--pressure 2] [--parts reads,replies,checks,writes,agentic]`:
 * issue 42's noisy neighbour on the twin (test/support/noisy-neighbour.ts): tenant B's ordinary workload alone
 * and while tenant A drives every route it can reach (or only `--parts` of them) at `--pressure` times its
 * budgets, the two phases alternating in `--blocks` blocks; B's p50 / p95 in each phase and the ratio, A's answers by route, and the physical reference of the
 * same run: sequential raw GetItem on the same DynamoDB Local, before either tenant runs. B's "alone" phase is
 * the other reference. Prints a readable report, then one JSON line last.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../shared/adapters/aws.js';
import { accountsKeys } from '../shared/accounts/accounts.keys.js';
import { tableName } from '../shared/catalog/resource-names.js';
import { ALL_NOISE, measureNoisyNeighbour, percentile, startNoisyWorld, type NoisePart, type PhaseResult } from '../test/support/noisy-neighbour.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '16' }, blocks: { type: 'string', default: '4' }, 'interval-ms': { type: 'string', default: '1100' }, pressure: { type: 'string', default: '2' }, people: { type: 'string', default: '1000' }, parts: { type: 'string', default: ALL_NOISE.join(',') } } });
const parts = values.parts.split(',').filter((p): p is NoisePart => (ALL_NOISE as readonly string[]).includes(p));
const loadBefore = loadavg().map((l) => Number(l.toFixed(2)));
const world = await startNoisyWorld({ people: Number(values.people) });
try {
  // Physical reference, before any tenant runs: one GetItem of B's account item at a time, the same DynamoDB Local.
  const getMs: number[] = [];
  const client = documentClient();
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    await client.send(new GetCommand({ TableName: tableName('accounts'), Key: accountsKeys.account(world.b.accountId) }));
    getMs.push(performance.now() - t);
  }
  const m = await measureNoisyNeighbour(world, { rounds: Number(values.rounds), blocks: Number(values.blocks), intervalMs: Number(values['interval-ms']), pressure: Number(values.pressure), parts });

  const phase = (p: PhaseResult) => ({
    rounds: p.rounds,
    samples: p.samples.length,
    failures: p.failures.length,
    cut: p.cut.length,
    p50_ms: p.p50,
    p95_ms: p.p95,
    search_turnaround_p50_ms: p.searchTurnaroundMs.length ? percentile(p.searchTurnaroundMs, 0.5) : null,
  });
  const statuses = (s: { byStatus: Record<string, number> }) => Object.entries(s.byStatus).map(([k, v]) => `${k}×${v}`).join(' ');
  const summary = {
    at: new Date().toISOString(),
    machine: { cores: cpus().length, load_before: loadBefore, load_after: loadavg().map((l) => Number(l.toFixed(2))) },
    rounds: Number(values.rounds),
    blocks: m.blocks,
    interval_ms: Number(values['interval-ms']),
    pressure: Number(values.pressure),
    parts,
    b_alone: phase(m.alone),
    b_noisy: phase(m.noisy),
    ratio_p95: m.ratio,
    a: { by_route: m.a.byRoute, skipped: m.a.skipped, over_budget_checks: m.a.overBudgetChecks, keys: m.a.keys, agentic_accepted: m.a.agenticAccepted.length, hostile_pages_read: m.hostilePagesRead },
    reference: { get_item_p50_ms: Number(percentile(getMs, 0.5).toFixed(2)), get_item_p95_ms: Number(percentile(getMs, 0.95).toFixed(2)) },
  };
  console.log(`noisy neighbour: ${summary.rounds} rounds of B every ${summary.interval_ms} ms alone and as many beside A at ${summary.pressure}× its budgets (${parts.join(', ')}), in ${m.blocks.length} blocks`);
  for (const [k, b] of m.blocks.entries()) console.log(`  block ${k + 1} (${b.order.join(' → ')}): p95 alone ${b.aloneP95} ms, beside A ${b.noisyP95} ms${b.settled ? '' : ' (the twin had not settled after A)'}`);
  const line = (x: ReturnType<typeof phase>) => `${x.rounds} rounds, ${x.samples} calls, ${x.failures} failed, ${x.cut} cut by the phase's end, p50 ${x.p50_ms} ms, p95 ${x.p95_ms} ms, search accept → completed p50 ${x.search_turnaround_p50_ms} ms`;
  console.log(`  B alone: ${line(summary.b_alone)}`);
  console.log(`  B noisy: ${line(summary.b_noisy)} (p95 ratio ${summary.ratio_p95}, target ≤ 2)`);
  for (const f of m.noisy.failures.concat(m.alone.failures).slice(0, 10)) console.log(`  B failure: ${f.route} ${f.problem}`);
  for (const [route, c] of Object.entries(m.a.byRoute)) console.log(`  A ${route}: ${c.sent} sent, ${statuses(c)}`);
  console.log(`  A: ${m.a.skipped} ticks skipped (32 of its calls unanswered), ${m.a.overBudgetChecks} contact checks past its lookup budget, ${m.a.keys} keys, ${m.a.agenticAccepted.length} agentic searches accepted, ${m.hostilePagesRead} hostile pages read`);
  console.log(`  reference (sequential raw GetItem before the run, same DynamoDB Local): p50 ${summary.reference.get_item_p50_ms} ms, p95 ${summary.reference.get_item_p95_ms} ms`);
  console.log(JSON.stringify(summary));
} finally {
  await world.stop();
}
process.exit(0);
