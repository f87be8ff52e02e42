import type { SmtpAccountTransport, StoredSmtpSettings } from './smtp-settings.js';

export interface Account {
  id: string;
  name: string;
  balance: number;
  public_api: boolean;
  agentic_search: boolean;
  pilot: boolean;
  auto_recharge: boolean;
  attachments_enabled: boolean;
  /** Days after the previous step's actual send at which follow-ups 1, 2 and 3 go out. */
  followup_days: number[];
  created_at: string;
}

export const DEFAULT_FOLLOWUP_DAYS: readonly number[] = Object.freeze([3, 7, 14]);

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
  signature_html: string;
  /** `smtp` accounts: their own server (password sealed); absent, they go out through the deployment's relay. */
  smtp?: StoredSmtpSettings;
  /** `smtp` accounts: `ses` sends through SES v2 (the domain is a verified identity) instead of SMTP. */
  transport?: SmtpAccountTransport;
  /** When the warm-up ramp starts: the connection (creation) time unless an operator set it (the mailbox brings history). */
  warmup_started_at?: string;
  /**
   * Set once the effective limit has been assessed (shared/outreach/sending-capacity.ts): `daily_limit` and
   * `health` are then the effective ones, and these say why.
   */
  configured_daily_limit?: number;
  warmup?: { started_at: string; day: number; ramp_limit: number | null; complete: boolean };
  engagement?: { window_days: number; sent: number; bounced_hard: number; complained: number; bounce_rate: number; complaint_rate: number };
}

/** `lost_released`: a reservation whose call died before settling it, released by the sweeper (docs/decisions.md#billing-model: `lost_` states are operational anomalies). */
export type ChargeStatus = 'pending' | 'charged' | 'zero_result' | 'released' | 'lost_released';

export interface ChargeRecord {
  id: string;
  operation: string;
  reference: string;
  reserved: number;
  charged: number;
  charge_status: ChargeStatus;
  created_at: string;
  settled_at: string | null;
  /** Why nothing was charged, on records of calls rejected as invalid. */
  reason?: string;
}

export const toAccount = (item: Record<string, unknown>): Account => ({
  id: item.id as string,
  name: item.name as string,
  balance: item.balance as number,
  public_api: item.public_api as boolean,
  agentic_search: item.agentic_search as boolean,
  pilot: item.pilot as boolean,
  auto_recharge: item.auto_recharge as boolean,
  attachments_enabled: (item.attachments_enabled as boolean | undefined) ?? false,
  followup_days: (item.followup_days as number[] | undefined) ?? [...DEFAULT_FOLLOWUP_DAYS],
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
  ...(item.reason === undefined ? {} : { reason: item.reason as string }),
});
