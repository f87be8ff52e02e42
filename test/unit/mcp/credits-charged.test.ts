import { creditsCharged } from '../../../shared/mcp/server.js';

const completed = (result: Record<string, unknown>) => ({ status: 'completed', result });

describe('credits charged, as the MCP tools report it from the billing rules', () => {
  test('people search: one credit per lead returned; zero leads cost nothing', () => {
    expect(creditsCharged('people_search', completed({ total_returned: 37 }), {})).toBe(37);
    expect(creditsCharged('people_search', completed({ total_returned: 0 }), {})).toBe(0);
  });

  test('deep search: the price of the requested mode, and open when the mode is not known', () => {
    expect(creditsCharged('deep_search', completed({ total_returned: 3 }), { query: 'q' })).toBe(200);
    expect(creditsCharged('deep_search', completed({ total_returned: 3 }), { query: 'q', mode: 'extended' })).toBe(400);
    expect(creditsCharged('deep_search', completed({ total_returned: 3 }))).toBeNull();
  });

  test('phone: 50 on a hit, nothing on a miss', () => {
    expect(creditsCharged('phone_enrich', completed({ phone: '+14155550100' }))).toBe(50);
    expect(creditsCharged('phone_enrich', completed({ phone: null }))).toBe(0);
  });

  test('agentic search: base plus each lead; no lead leaves 0 or 100 open', () => {
    expect(creditsCharged('agentic_search', completed({ total_returned: 20 }), { max_credits: 300 })).toBe(300);
    expect(creditsCharged('agentic_search', completed({ total_returned: 1 }))).toBe(110);
    expect(creditsCharged('agentic_search', completed({ total_returned: 0, partial: true, completion_reason: 'user_cancelled' }))).toBeNull();
  });

  test('failed and cancelled jobs are never charged', () => {
    for (const status of ['failed', 'cancelled']) {
      expect(creditsCharged('people_search', { status, result: null }, {})).toBe(0);
      expect(creditsCharged('deep_search', { status, result: null })).toBe(0);
      expect(creditsCharged('agentic_search', { status, result: null })).toBe(0);
    }
  });
});
