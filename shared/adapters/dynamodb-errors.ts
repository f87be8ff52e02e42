import { ConditionalCheckFailedException, TransactionCanceledException, type AttributeValue, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/**
 * DynamoDB's answers to a lost condition, matched by the SDK's exception classes (never by name). A
 * conditional write asked with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` carries the item as it is
 * now, so the loser of a race learns the current state without a second read.
 */
export function isConditionFailed(e: unknown): e is ConditionalCheckFailedException {
  return e instanceof ConditionalCheckFailedException;
}

export function isTransactionCanceled(e: unknown): e is TransactionCanceledException {
  return e instanceof TransactionCanceledException;
}

/** The cancellation reasons of a transaction, one per item in order (empty when not a cancellation). */
export function cancellationReasons(e: unknown): CancellationReason[] {
  return isTransactionCanceled(e) ? (e.CancellationReasons ?? []) : [];
}

/** The document form of the item a lost condition returned (null when it does not exist). */
export function itemOfConditionFailure<T>(e: ConditionalCheckFailedException | CancellationReason): T | null {
  const item = e.Item as Record<string, AttributeValue> | undefined;
  return item ? (unmarshall(item) as T) : null;
}
