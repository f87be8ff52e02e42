import type { MessageHandler } from './dispatch.js';

/**
 * Which use case handles which message kind, per queue. Capabilities add their rows here; the worker
 * functions (functions/workers/*.worker.ts) are one line each.
 */
export const searchHandlers: Record<string, MessageHandler> = {};
export const draftingHandlers: Record<string, MessageHandler> = {};
export const sendingHandlers: Record<string, MessageHandler> = {};
export const webhooksHandlers: Record<string, MessageHandler> = {};
export const timerHandlers: Record<string, MessageHandler> = {};
