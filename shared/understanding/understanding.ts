import { isLocalMode, optionalEnv } from '../core/env.js';
import { logger } from '../core/logger.js';
import { deterministicUnderstanding } from './deterministic.js';
import type { Understanding } from './port.js';

let chosen: Understanding | undefined;

/**
 * The process's understanding engine: the deterministic one by default; a language model (Amazon Bedrock,
 * Converse API) behind its guards with `LANGUAGE_MODEL=bedrock` and `LANGUAGE_MODEL_ID` (a foundation model or
 * inference profile id), `LANGUAGE_MODEL_TIMEOUT_MS` per call (default 5000). The guarded engine (its schemas)
 * and the Bedrock client are imported only when the switch is on, so a process with it off never loads them. On the twin the model is used only through
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
  // The guarded engine (its schemas) and the Bedrock client are loaded on this path only.
  const engine = Promise.all([import('./model-understanding.js'), import('../adapters/bedrock-language-model.js')]).then(
    ([{ ModelUnderstanding }, { bedrockLanguageModel }]) =>
      new ModelUnderstanding({ model: bedrockLanguageModel(modelId), fallback: deterministicUnderstanding, ...(Number.isInteger(timeout) && timeout > 0 ? { timeoutMs: timeout } : {}) }),
  );
  engine.catch(() => undefined);
  const use = async <T>(ask: (u: Understanding) => Promise<T>, fallback: () => Promise<T>): Promise<T> => {
    let u: Understanding;
    try {
      u = await engine;
    } catch (error) {
      logger.warn('language model not loaded; the deterministic engine answered', { error: error as Error });
      return fallback();
    }
    return ask(u);
  };
  const d = deterministicUnderstanding;
  chosen = {
    parseQuery: (text) => use((u) => u.parseQuery(text), () => d.parseQuery(text)),
    parseCriteria: (query) => use((u) => u.parseCriteria(query), () => d.parseCriteria(query)),
    judgeEvidence: (check, blocks, today) => use((u) => u.judgeEvidence(check, blocks, today), () => d.judgeEvidence(check, blocks, today)),
  };
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
