import { assertDraftable, DraftFailedError, type Draft, type DraftInput, type Drafter } from '../drafter.js';
import { plainToHtml } from '../plain-html.js';
import { composeFollowUp, composeIntro } from './body.js';
import { person } from './contact.js';
import { analyzeInstructions } from './instructions.js';
import { greeting } from './sentences.js';
import { senderName } from './sign-off.js';
import { followUpSubject, introSubject } from './subject.js';
import { clean, wordCount } from './text.js';

/**
 * Built-in composer: deterministic (same input, same draft), personalised from the contact and
 * shaped by the instructions without ever quoting them.
 */
export class ComposerDrafter implements Drafter {
  async draft(input: DraftInput): Promise<Draft> {
    return this.compose(input);
  }

  compose(input: DraftInput): Draft {
    assertDraftable(input);
    const p = person(input.contact);
    const profile = analyzeInstructions(input.instructions, p.first);
    const step = input.step ?? 0;
    const seed = `${clean(input.contact.email).toLowerCase()}|${clean(input.instructions)}`;
    const sender = senderName(input.sender);
    const intro = introSubject(profile, p, seed);
    const subject = step === 0 ? intro : followUpSubject(input.previousSubject, intro);
    const paragraphs =
      step === 0
        ? composeIntro(profile, p, seed, sender)
        : composeFollowUp(profile, p, `${seed}|${step}`, sender, step, input.totalSteps);
    const body_plain = [greeting(p, profile.tone), ...paragraphs.filter((x) => x.trim() !== '')].join('\n\n');
    if (wordCount(body_plain) < 8) throw new DraftFailedError('could not compose a draft from these instructions');
    return { subject, body_plain, body_html: plainToHtml(body_plain) };
  }
}
