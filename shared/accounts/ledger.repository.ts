import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../adapters/aws.js';
import { tableName } from '../catalog/resource-names.js';
import { serviceClock, type Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { ConflictError, ContentionError, InsufficientCreditsError, NotFoundError, ValidationError } from '../core/errors.js';
import { toCharge, type ChargeRecord, type ChargeStatus } from './model.js';
import { accountsKeys as K } from './accounts.keys.js';
import { DUE_ATTRIBUTES, dueFields } from '../catalog/tables.js';
import { DEADLINES, after, type SweepAction } from '../catalog/deadlines.js';
import { cancellationReasons, isTransactionCanceled, itemOfConditionFailure } from '../adapters/dynamodb-errors.js';
import { countOnCommit } from '../core/metrics.js';

/**
 * The credit ledger. Every paid operation reserves first and then settles:
 *
 *   reserve  balance -= amount and a `pending` audit record, in one transaction conditioned on the
 *            balance covering it (so the balance is never negative);
 *   settle   `charged` (keep `charge` ≤ reserved, return the rest), `zero_result` or `released`
 *            (return everything); conditioned on the record still being `pending`, so a redelivered
 *            message or a retried call can never settle — or refund — twice.
 *
 * With `auto_recharge` an account that cannot cover a reservation buys exactly the shortfall (a
 * `purchase` ledger entry) in the same transaction as the reservation.
 */
const MAX_ATTEMPTS = 10;
const BACKOFF_BASE_MS = 10;
const BACKOFF_CAP_MS = 400;

export interface ReserveInput {
  accountId: string;
  operation: string;
  reference: string;
  amount: number;
  /** Supply to make the reservation idempotent (a retry with the same id finds the first record). */
  chargeId?: string;
  /** Also require an active webhook signing secret on the account (checked in the same transaction). */
  requireWebhookSecret?: boolean;
  /**
   * When the sweeper may end the reservation if nothing has settled it (the due index). A reservation that
   * rides in its workflow's transaction leaves this out: the job or email carries the due time and settles
   * it in the same write that ends it.
   */
  dueAt?: Date;
}

/** One item of a DynamoDB transaction, as lib-dynamodb takes it. */
export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** A condition on one of the caller's extra transaction items failed (e.g. an idempotency key exists). */
export class ExtraItemConditionFailed extends Error {
  constructor(readonly index: number) {
    super(`transaction item ${index} condition failed`);
    this.name = 'ExtraItemConditionFailed';
  }
}

/**
 * The balance update and the pending audit record. With `purchase` (auto-recharge) the shortfall is bought
 * in the same transaction: a `purchase` ledger entry, and the balance moves by `purchase − amount`,
 * conditioned on the balance being exactly what was seen, so a purchase can never be left unused.
 */
function reservationItems(input: ReserveInput, record: ChargeRecord, purchase?: { seenBalance: number; amount: number; entryId: string }): TransactItem[] {
  const table = tableName('accounts');
  const secret = input.requireWebhookSecret ? ' AND active_webhook_secrets > :zero' : '';
  const secretValues = input.requireWebhookSecret ? { ':zero': 0 } : {};
  const balanceUpdate: TransactItem = purchase
    ? {
        Update: {
          TableName: table,
          Key: K.account(input.accountId),
          UpdateExpression: 'SET balance = balance + :delta',
          ConditionExpression: `attribute_exists(pk) AND balance = :seen AND auto_recharge = :t${secret}`,
          ExpressionAttributeValues: { ':delta': purchase.amount - input.amount, ':seen': purchase.seenBalance, ':t': true, ...secretValues },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      }
    : {
        Update: {
          TableName: table,
          Key: K.account(input.accountId),
          UpdateExpression: 'SET balance = balance - :amt',
          ConditionExpression: `attribute_exists(pk) AND balance >= :amt${secret}`,
          ExpressionAttributeValues: { ':amt': input.amount, ...secretValues },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      };
  return [
    balanceUpdate,
    {
      Put: {
        TableName: table,
        Item: { ...K.charge(input.accountId, record.id), ...record, settled_at: undefined, ...(input.dueAt ? dueFields(K.charge(input.accountId, record.id), input.dueAt) : {}) },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...(purchase
      ? [
          {
            Put: {
              TableName: table,
              Item: { ...K.ledgerEntry(input.accountId, purchase.entryId), id: purchase.entryId, type: 'purchase', reference: input.reference, amount: purchase.amount, created_at: record.created_at },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          } satisfies TransactItem,
        ]
      : []),
  ];
}

/** A reservation of a synchronous call: the sweeper releases it if the call dies before settling it. */
export async function reserve(input: ReserveInput, clock: Clock = serviceClock): Promise<ChargeRecord> {
  return reserveWith({ dueAt: after(clock.now(), DEADLINES.SYNC_CALL_DEADLINE_MS), ...input }, [], clock);
}

/** Full jitter: a random wait up to an exponentially growing cap, so racing writers spread out. */
const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt)));

/**
 * Reserve credits and write the caller's `extra` items in the same transaction, so that accepting a job
 * is one transaction: the balance, the pending audit record, the job and its idempotency key together.
 * A transaction that loses to a concurrent writer is tried again after a jittered backoff; one that still
 * loses after MAX_ATTEMPTS answers 503 `contention` (retryable), never 402.
 */
export async function reserveWith(input: ReserveInput, extra: TransactItem[], clock: Clock = serviceClock): Promise<ChargeRecord> {
  if (!Number.isInteger(input.amount) || input.amount < 0) throw new ValidationError('amount must be a non-negative integer');
  const id = input.chargeId ?? newId('chg', clock.now().getTime());
  const record: ChargeRecord = {
    id,
    operation: input.operation,
    reference: input.reference,
    reserved: input.amount,
    charged: 0,
    charge_status: 'pending',
    created_at: clock.now().toISOString(),
    settled_at: null,
  };

  let purchase: { seenBalance: number; amount: number; entryId: string } | undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    try {
      await documentClient().send(new TransactWriteCommand({ TransactItems: [...reservationItems(input, record, purchase), ...extra] }));
      return record;
    } catch (e) {
      if (!isTransactionCanceled(e)) throw e;
      const reasons = cancellationReasons(e);
      const [acct, charge] = reasons;
      const extraFailed = reasons.slice(purchase ? 3 : 2).findIndex((r) => r.Code === 'ConditionalCheckFailed');
      if (extraFailed >= 0) throw new ExtraItemConditionFailed(extraFailed);
      if (charge?.Code === 'ConditionalCheckFailed') {
        // Same charge id already reserved: an idempotent retry.
        const existing = await getCharge(input.accountId, id);
        if (existing) return existing;
      }
      if (acct?.Code !== 'ConditionalCheckFailed') {
        if (!reasons.some((r) => r.Code === 'TransactionConflict')) throw e;
        await backoff(attempt);
        continue;
      }
      const current = itemOfConditionFailure<{ balance?: number; auto_recharge?: boolean; active_webhook_secrets?: number }>(acct);
      if (!current) throw new NotFoundError('Account not found.');
      if (input.requireWebhookSecret && (current.active_webhook_secrets ?? 0) <= 0) {
        throw new ConflictError('An active webhook signing secret is required; create one in the web console.');
      }
      const balance = current.balance ?? 0;
      if (balance >= input.amount) {
        // Enough now (a purchase attempt lost to a top-up or a release): reserve plainly next time.
        purchase = undefined;
      } else {
        if (current.auto_recharge !== true) throw new InsufficientCreditsError();
        purchase = { seenBalance: balance, amount: input.amount - balance, entryId: newId('chg', clock.now().getTime()) };
      }
      if (attempt > 0) await backoff(attempt);
    }
  }
  throw new ContentionError();
}

/** Add credits and their ledger entry (`topup` from the console, `purchase` by auto-recharge) together. */
async function creditBalance(
  accountId: string,
  amount: number,
  entry: { type: 'topup' | 'purchase'; reference?: string },
  clock: Clock,
  condition: { expression: string; values: Record<string, unknown> } = { expression: 'attribute_exists(pk)', values: {} },
): Promise<void> {
  const table = tableName('accounts');
  const id = newId('chg', clock.now().getTime());
  await documentClient().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: table,
            Key: K.account(accountId),
            UpdateExpression: 'SET balance = balance + :amount',
            ConditionExpression: condition.expression,
            ExpressionAttributeValues: { ':amount': amount, ...condition.values },
          },
        },
        { Put: { TableName: table, Item: { ...K.ledgerEntry(accountId, id), id, ...entry, amount, created_at: clock.now().toISOString() } } },
      ],
    }),
  );
}

/** The charge an item key of the accounts table names (the due index hands out keys), or null. */
export const chargeOfKey = K.chargeOf;

export async function getCharge(accountId: string, chargeId: string): Promise<ChargeRecord | null> {
  const out = await documentClient().send(
    new GetCommand({ TableName: tableName('accounts'), Key: K.charge(accountId, chargeId), ConsistentRead: true }),
  );
  return out.Item ? toCharge(out.Item) : null;
}

/**
 * `ref` is the charge id, or the record a caller has just reserved (then it is known to be pending and the
 * read is skipped; the transaction's condition still guards against a concurrent settle).
 */
type ChargeRef = string | ChargeRecord;

/**
 * The writes that settle a pending reservation, to ride in the transaction that ends its workflow (a job
 * finishing, a draft written or failed): the audit record (conditioned on still being `pending`, so nothing
 * settles twice) and the refund of whatever was reserved but not charged.
 */
export function settleWrites(accountId: string, current: ChargeRecord, status: Exclude<ChargeStatus, 'pending'>, charge: number, now: Date): TransactItem[] {
  if (!Number.isInteger(charge) || charge < 0 || charge > current.reserved) {
    throw new ValidationError(`charge must be an integer between 0 and the reserved ${current.reserved}`);
  }
  const table = tableName('accounts');
  // Counted when the transaction holding it commits: its condition lets a reservation settle once.
  const settle: TransactItem = {
    Update: {
      TableName: table,
      Key: K.charge(accountId, current.id),
      UpdateExpression: `SET charge_status = :s, charged = :c, settled_at = :at REMOVE ${DUE_ATTRIBUTES.join(', ')}`,
      ConditionExpression: 'charge_status = :pending',
      ExpressionAttributeValues: { ':s': status, ':c': charge, ':at': now.toISOString(), ':pending': 'pending' },
    },
  };
  countOnCommit(settle, 'credits_charged', charge);
  countOnCommit(settle, 'credits_released', current.reserved - charge);
  return [
    settle,
    {
      Update: {
        TableName: table,
        Key: K.account(accountId),
        UpdateExpression: 'SET balance = balance + :r',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':r': current.reserved - charge },
      },
    },
  ];
}

/**
 * Record how much of a pending reservation a workflow has used so far (agentic search charges as it
 * delivers), to ride in the transaction that saves that progress. Still `pending`, never above the
 * reservation; the final settle keeps `charged` and returns the rest.
 */
export function chargeProgressWrite(accountId: string, chargeId: string, charged: number): TransactItem {
  return {
    Update: {
      TableName: tableName('accounts'),
      Key: K.charge(accountId, chargeId),
      UpdateExpression: 'SET charged = :c',
      ConditionExpression: 'charge_status = :pending AND reserved >= :c',
      ExpressionAttributeValues: { ':c': charged, ':pending': 'pending' },
    },
  };
}

/** One item of a bulk call, settled out of its parent reservation into an audit record of its own. */
export interface ItemCharge {
  chargeId: string;
  operation: string;
  reference: string;
  /** What the item took of the parent reservation (its single call's price; 0 for an invalid item). */
  reserved: number;
  charged: number;
  status: Exclude<ChargeStatus, 'pending'>;
  /** Why an item was released (an invalid item's problems). */
  reason?: string;
}

/**
 * The writes that move items out of a parent reservation that is still `pending` (a bulk enrichment's),
 * to ride in the transaction that checkpoints them: the parent gives up the items' share (conditioned on
 * still being `pending` and holding it), each item gets its own settled audit record (conditioned on not
 * existing, so nothing settles twice), and the balance gets back what the items reserved but did not keep.
 * The balance plus everything pending plus everything charged stays the same before and after.
 */
export function itemChargeWrites(accountId: string, parentChargeId: string, items: readonly ItemCharge[], now: Date): TransactItem[] {
  const table = tableName('accounts');
  const moved = items.reduce((n, i) => n + i.reserved, 0);
  const refund = items.reduce((n, i) => n + i.reserved - i.charged, 0);
  for (const i of items) {
    if (!Number.isInteger(i.charged) || i.charged < 0 || i.charged > i.reserved) throw new ValidationError(`charge must be an integer between 0 and the reserved ${i.reserved}`);
  }
  const at = now.toISOString();
  return [
    {
      Update: {
        TableName: table,
        Key: K.charge(accountId, parentChargeId),
        UpdateExpression: 'SET reserved = reserved - :moved',
        ConditionExpression: 'charge_status = :pending AND reserved >= :moved',
        ExpressionAttributeValues: { ':moved': moved, ':pending': 'pending' },
      },
    },
    ...(refund > 0
      ? [
          {
            Update: {
              TableName: table,
              Key: K.account(accountId),
              UpdateExpression: 'SET balance = balance + :r',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':r': refund },
            },
          } satisfies TransactItem,
        ]
      : []),
    ...items.map((i): TransactItem => {
      // Each item's own record, created once (its condition): counted when the checkpoint's transaction commits.
      const put: TransactItem = {
        Put: {
          TableName: table,
          Item: {
            ...K.charge(accountId, i.chargeId),
            id: i.chargeId,
            operation: i.operation,
            reference: i.reference,
            reserved: i.reserved,
            charged: i.charged,
            charge_status: i.status,
            created_at: at,
            settled_at: at,
            ...(i.reason ? { reason: i.reason.slice(0, MAX_REASON_CHARS) } : {}),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
      countOnCommit(put, 'credits_charged', i.charged);
      countOnCommit(put, 'credits_released', i.reserved - i.charged);
      return put;
    }),
  ];
}

/**
 * The settle writes for a charge by id, or none when it has already been settled (or never existed): what a
 * workflow adds to the transaction that ends it.
 */
export async function pendingSettleWrites(accountId: string, chargeId: string, status: Exclude<ChargeStatus, 'pending'>, charge: number, now: Date): Promise<TransactItem[]> {
  const current = await getCharge(accountId, chargeId);
  return current?.charge_status === 'pending' ? settleWrites(accountId, current, status, charge, now) : [];
}

async function settleAs(accountId: string, ref: ChargeRef, status: Exclude<ChargeStatus, 'pending'>, charge: number, clock: Clock): Promise<ChargeRecord> {
  const chargeId = typeof ref === 'string' ? ref : ref.id;
  const current = typeof ref === 'string' ? await getCharge(accountId, chargeId) : ref;
  if (!current) throw new NotFoundError('Charge not found.');
  if (current.charge_status !== 'pending') return current; // already settled: never twice
  const now = clock.now();
  try {
    await documentClient().send(new TransactWriteCommand({ TransactItems: settleWrites(accountId, current, status, charge, now) }));
  } catch (e) {
    if (isTransactionCanceled(e)) {
      const again = await getCharge(accountId, chargeId);
      if (again && again.charge_status !== 'pending') return again;
    }
    throw e;
  }
  return { ...current, charge_status: status, charged: charge, settled_at: now.toISOString() };
}

/** Keep `amount` (≤ reserved) and return the rest. An amount of 0 is a `zero_result`. */
export function settleCharged(accountId: string, chargeId: ChargeRef, amount: number, clock: Clock = serviceClock): Promise<ChargeRecord> {
  return settleAs(accountId, chargeId, amount === 0 ? 'zero_result' : 'charged', amount, clock);
}

/** A variable-charge call that returned nothing. */
export function settleZeroResult(accountId: string, chargeId: string, clock: Clock = serviceClock): Promise<ChargeRecord> {
  return settleAs(accountId, chargeId, 'zero_result', 0, clock);
}

/** Validation reject, upstream error, dispatch failure: nothing is charged. */
export function release(accountId: string, chargeId: ChargeRef, clock: Clock = serviceClock): Promise<ChargeRecord> {
  return settleAs(accountId, chargeId, 'released', 0, clock);
}

/**
 * A reservation whose call died before settling it (found by the sweeper past its due time): nothing is
 * charged, and the record says it was an anomaly ended by the service, not a normal release.
 */
export function releaseLost(accountId: string, chargeId: string, clock: Clock = serviceClock): Promise<ChargeRecord> {
  return settleAs(accountId, chargeId, 'lost_released', 0, clock);
}

/** Reserve and keep the full amount at once (sync calls that complete in the same request). */
export async function chargeNow(input: ReserveInput, clock: Clock = serviceClock): Promise<ChargeRecord> {
  const r = await reserve(input, clock);
  return settleCharged(input.accountId, r, input.amount, clock);
}

/** Console top-up: a `topup` ledger entry and the balance, together. */
export async function addCredits(accountId: string, amount: number, clock: Clock = serviceClock): Promise<void> {
  try {
    await creditBalance(accountId, amount, { type: 'topup' }, clock);
  } catch (e) {
    if (isTransactionCanceled(e)) throw new NotFoundError('Account not found.');
    throw e;
  }
}

const MAX_REASON_CHARS = 1000;

/**
 * The audit record of a paid call rejected as invalid (docs/decisions.md#billing-model: `released`, nothing
 * reserved or charged, with the reason). One write per rejected request: the route's gateway throttle
 * bounds how many a caller can cause, so it cannot become a write amplifier.
 */
export async function recordRejectedCall(input: { accountId: string; operation: string; reference: string; reason: string }, clock: Clock = serviceClock): Promise<ChargeRecord> {
  const now = clock.now();
  const record: ChargeRecord = {
    id: newId('chg', now.getTime()),
    operation: input.operation,
    reference: input.reference,
    reserved: 0,
    charged: 0,
    charge_status: 'released',
    created_at: now.toISOString(),
    settled_at: now.toISOString(),
    // A body with thousands of invalid items would otherwise make the record itself huge.
    reason: input.reason.slice(0, MAX_REASON_CHARS),
  };
  await documentClient().send(new PutCommand({ TableName: tableName('accounts'), Item: { ...K.charge(input.accountId, record.id), ...record } }));
  return record;
}

/**
 * A reservation found on the due index: a synchronous call's reservation still `pending` past its deadline
 * belongs to a call that died before settling it, and is released as `lost_released`. One already settled
 * only leaves the index.
 */
export async function sweepCharge(accountId: string, chargeId: string, clock: Clock = serviceClock): Promise<SweepAction> {
  const charge = await getCharge(accountId, chargeId);
  if (!charge) return 'none';
  if (charge.charge_status === 'pending') {
    await releaseLost(accountId, chargeId, clock);
    return 'ended';
  }
  await documentClient().send(new UpdateCommand({ TableName: tableName('accounts'), Key: K.charge(accountId, chargeId), UpdateExpression: `REMOVE ${DUE_ATTRIBUTES.join(', ')}` }));
  return 'cleared';
}
