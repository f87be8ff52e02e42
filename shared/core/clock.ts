/**
 * The service clock. Every timestamp the service writes comes from here, so that locally
 * `POST /api/console/v1/dev/clock/` moves review windows, send slots, follow-ups and quotas together.
 * In AWS the offset is always 0. Locally the gateway, workers and the Scheduler emulator share one
 * process and so one offset.
 */
export interface Clock {
  now(): Date;
}

const state = { offsetMs: 0 };

export const serviceClock: Clock = {
  now: () => new Date(Date.now() + state.offsetMs),
};

/** Local-only: move the service clock forward. */
export function advanceServiceClock(seconds: number): Date {
  state.offsetMs += Math.round(seconds * 1000);
  return serviceClock.now();
}

export function setServiceClockOffset(ms: number): void {
  state.offsetMs = ms;
}

export function serviceClockOffset(): number {
  return state.offsetMs;
}

export function isoNow(clock: Clock = serviceClock): string {
  return clock.now().toISOString();
}

/** A clock fixed at a given instant, for pure unit tests. */
export function fixedClock(at: Date | string): Clock & { set(d: Date | string): void; advance(ms: number): void } {
  let t = new Date(at).getTime();
  return {
    now: () => new Date(t),
    set: (d) => {
      t = new Date(d).getTime();
    },
    advance: (ms) => {
      t += ms;
    },
  };
}
