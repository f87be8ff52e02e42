/**
 * The drafting port: what a drafter is given and what it returns. Two implementations: the built-in
 * composer (`./composer/`) and a Bedrock model (`./bedrock-drafter.ts`).
 */
import { clean } from './composer/text.js';
import type { Contact } from './model.js';

export interface DraftInput {
  contact: Contact & { job_title?: string };
  instructions: string;
  sender: { email: string; name?: string };
  /** 0 is the intro, 1..3 are follow-ups. */
  step?: number;
  /** Steps in the sequence including the intro; the last one closes the loop. */
  totalSteps?: number;
  previousSubject?: string;
}

export interface Draft {
  subject: string;
  body_plain: string;
  body_html: string;
}

export interface Drafter {
  draft(input: DraftInput): Promise<Draft>;
}

/** The input cannot produce a draft; the email becomes `failed` and is not charged. */
export class DraftFailedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DraftFailedError';
  }
}

export const MAX_SUBJECT_LENGTH = 80;

let decorate: ((drafter: Drafter) => Drafter) | undefined;
/**
 * Wraps the drafter the drafting worker builds (drafting.ts `defaultDrafter`). Nothing sets one in Lambda; the
 * twin sets its own (shared/local/failing-drafter.ts), so test-only behaviour stays out of the drafters.
 */
export function decorateDrafters(wrap: ((drafter: Drafter) => Drafter) | undefined): void {
  decorate = wrap;
}
export const decoratedDrafter = (drafter: Drafter): Drafter => (decorate ? decorate(drafter) : drafter);

/** Checks shared by every drafter, run before any work (or model call) is spent. */
export function assertDraftable(input: DraftInput): void {
  const instructions = input.instructions ?? '';
  if (instructions.trim() === '') throw new DraftFailedError('instructions are empty');
  if (!input.contact || clean(input.contact.first_name) === '') {
    throw new DraftFailedError('contact first name is required');
  }
  const step = input.step ?? 0;
  if (!Number.isInteger(step) || step < 0) throw new DraftFailedError('step must be a non-negative integer');
}
