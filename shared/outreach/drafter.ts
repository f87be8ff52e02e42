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

/** Tests put this in instructions to exercise the failure path end to end. */
export const FAIL_DRAFT_MARKER = '[[fail-draft]]';
export const MAX_SUBJECT_LENGTH = 80;

/** Checks shared by every drafter, run before any work (or model call) is spent. */
export function assertDraftable(input: DraftInput): void {
  const instructions = input.instructions ?? '';
  if (instructions.trim() === '') throw new DraftFailedError('instructions are empty');
  if (instructions.includes(FAIL_DRAFT_MARKER)) throw new DraftFailedError('draft failed (test marker)');
  if (!input.contact || clean(input.contact.first_name) === '') {
    throw new DraftFailedError('contact first name is required');
  }
  const step = input.step ?? 0;
  if (!Number.isInteger(step) || step < 0) throw new DraftFailedError('step must be a non-negative integer');
}
