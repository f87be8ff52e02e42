import fc from 'fast-check';
import { ValidationError } from '../../../shared/core/errors.js';
import {
  FOLLOW_UP_DAYS,
  NoSendCapacityError,
  allocateSlot,
  bestSendTime,
  followUpTime,
  fromZoned,
  localDay,
  nextSlotNow,
  spreadMinutes,
  zonedParts,
  type ZonedParts,
} from '../../../shared/outreach/send-time.js';
import { timeZoneForLocation } from '../../../shared/outreach/country-zone.js';

const ZONES = [
  'America/New_York',
  'Europe/Berlin',
  'Asia/Tokyo',
  'Australia/Sydney',
  'America/Los_Angeles',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'America/St_Johns',
  'Pacific/Auckland',
  'UTC',
];
const zone = fc.constantFrom(...ZONES);
const instant = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2037-12-31T00:00:00Z'), noInvalidDate: true });
const seed = fc.string({ maxLength: 40 });

function local(date: Date, tz: string) {
  const p = zonedParts(date, tz);
  return { ...p, minuteOfDay: p.hour * 60 + p.minute };
}

/** Seed whose spread lands on `minutes` past 09:00, found by scanning (deterministic). */
function seedFor(predicate: (spread: number) => boolean): string {
  for (let i = 0; i < 10_000; i += 1) if (predicate(spreadMinutes(`s${i}`))) return `s${i}`;
  throw new Error('no seed');
}

describe('zoned time helpers', () => {
  it('resolves wall times across DST correctly', () => {
    expect(fromZoned(2024, 1, 15, 9, 0, 'America/New_York').toISOString()).toBe('2024-01-15T14:00:00.000Z');
    expect(fromZoned(2024, 7, 15, 9, 0, 'America/New_York').toISOString()).toBe('2024-07-15T13:00:00.000Z');
    expect(fromZoned(2024, 4, 1, 9, 0, 'Europe/Berlin').toISOString()).toBe('2024-04-01T07:00:00.000Z');
    expect(fromZoned(2024, 10, 7, 9, 0, 'Australia/Sydney').toISOString()).toBe('2024-10-06T22:00:00.000Z');
    expect(fromZoned(2024, 6, 3, 9, 30, 'Asia/Kathmandu').toISOString()).toBe('2024-06-03T03:45:00.000Z');
  });

  it('moves a time inside a DST gap forward and picks the earlier of an ambiguous pair', () => {
    expect(fromZoned(2024, 3, 10, 2, 30, 'America/New_York').toISOString()).toBe('2024-03-10T07:30:00.000Z');
    expect(fromZoned(2024, 11, 3, 1, 30, 'America/New_York').toISOString()).toBe('2024-11-03T05:30:00.000Z');
  });

  it('round-trips wall times (property)', () => {
    fc.assert(
      fc.property(instant, zone, (date, tz) => {
        const p = zonedParts(date, tz);
        const back = fromZoned(p.year, p.month, p.day, p.hour, p.minute, tz);
        const q = zonedParts(back, tz);
        expect([q.year, q.month, q.day, q.hour, q.minute]).toEqual([p.year, p.month, p.day, p.hour, p.minute]);
        expect(localDay(date, tz)).toBe(
          `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('reports local days per zone', () => {
    const at = new Date('2024-05-06T23:30:00Z');
    expect(localDay(at, 'UTC')).toBe('2024-05-06');
    expect(localDay(at, 'Asia/Tokyo')).toBe('2024-05-07');
    expect(localDay(at, 'America/Los_Angeles')).toBe('2024-05-06');
  });

  it('rejects an unknown time zone', () => {
    expect(() => localDay(new Date(), 'Mars/Olympus_Mons')).toThrow(ValidationError);
  });
});

describe('bestSendTime', () => {
  it('is a weekday between 09:00 and 11:00 local, never in the past, within four days (property)', () => {
    fc.assert(
      fc.property(instant, zone, seed, (now, tz, s) => {
        const at = bestSendTime({ now, timeZone: tz, seed: s });
        const l = local(at, tz);
        expect(at.getTime()).toBeGreaterThanOrEqual(now.getTime());
        expect(at.getTime() - now.getTime()).toBeLessThan(4 * 86_400_000);
        expect(l.weekday).toBeGreaterThanOrEqual(1);
        expect(l.weekday).toBeLessThanOrEqual(5);
        expect(l.minuteOfDay).toBeGreaterThanOrEqual(9 * 60);
        expect(l.minuteOfDay).toBeLessThan(11 * 60);
        expect(l.minuteOfDay - 9 * 60).toBe(spreadMinutes(s));
        expect(bestSendTime({ now, timeZone: tz, seed: s })).toEqual(at);
      }),
      { numRuns: 1000 },
    );
  });

  it.each(['America/New_York', 'Europe/Berlin', 'Asia/Tokyo', 'Australia/Sydney'])(
    'uses today in %s when it is a weekday and the chosen minute is still ahead',
    (tz) => {
      const s = seedFor((spread) => spread >= 30);
      const now = fromZoned(2024, 5, 7, 9, 10, tz); // Tuesday 09:10 local
      const at = bestSendTime({ now, timeZone: tz, seed: s });
      expect(localDay(at, tz)).toBe('2024-05-07');
      expect(local(at, tz).minuteOfDay).toBe(9 * 60 + spreadMinutes(s));
    },
  );

  it.each(['America/New_York', 'Europe/Berlin', 'Asia/Tokyo', 'Australia/Sydney'])(
    'moves to the next weekday in %s once the chosen minute has passed',
    (tz) => {
      const s = seedFor((spread) => spread < 30);
      const now = fromZoned(2024, 5, 7, 10, 45, tz); // Tuesday 10:45 local
      expect(localDay(bestSendTime({ now, timeZone: tz, seed: s }), tz)).toBe('2024-05-08');
      const friday = fromZoned(2024, 5, 10, 12, 0, tz);
      expect(localDay(bestSendTime({ now: friday, timeZone: tz, seed: s }), tz)).toBe('2024-05-13');
    },
  );

  it('crosses a DST change to the right UTC instant', () => {
    const s = seedFor((spread) => spread === 0);
    // Friday 8 March 2024 afternoon EST; clocks go forward on Sunday; Monday is EDT (UTC-4).
    expect(bestSendTime({ now: new Date('2024-03-08T20:00:00Z'), timeZone: 'America/New_York', seed: s }).toISOString()).toBe(
      '2024-03-11T13:00:00.000Z',
    );
    // Saturday 30 March 2024 in Berlin; CEST (UTC+2) from Sunday.
    expect(bestSendTime({ now: new Date('2024-03-30T10:00:00Z'), timeZone: 'Europe/Berlin', seed: s }).toISOString()).toBe(
      '2024-04-01T07:00:00.000Z',
    );
    // Friday 4 October 2024 evening in Sydney; AEDT (UTC+11) from Sunday 6 October.
    expect(bestSendTime({ now: new Date('2024-10-04T09:00:00Z'), timeZone: 'Australia/Sydney', seed: s }).toISOString()).toBe(
      '2024-10-06T22:00:00.000Z',
    );
    // Friday 1 November 2024 in New York; back to EST (UTC-5) on Sunday.
    expect(bestSendTime({ now: new Date('2024-11-01T18:00:00Z'), timeZone: 'America/New_York', seed: s }).toISOString()).toBe(
      '2024-11-04T14:00:00.000Z',
    );
  });

  it('spreads recipients across the window', () => {
    const minutes = new Set(Array.from({ length: 100 }, (_, i) => spreadMinutes(`em_${i}`)));
    expect(minutes.size).toBeGreaterThan(40);
    for (const m of minutes) expect(m).toBeLessThan(120);
  });
});

describe('nextSlotNow', () => {
  it('rounds up to the next whole second', () => {
    expect(nextSlotNow(new Date('2024-01-01T00:00:00.001Z')).toISOString()).toBe('2024-01-01T00:00:01.000Z');
    expect(nextSlotNow(new Date('2024-01-01T00:00:05.000Z')).toISOString()).toBe('2024-01-01T00:00:05.000Z');
  });

  it('is never before now and less than a second after (property)', () => {
    fc.assert(
      fc.property(instant, (now) => {
        const slot = nextSlotNow(now);
        expect(slot.getTime() % 1000).toBe(0);
        expect(slot.getTime()).toBeGreaterThanOrEqual(now.getTime());
        expect(slot.getTime() - now.getTime()).toBeLessThan(1000);
      }),
    );
  });
});

describe('followUpTime', () => {
  it('uses 3, 7 and 14 days for steps 1 to 3', () => {
    expect(FOLLOW_UP_DAYS).toEqual([3, 7, 14]);
  });

  it('keeps a weekday in-hours time as is', () => {
    const sent = fromZoned(2024, 5, 6, 10, 15, 'America/New_York'); // Monday
    const at = followUpTime({ previousSentAt: sent, daysAfter: 3, timeZone: 'America/New_York', seed: 'x' });
    expect(at.toISOString()).toBe(fromZoned(2024, 5, 9, 10, 15, 'America/New_York').toISOString());
  });

  it('skips the weekend to the next weekday window', () => {
    const s = seedFor((spread) => spread === 17);
    const sent = fromZoned(2024, 5, 9, 14, 0, 'Europe/Berlin'); // Thursday → Sunday
    const at = followUpTime({ previousSentAt: sent, daysAfter: 3, timeZone: 'Europe/Berlin', seed: s });
    expect(at.toISOString()).toBe(fromZoned(2024, 5, 13, 9, 17, 'Europe/Berlin').toISOString());
  });

  it('moves evening and early-morning times into the window', () => {
    const s = seedFor((spread) => spread === 5);
    const evening = fromZoned(2024, 5, 7, 20, 0, 'Asia/Tokyo'); // Tuesday 20:00 + 7 → Tuesday 20:00
    expect(followUpTime({ previousSentAt: evening, daysAfter: 7, timeZone: 'Asia/Tokyo', seed: s }).toISOString()).toBe(
      fromZoned(2024, 5, 15, 9, 5, 'Asia/Tokyo').toISOString(),
    );
    const early = fromZoned(2024, 5, 3, 6, 0, 'Asia/Tokyo'); // Friday 06:00 + 3 → Monday 06:00
    expect(followUpTime({ previousSentAt: early, daysAfter: 3, timeZone: 'Asia/Tokyo', seed: s }).toISOString()).toBe(
      fromZoned(2024, 5, 6, 9, 5, 'Asia/Tokyo').toISOString(),
    );
  });

  it('lands on a weekday 09:00–17:00, at least the delay later (property)', () => {
    fc.assert(
      fc.property(instant, fc.constantFrom(...FOLLOW_UP_DAYS, 1, 0), zone, seed, (sent, days, tz, s) => {
        const at = followUpTime({ previousSentAt: sent, daysAfter: days, timeZone: tz, seed: s });
        const l = local(at, tz);
        expect(l.weekday).toBeGreaterThanOrEqual(1);
        expect(l.weekday).toBeLessThanOrEqual(5);
        expect(l.minuteOfDay).toBeGreaterThanOrEqual(9 * 60);
        expect(l.minuteOfDay).toBeLessThan(17 * 60);
        // An hour of slack for a DST change inside the delay.
        expect(at.getTime()).toBeGreaterThanOrEqual(sent.getTime() + days * 86_400_000 - 3_600_000);
        expect(at.getTime()).toBeLessThan(sent.getTime() + (days + 4) * 86_400_000);
      }),
      { numRuns: 1000 },
    );
  });

  it('chains a whole sequence forward across a DST change', () => {
    const tz = 'America/New_York';
    let previous = new Date('2024-03-07T15:00:00Z'); // Thursday 10:00 EST
    const slots: Date[] = [];
    for (const days of FOLLOW_UP_DAYS) {
      previous = followUpTime({ previousSentAt: previous, daysAfter: days, timeZone: tz, seed: 'em_1' });
      slots.push(previous);
    }
    expect(slots.map((d) => localDay(d, tz))).toEqual(['2024-03-11', '2024-03-18', '2024-04-01']);
    expect(local(slots[0]!, tz).minuteOfDay).toBe(9 * 60 + spreadMinutes('em_1'));
  });

  it('rejects a negative delay', () => {
    expect(() => followUpTime({ previousSentAt: new Date(), daysAfter: -1, timeZone: 'UTC', seed: 'x' })).toThrow(
      ValidationError,
    );
  });
});

describe('allocateSlot', () => {
  function simulate(opts: { count: number; limit: number; desired: Date; tz: string; weekdaysOnly?: boolean; seed?: string }) {
    const booked = new Map<string, number>();
    const slots: Date[] = [];
    for (let i = 0; i < opts.count; i += 1) {
      const slot = allocateSlot({
        desired: opts.desired,
        timeZone: opts.tz,
        dailyLimit: opts.limit,
        countForDay: (day) => booked.get(day) ?? 0,
        ...(opts.weekdaysOnly ? { weekdaysOnly: true } : {}),
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      });
      const day = localDay(slot, opts.tz);
      booked.set(day, (booked.get(day) ?? 0) + 1);
      slots.push(slot);
    }
    return { booked, slots };
  }

  it('spills five sends at a limit of two over three days (2, 2, 1)', () => {
    const tz = 'America/New_York';
    const desired = fromZoned(2024, 5, 6, 9, 41, tz);
    const { booked, slots } = simulate({ count: 5, limit: 2, desired, tz });
    expect([...booked.entries()]).toEqual([
      ['2024-05-06', 2],
      ['2024-05-07', 2],
      ['2024-05-08', 1],
    ]);
    expect(slots[0]).toEqual(desired);
    expect(slots[2]!.toISOString()).toBe(fromZoned(2024, 5, 7, 9, 41, tz).toISOString());
  });

  it('skips weekends when asked and uses the seed spread on spilled days', () => {
    const tz = 'Europe/Berlin';
    const s = seedFor((spread) => spread === 77);
    const friday = fromZoned(2024, 5, 10, 9, 30, tz);
    const { booked, slots } = simulate({ count: 3, limit: 1, desired: friday, tz, weekdaysOnly: true, seed: s });
    expect([...booked.keys()]).toEqual(['2024-05-10', '2024-05-13', '2024-05-14']);
    expect(slots[1]!.toISOString()).toBe(fromZoned(2024, 5, 13, 10, 17, tz).toISOString());
  });

  it('respects sends already booked for the day', () => {
    const desired = new Date('2024-05-06T13:00:00Z');
    const slot = allocateSlot({
      desired,
      timeZone: 'UTC',
      dailyLimit: 50,
      countForDay: (day) => (day === '2024-05-06' ? 50 : day === '2024-05-07' ? 49 : 0),
    });
    expect(localDay(slot, 'UTC')).toBe('2024-05-07');
  });

  it('throws NoSendCapacityError (a ValidationError) for a limit of zero or less', () => {
    for (const dailyLimit of [0, -3, Number.NaN]) {
      expect(() =>
        allocateSlot({ desired: new Date(), timeZone: 'UTC', dailyLimit, countForDay: () => 0 }),
      ).toThrow(NoSendCapacityError);
    }
    expect(new NoSendCapacityError(0)).toBeInstanceOf(ValidationError);
  });

  it('never exceeds the limit, never moves earlier, fills days in order (property)', () => {
    fc.assert(
      fc.property(
        instant,
        zone,
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 20 }),
        (desired, tz, limit, count) => {
          const { booked, slots } = simulate({ count, limit, desired, tz });
          for (const n of booked.values()) expect(n).toBeLessThanOrEqual(limit);
          expect(booked.size).toBe(Math.ceil(count / limit));
          for (let i = 1; i < slots.length; i += 1) {
            expect(slots[i]!.getTime()).toBeGreaterThanOrEqual(slots[i - 1]!.getTime());
          }
          expect(slots[0]).toEqual(desired);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('allocateSlot: follow-ups and spills in the recipient zone, capacity in the account days', () => {
  /** Account zone, recipient zone: calendar days apart both ways, and one zone. */
  const PAIRS: [string, string][] = [
    ['America/Los_Angeles', 'Asia/Tokyo'],
    ['Asia/Tokyo', 'America/Los_Angeles'],
    ['Europe/Berlin', 'America/New_York'],
    ['Pacific/Auckland', 'America/St_Johns'],
    ['UTC', 'UTC'],
    ['Europe/Berlin', 'Europe/Berlin'],
  ];
  const place = (accountZone: string, recipientZone: string, desired: Date, full: (day: string) => boolean, s: string) =>
    allocateSlot({ desired, timeZone: accountZone, dailyLimit: 1, countForDay: (day) => (full(day) ? 1 : 0), seed: s, weekdaysOnly: true, windowZone: recipientZone });
  const minuteOfDay = (p: ZonedParts) => p.hour * 60 + p.minute;
  // 2026-11-20 is a Friday, 2026-11-21 a Saturday; the hours cover the whole of each day in every zone.
  const CLOCKS = [20, 21].flatMap((day) => [0, 5, 9, 13, 16, 20, 23].map((hour) => ({ day, hour })));

  describe.each(PAIRS)('account %s, recipient %s', (accountZone, recipientZone) => {
    it.each(CLOCKS)('a step sent on November $day at $hour:30 there, due a day later on a weekend, goes to Monday the 23rd 09:00–17:00 there, never a day later while that day has room', ({ day, hour }) => {
      const sent = fromZoned(2026, 11, day, hour, 30, recipientZone);
      const desired = followUpTime({ previousSentAt: sent, daysAfter: 1, timeZone: recipientZone, seed: 'em_next' });
      const slot = place(accountZone, recipientZone, desired, () => false, 'em_next');
      expect(slot).toEqual(desired);
      const there = zonedParts(slot, recipientZone);
      expect(localDay(slot, recipientZone)).toBe('2026-11-23');
      expect(there.weekday).toBe(1);
      expect(minuteOfDay(there)).toBeGreaterThanOrEqual(9 * 60);
      expect(minuteOfDay(there)).toBeLessThan(17 * 60);
      expect(slot.getTime() - sent.getTime()).toBeLessThan(4 * 86_400_000);
    });

    it('a spill off a full Friday goes to Monday 09:00–11:00 there, not to Saturday nor Tuesday', () => {
      const friday = fromZoned(2026, 11, 20, 14, 0, recipientZone);
      const fullDay = localDay(friday, accountZone);
      const slot = place(accountZone, recipientZone, friday, (day) => day === fullDay, 'em_spill');
      const there = zonedParts(slot, recipientZone);
      expect(localDay(slot, recipientZone)).toBe('2026-11-23');
      expect(minuteOfDay(there)).toBeGreaterThanOrEqual(9 * 60);
      expect(minuteOfDay(there)).toBeLessThan(11 * 60);
      expect(localDay(slot, accountZone)).not.toBe(fullDay);
    });

    it('a spill past a full Friday and a full Monday (account days of those mornings) goes to Tuesday morning there', () => {
      const friday = fromZoned(2026, 11, 20, 10, 0, recipientZone);
      const full = new Set([localDay(friday, accountZone), localDay(fromZoned(2026, 11, 23, 9, 0, recipientZone), accountZone)]);
      const slot = place(accountZone, recipientZone, friday, (day) => full.has(day), 'em_spill');
      expect(localDay(slot, recipientZone)).toBe('2026-11-24');
      expect(zonedParts(slot, recipientZone).hour).toBeGreaterThanOrEqual(9);
      expect(zonedParts(slot, recipientZone).hour).toBeLessThan(11);
      expect(full.has(localDay(slot, accountZone))).toBe(false);
    });
  });

  it('a send asked for now spills to the account\'s next morning, weekend or not (no window zone, no weekday rule)', () => {
    const friday = fromZoned(2026, 11, 20, 15, 0, 'Europe/Berlin');
    const slot = allocateSlot({ desired: friday, timeZone: 'Europe/Berlin', dailyLimit: 1, countForDay: (day) => (day === '2026-11-20' ? 1 : 0), seed: 'em_now' });
    expect(localDay(slot, 'Europe/Berlin')).toBe('2026-11-21');
  });

  it('from any clock instant over two weeks and any zone pair: one move, to the first recipient weekday morning whose account day has room (property)', () => {
    const twoWeeks = fc.date({ min: new Date('2026-11-16T00:00:00Z'), max: new Date('2026-11-30T00:00:00Z'), noInvalidDate: true });
    fc.assert(
      fc.property(twoWeeks, zone, zone, fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.subarray([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), seed, (clock, accountZone, recipientZone, daysAfter, limit, fullOffsets, s) => {
        const desired = followUpTime({ previousSentAt: clock, daysAfter, timeZone: recipientZone, seed: s });
        const first = Date.parse(`${localDay(desired, accountZone)}T00:00:00Z`);
        const full = (day: string) => fullOffsets.includes((Date.parse(`${day}T00:00:00Z`) - first) / 86_400_000);
        const slot = allocateSlot({ desired, timeZone: accountZone, dailyLimit: limit, countForDay: (day) => (full(day) ? limit : 0), seed: s, weekdaysOnly: true, windowZone: recipientZone });
        expect(slot.getTime()).toBeGreaterThanOrEqual(desired.getTime());
        expect(full(localDay(slot, accountZone))).toBe(false);
        const there = zonedParts(slot, recipientZone);
        expect(there.weekday).toBeGreaterThanOrEqual(1);
        expect(there.weekday).toBeLessThanOrEqual(5);
        expect(minuteOfDay(there)).toBeGreaterThanOrEqual(9 * 60);
        expect(minuteOfDay(there)).toBeLessThan(17 * 60);
        if (!full(localDay(desired, accountZone))) {
          expect(slot).toEqual(desired);
          if (daysAfter === 1) expect(slot.getTime() - clock.getTime()).toBeLessThan(4 * 86_400_000);
          return;
        }
        // Moved: every recipient weekday morning passed over lay before desired or on a full account day.
        const from = zonedParts(desired, recipientZone);
        for (let offset = 1; ; offset += 1) {
          const [y, m, d] = [from.year, from.month, from.day + offset];
          const morning = fromZoned(y, m, d, 9, spreadMinutes(s), recipientZone);
          if (localDay(morning, recipientZone) === localDay(slot, recipientZone)) {
            expect(slot).toEqual(morning);
            break;
          }
          if (zonedParts(morning, recipientZone).weekday % 6 === 0 || morning < desired) continue;
          expect(full(localDay(morning, accountZone))).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('timeZoneForLocation', () => {
  it.each([
    ['DE', 'Europe/Berlin'],
    ['jp', 'Asia/Tokyo'],
    ['US', 'America/New_York'],
    ['AU', 'Australia/Sydney'],
    ['GB', 'Europe/London'],
    [' in ', 'Asia/Kolkata'],
  ])('maps %s to %s', (code, expected) => {
    expect(timeZoneForLocation(code)).toBe(expected);
  });

  it.each([[null], [undefined], [''], ['ZZ'], ['USA']])('returns null for %p', (code) => {
    expect(timeZoneForLocation(code)).toBeNull();
  });
});

describe('allocateSlot: a limit of its own for each day (warm-up ramp, engagement pause)', () => {
  test('each day fills to its own limit; a day whose limit is 0 is passed over', () => {
    const limits: Record<string, number> = { '2026-11-23': 1, '2026-11-24': 2, '2026-11-25': 0, '2026-11-26': 3 };
    const counts = new Map<string, number>();
    const days: string[] = [];
    for (let i = 0; i < 6; i++) {
      const slot = allocateSlot({ desired: new Date('2026-11-23T10:00:00Z'), timeZone: 'UTC', dailyLimit: 10, limitForDay: (d) => limits[d] ?? 10, countForDay: (d) => counts.get(d) ?? 0, seed: `em_${i}` });
      const day = slot.toISOString().slice(0, 10);
      counts.set(day, (counts.get(day) ?? 0) + 1);
      days.push(day);
    }
    expect(days).toEqual(['2026-11-23', '2026-11-24', '2026-11-24', '2026-11-26', '2026-11-26', '2026-11-26']);
  });
});
