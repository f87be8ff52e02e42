/**
 * The language model port on Amazon Bedrock's Converse API: one forced tool call per request. The system
 * prompt is the service's fixed text; the user message is the service's task followed by the data in a
 * `<data>` block; `toolConfig.toolChoice` names the one tool, so the answer is that tool's input (a JSON
 * object Bedrock returns parsed), which the caller validates. Forcing a tool with `toolChoice.tool` is
 * supported by Anthropic Claude 3 and later models (and a few others; Bedrock's "Call a tool with the
 * Converse API"): pick such a model. Converse is authorised by `bedrock:InvokeModel`.
 */
import { BedrockRuntimeClient, ConverseCommand, type ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { lazyClient } from './aws-client.js';
import type { LanguageModel, ToolRequest } from '../ports/language-model.js';

/** The slice of the Converse request sent. */
export interface ConverseToolInput {
  modelId: string;
  system: { text: string }[];
  messages: { role: 'user'; content: { text: string }[] }[];
  inferenceConfig: { maxTokens: number; temperature: number };
  toolConfig: {
    tools: { toolSpec: { name: string; description: string; inputSchema: { json: Record<string, unknown> } } }[];
    toolChoice: { tool: { name: string } };
  };
}

/** The slice of the Converse response read. */
export interface ConverseToolOutput {
  output?: { message?: { role?: string; content?: { text?: string; toolUse?: { toolUseId?: string; name?: string; input?: unknown } }[] } };
  stopReason?: string;
}

export class LanguageModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LanguageModelError';
  }
}

export interface BedrockLanguageModelOptions {
  modelId: string;
  send: (input: ConverseToolInput, options: { abortSignal: AbortSignal }) => Promise<ConverseToolOutput>;
  maxTokens?: number;
}

export class BedrockLanguageModel implements LanguageModel {
  constructor(private readonly options: BedrockLanguageModelOptions) {}

  request(request: ToolRequest): ConverseToolInput {
    return {
      modelId: this.options.modelId,
      system: [{ text: request.system }],
      messages: [{ role: 'user', content: [{ text: `${request.task}\n<data>\n${request.data}\n</data>` }] }],
      inferenceConfig: { maxTokens: this.options.maxTokens ?? 1500, temperature: 0 },
      toolConfig: {
        tools: [{ toolSpec: { name: request.tool.name, description: request.tool.description, inputSchema: { json: request.tool.inputSchema } } }],
        toolChoice: { tool: { name: request.tool.name } },
      },
    };
  }

  async callTool(request: ToolRequest, { signal }: { signal: AbortSignal }): Promise<unknown> {
    const response = await this.options.send(this.request(request), { abortSignal: signal });
    if (response.stopReason === 'max_tokens') throw new LanguageModelError('the answer was cut off at the token limit');
    if (response.stopReason === 'content_filtered' || response.stopReason === 'guardrail_intervened') throw new LanguageModelError(`the model refused (${response.stopReason})`);
    const use = (response.output?.message?.content ?? []).find((block) => block.toolUse?.name === request.tool.name)?.toolUse;
    if (!use || use.input === undefined) throw new LanguageModelError(`the model did not call ${request.tool.name}`);
    return use.input;
  }
}

const client = /* @__PURE__ */ lazyClient(() => new BedrockRuntimeClient({}));

/** The Bedrock language model on the SDK client (created at the first call, reused after). */
export function bedrockLanguageModel(modelId: string): BedrockLanguageModel {
  return new BedrockLanguageModel({
    modelId,
    send: (input, options) => client().send(new ConverseCommand(input as unknown as ConverseCommandInput), options) as Promise<ConverseToolOutput>,
  });
}
