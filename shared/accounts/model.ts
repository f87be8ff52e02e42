import * as z from 'zod';


export interface Account {
  id: string;
  name: string;
  balance: number;
  public_api: boolean;
  agentic_search: boolean;
  pilot: boolean;
  auto_recharge: boolean;
  created_at: string;
}

export const SENDING_ACCOUNT_TYPES = ['google', 'microsoft', 'smtp'] as const;

export interface SendingAccount {
  id: string;
  email: string;
  type: (typeof SENDING_ACCOUNT_TYPES)[number];
  connected: boolean;
  sending_enabled: boolean;
  daily_limit: number;
  sent_today: number;
  health: string;
  timezone: string;
}

export type ChargeStatus = 'pending' | 'charged' | 'zero_result' | 'released';

export interface ChargeRecord {
  id: string;
  operation: string;
  reference: string;
  reserved: number;
  charged: number;
  charge_status: ChargeStatus;
  created_at: string;
  settled_at: string | null;
}

export const toAccount = (item: Record<string, unknown>): Account => ({
  id: item.id as string,
  name: item.name as string,
  balance: item.balance as number,
  public_api: item.public_api as boolean,
  agentic_search: item.agentic_search as boolean,
  pilot: item.pilot as boolean,
  auto_recharge: item.auto_recharge as boolean,
  created_at: item.created_at as string,
});

export const toCharge = (item: Record<string, unknown>): ChargeRecord => ({
  id: item.id as string,
  operation: item.operation as string,
  reference: item.reference as string,
  reserved: item.reserved as number,
  charged: item.charged as number,
  charge_status: item.charge_status as ChargeStatus,
  created_at: item.created_at as string,
  settled_at: (item.settled_at as string | undefined) ?? null,
});

export const CreateAccountSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  credits: z.number().int().min(0).max(100_000_000).default(1250),
  public_api: z.boolean().default(true),
  agentic_search: z.boolean().default(false),
  pilot: z.boolean().default(false),
  auto_recharge: z.boolean().default(false),
});

export const AddCreditsSchema = z.strictObject({
  amount: z.number().int().positive().max(100_000_000),
});

const timeZone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone');

export const CreateSendingAccountSchema = z.strictObject({
  email: z.email(),
  type: z.enum(SENDING_ACCOUNT_TYPES),
  connected: z.boolean().default(true),
  sending_enabled: z.boolean().default(true),
  daily_limit: z.number().int().min(0).max(10_000).default(50),
  health: z.string().trim().min(1).max(100).default('healthy'),
  timezone: timeZone.default('UTC'),
});

export const UpdateSendingAccountSchema = z
  .strictObject({
    connected: z.boolean(),
    sending_enabled: z.boolean(),
    daily_limit: z.number().int().min(0).max(10_000),
    health: z.string().trim().min(1).max(100),
    timezone: timeZone,
  })
  .partial()
  .refine((v) => Object.keys(v).length > 0, 'at least one field is required');
