/**
 * `STARTUP_TRACE=1 npm start` prints, on stderr, when each phase of the start-up ended, in ms since the
 * process began (module loading included): the breakdown behind the start-up figures of `npm run bench`.
 */
export function startupPhase(phase: string): void {
  if (process.env.STARTUP_TRACE) process.stderr.write(`startup ${Math.round(performance.now())} ms ${phase}\n`);
}
