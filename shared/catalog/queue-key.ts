/** The key of each SQS queue of the catalogue (queues.ts): a leaf, so bindings.ts can name queues without importing the catalogue. */
export type QueueKey = 'search' | 'drafting' | 'sending' | 'webhooks' | 'timers' | 'mail-events' | 'directory-import' | 'directory-finalize';
