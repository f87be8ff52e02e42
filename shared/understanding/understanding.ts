import { isLocalMode, optionalEnv } from '../core/env.js';
import { logger } from '../core/logger.js';
import { deterministicUnderstanding } from './deterministic.js';
import { ModelUnderstanding } from './model-understanding.js';
import type { Understanding } from './port.js';

let chosen: Understanding | undefined;

/**
 * The process's understanding engine: the deterministic one by default; a language model (Amazon Bedrock,
 * Converse API) behind its guards with `LANGUAGE_MODEL=bedrock` and `LANGUAGE_MODEL_ID` (a foundation model or
 * inference profile id), `LANGUAGE_MODEL_TIMEOUT_MS` per call (default 5000). The Bedrock client is imported
 * at the first call, so a process with the switch off never loads it. On the twin the model is used only through
 * a loopback endpoint (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, e.g. shared/local/bedrock-emulator.ts).
 */
export function understanding(): Understanding {
  if (chosen) return chosen;
  if (optionalEnv('LANGUAGE_MODEL') !== 'bedrock') return (chosen = deterministicUnderstanding);
  const modelId = optionalEnv('LANGUAGE_MODEL_ID');
  if (!modelId) {
    logger.warn('LANGUAGE_MODEL=bedrock without LANGUAGE_MODEL_ID: the deterministic engine answers');
    return (chosen = deterministicUnderstanding);
  }
  if (isLocalMode() && !isLoopback(optionalEnv('AWS_ENDPOINT_URL_BEDROCK_RUNTIME'))) {
    // The twin talks to nothing outside 127.0.0.0/8: a model is reachable only through a loopback stand-in.
    logger.warn('LANGUAGE_MODEL=bedrock on the twin needs AWS_ENDPOINT_URL_BEDROCK_RUNTIME on loopback: the deterministic engine answers');
    return (chosen = deterministicUnderstanding);
  }
  const timeout = Number(optionalEnv('LANGUAGE_MODEL_TIMEOUT_MS') ?? '');
  const adapter = import('../adapters/bedrock-language-model.js').then(({ bedrockLanguageModel }) => bedrockLanguageModel(modelId));
  // An import that fails is a call that fails: it falls back like any other.
  adapter.catch(() => undefined);
  chosen = new ModelUnderstanding({
    model: { callTool: async (request, options) => (await adapter).callTool(request, options) },
    fallback: deterministicUnderstanding,
    ...(Number.isInteger(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}),
  });
  return chosen;
}

/** Forget the choice (tests that change the environment). */
export function resetUnderstanding(): void {
  chosen = undefined;
}

function isLoopback(url: string | undefined): boolean {
  if (!url) return false;
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || /^127(?:\.\d{1,3}){3}$/.test(host);
  } catch {
    return false;
  }
}
