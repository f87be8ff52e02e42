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
