import { ConflictException, CreateScheduleCommand, DeleteScheduleCommand, ResourceNotFoundException, UpdateScheduleCommand } from '@aws-sdk/client-scheduler';
import { schedulerClient } from './scheduler-client.js';
import { requireEnv } from '../core/env.js';
import { QUEUE_MESSAGES, type TimerMessage } from '../catalog/messages.js';

/**
 * One-time schedules (EventBridge Scheduler `at()`), each delivering a timer message to the timers queue.
 * Used for send slots, review-window expiry, follow-ups, long webhook retries and test-email timeouts.
 * Locally `AWS_ENDPOINT_URL_SCHEDULER` points the same client at the in-repo emulator.
 */
export type { TimerMessage };

export interface Scheduler {
  /** Create or replace the schedule `name` to deliver `message` at `at`. */
  scheduleAt(name: string, at: Date, message: TimerMessage): Promise<void>;
  cancel(name: string): Promise<void>;
}

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, the form Scheduler's one-time expressions take. */
export function atExpression(at: Date): string {
  return `at(${at.toISOString().slice(0, 19)})`;
}

/** Schedule names: at most 64 characters of [0-9a-zA-Z-_.]. */
export function scheduleName(...parts: string[]): string {
  return parts.join('.').replace(/[^0-9a-zA-Z\-_.]/g, '-').slice(0, 64);
}

/**
 * How long Scheduler keeps trying to put a due timer on the timers queue before it goes to the timers DLQ
 * (limits: 60–86,400 s, 0–185 attempts). A delivery fails only when SQS refuses the message (throttling, an
 * outage, a lost permission), and an hour outlasts a passing one; a timer older than that is stale anyway, since the sweeper re-drives every
 * overdue record every few minutes and the dead-letter consumer ends what is left. The age bounds the
 * attempts (Scheduler backs off exponentially), so the count is left at its maximum.
 */
export const TIMER_RETRY_POLICY = { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 185 } as const;

export const awsScheduler: Scheduler = {
  async scheduleAt(name, at, message) {
    const input = {
      Name: name,
      GroupName: requireEnv('SCHEDULER_GROUP_NAME'),
      ScheduleExpression: atExpression(at),
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' as const },
      ActionAfterCompletion: 'DELETE' as const,
      Target: {
        Arn: requireEnv('TIMERS_QUEUE_ARN'),
        RoleArn: requireEnv('SCHEDULER_ROLE_ARN'),
        Input: JSON.stringify(QUEUE_MESSAGES.timers.parse(message)),
        RetryPolicy: TIMER_RETRY_POLICY,
        DeadLetterConfig: { Arn: requireEnv('TIMERS_DLQ_ARN') },
      },
    };
    try {
      await schedulerClient().send(new CreateScheduleCommand(input));
    } catch (e) {
      if (!(e instanceof ConflictException)) throw e;
      await schedulerClient().send(new UpdateScheduleCommand(input));
    }
  },
  async cancel(name) {
    try {
      await schedulerClient().send(new DeleteScheduleCommand({ Name: name, GroupName: requireEnv('SCHEDULER_GROUP_NAME') }));
    } catch (e) {
      if (!(e instanceof ResourceNotFoundException)) throw e;
    }
  },
};
