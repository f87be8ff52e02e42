/**
 * Amazon Bedrock's Converse API for the model drafter (outreach/bedrock-drafter.ts): the slice of the
 * request it sends and of the response it reads, and `converse`, which sends it on the SDK client created
 * on the first draft (never in a process that only composes) and reused after.
 */
import { BedrockRuntimeClient, ConverseCommand, type ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { lazyClient } from './aws-client.js';

/** The slice of the Bedrock Runtime Converse request the drafter sends. */
export interface ConverseLikeInput {
  modelId: string;
  system: { text: string }[];
  messages: { role: 'user'; content: { text: string }[] }[];
  inferenceConfig: { maxTokens: number; temperature: number };
}

/** The slice of the Converse response it reads. */
export interface ConverseLikeOutput {
  output?: { message?: { role?: string; content?: { text?: string }[] } };
  stopReason?: string;
}

const client = /* @__PURE__ */ lazyClient(() => new BedrockRuntimeClient({}));

export function converse(input: ConverseLikeInput): Promise<ConverseLikeOutput> {
  return client().send(new ConverseCommand(input as ConverseCommandInput)) as Promise<ConverseLikeOutput>;
}
