/**
 * The language-model port (a leaf, so its adapter, shared/adapters/bedrock-language-model.ts, imports no
 * domain module): the understanding port (shared/understanding/port.ts) re-exports it.
 */
/** One forced tool call: the model must answer by calling `tool` with an input valid against its schema. */
export interface ToolRequest {
  /** Fixed rules for the model; never holds user or page text. */
  system: string;
  /** What to do with the data, written by the service. */
  task: string;
  /** User or page text: sent delimited, as data to read, never as instructions. */
  data: string;
  tool: { name: string; description: string; inputSchema: Record<string, unknown> };
}

/** A language model that answers a tool request with the tool's input object (unvalidated: the caller validates). */
export interface LanguageModel {
  callTool(request: ToolRequest, options: { signal: AbortSignal }): Promise<unknown>;
}
