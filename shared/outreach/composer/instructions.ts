import { detectAsk, type Ask } from './ask.js';
import { detectBenefits, detectCongratulations, detectFacts, detectPoints, detectTopic, type Point, type Topic } from './content.js';
import { detectLength, detectTone, type Length, type Tone } from './style.js';
import { clean } from './text.js';

export interface InstructionProfile {
  tone: Tone;
  length: Length;
  ask: Ask;
  /** The value proposition or subject matter, rewritten for the recipient (e.g. "our SOC 2 automation platform"). */
  topic?: Topic;
  /** Benefit clauses, each a full sentence ("It cuts audit prep from weeks to days."). */
  benefits: string[];
  /** Extra points the instructions asked to mention: full clauses ("We work with Stripe.") or noun phrases. */
  points: Point[];
  /** First-person statements from the instructions that read as content ("We just opened a Berlin office."). */
  facts: string[];
  /** Something to congratulate the recipient on. */
  congratulate?: string;
  /** Something of the recipient's to reference in the opening ("recent talk at KubeCon"). */
  reference?: string;
}

/** Reads tone, length, ask, topic and talking points out of free-form instructions. */
export function analyzeInstructions(instructions: string, contactFirstName = ''): InstructionProfile {
  const text = clean(instructions.replace(/\r\n?/g, '\n').replace(/\n+/g, '. '));
  const topic = detectTopic(text, contactFirstName);
  const { points, reference } = detectPoints(text, contactFirstName);
  const congratulate = detectCongratulations(text, contactFirstName);
  let ask = detectAsk(text);
  if (ask.kind === 'reply' && topic?.lead === 'invite') ask = { kind: 'event' };
  const facts = detectFacts(instructions, contactFirstName).filter(
    (fact) => !topic || !fact.toLowerCase().includes(topic.phrase.toLowerCase()),
  );
  const benefits = detectBenefits(text, contactFirstName).filter((benefit) => {
    const body = benefit.replace(/^(?:It|We)\s+/, '').replace(/\.$/, '').toLowerCase();
    return !facts.some((fact) => fact.toLowerCase().includes(body));
  });
  return {
    tone: detectTone(text),
    length: detectLength(text),
    ask,
    ...(topic ? { topic } : {}),
    benefits,
    points,
    facts,
    ...(congratulate ? { congratulate } : {}),
    ...(reference ? { reference } : {}),
  };
}
