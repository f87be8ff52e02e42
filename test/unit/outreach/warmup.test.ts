import { addDays, assess, emptyCounts, engagementOn, rampLimit, WARMUP_RAMP, type DayCounts } from '../../../shared/outreach/warmup.js';

const START = '2026-11-02T10:00:00.000Z';
const day = (n: number) => addDays('2026-11-02', n);
const record = (entries: Record<string, Partial<DayCounts>>) => new Map(Object.entries(entries).map(([d, c]) => [d, { ...emptyCounts(), ...c }]));
const on = (n: number, counts = record({}), configured = 10_000, storedHealth = 'healthy') => assess({ configured, warmupStartedAt: START, storedHealth, day: day(n), counts });

describe('warm-up ramp', () => {
  test('starts at 20 and grows a step each healthy day, per the documented table, then +20% a day', () => {
    expect([0, 1, 2, 6, 7, 13, 14, 27].map(rampLimit)).toEqual([20, 25, 30, 50, 60, 120, 140, 540]);
    expect(rampLimit(28)).toBe(648);
    expect(WARMUP_RAMP).toHaveLength(28);
    expect([0, 1, 9].map((n) => on(n).daily_limit)).toEqual([20, 25, 80]);
    expect(on(0)).toMatchObject({ health: 'warming_up', configured_daily_limit: 10_000, warmup: { day: 1, ramp_limit: 20, complete: false, started_at: START } });
  });

  test('never above the configured limit; once the ramp reaches it the account is healthy and the warm-up complete', () => {
    expect(on(0, record({}), 7)).toMatchObject({ daily_limit: 7, health: 'healthy', warmup: { ramp_limit: null, complete: true } });
    expect(on(6, record({}), 50)).toMatchObject({ daily_limit: 50, health: 'healthy', warmup: { day: 7, complete: true } });
    expect(on(5, record({}), 50)).toMatchObject({ daily_limit: 45, health: 'warming_up' });
  });

  test('a stored health that names something to fix stays the health; the limit is computed all the same', () => {
    expect(on(0, record({}), 50, 'reauth_required')).toMatchObject({ daily_limit: 20, health: 'reauth_required' });
  });

  test('a warm-up started over 120 days ago is complete', () => {
    expect(on(121)).toMatchObject({ daily_limit: 10_000, health: 'healthy', warmup: { complete: true, ramp_limit: null } });
  });
});

describe('engagement throttle', () => {
  test('hard bounces above 5% of the window (at least 20 sends) halve the limit; one bounce in 20 does not', () => {
    expect(on(1, record({ [day(0)]: { sent: 20, bounced_hard: 1 } })).health).toBe('warming_up');
    const throttled = on(1, record({ [day(0)]: { sent: 20, bounced_hard: 2 } }));
    expect(throttled).toMatchObject({ health: 'throttled_bounces', daily_limit: 10, engagement: { sent: 20, bounced_hard: 2, bounce_rate: 0.1 } });
    // Fewer than 20 sends still count as 20: two bounces in 5 sends are 10%, not 40%.
    expect(engagementOn(day(0), record({ [day(0)]: { sent: 5, bounced_hard: 2 } })).bounce_rate).toBe(0.1);
  });

  test('two complaints above 0.3% pause sending; one complaint does not', () => {
    expect(on(1, record({ [day(0)]: { sent: 20, complained: 1 } })).health).toBe('warming_up');
    expect(on(1, record({ [day(0)]: { sent: 20, complained: 2, bounced_hard: 5 } }))).toMatchObject({ health: 'paused_complaints', daily_limit: 0 });
    // 2 complaints over 1,000 sends is 0.2%: under Gmail's 0.3%.
    expect(on(40, record({ [day(39)]: { sent: 1000, complained: 2 } })).health).not.toBe('paused_complaints');
  });

  test('recovery: the window moves on after 7 days, and days throttled or paused do not advance the ramp', () => {
    const counts = record({ [day(0)]: { sent: 20, complained: 2 } });
    expect(on(6, counts).daily_limit).toBe(0);
    const resumed = on(7, counts);
    // Days 0 to 6 were paused (their windows held day 0's complaints): none of them advanced the ramp.
    expect(resumed).toMatchObject({ health: 'warming_up', daily_limit: 20, warmup: { day: 1 } });
    expect(on(8, counts).daily_limit).toBe(25);
  });
});
