/** The sweeper (skeleton; the re-drive logic follows in the next commit). */
export interface SweepReport {
  examined: number;
  redriven: number;
  ended: number;
}

export async function sweep(): Promise<SweepReport> {
  return { examined: 0, redriven: 0, ended: 0 };
}

export const sweepHandler = async (): Promise<SweepReport> => sweep();
