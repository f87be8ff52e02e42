import type { CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { awsScheduler, TIMER_RETRY_POLICY } from '../../../shared/adapters/scheduler.js';
import { schedulerClient } from '../../../shared/adapters/scheduler-client.js';
import { resetClients } from '../../../shared/adapters/aws.js';
import { useProcessEnv } from '../../support/process-env.js';

const ENV = {
  SERVICE_MODE: 'local',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'unit',
  AWS_SECRET_ACCESS_KEY: 'unit',
  SCHEDULER_GROUP_NAME: 'unit-schedules',
  SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/unit-scheduler',
  TIMERS_QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:unit-timers',
  TIMERS_DLQ_ARN: 'arn:aws:sqs:us-east-1:000000000000:unit-timers-dlq',
};
useProcessEnv(ENV);

/** The commands the adapter sends, stopped before they leave the client. */
function captureCommands(): { name: string; input: CreateScheduleCommandInput }[] {
  resetClients();
  const sent: { name: string; input: CreateScheduleCommandInput }[] = [];
  schedulerClient().middlewareStack.add(
    (_next, context) => async (args) => {
      sent.push({ name: context.commandName!, input: args.input as CreateScheduleCommandInput });
      return { output: { $metadata: {}, ScheduleArn: 'arn:aws:scheduler:us-east-1:000000000000:schedule/unit-schedules/x' }, response: {} };
    },
    { step: 'initialize', name: 'captureCommands' },
  );
  return sent;
}

test('a one-time schedule carries the timer retry policy and the timers DLQ as its dead-letter target', async () => {
  const sent = captureCommands();
  const at = new Date('2026-12-01T09:30:00.000Z');
  await awsScheduler.scheduleAt('send.em_x', at, { kind: 'webhook_retry', job_id: `dj_${'0'.repeat(26)}`, attempt: 2 });
  expect(sent.map((c) => c.name)).toEqual(['CreateScheduleCommand']);
  const { input } = sent[0]!;
  expect(input).toMatchObject({ Name: 'send.em_x', GroupName: 'unit-schedules', ScheduleExpression: 'at(2026-12-01T09:30:00)', FlexibleTimeWindow: { Mode: 'OFF' } });
  expect(input.Target).toEqual({
    Arn: ENV.TIMERS_QUEUE_ARN,
    RoleArn: ENV.SCHEDULER_ROLE_ARN,
    Input: JSON.stringify({ kind: 'webhook_retry', job_id: `dj_${'0'.repeat(26)}`, attempt: 2 }),
    RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 185 },
    DeadLetterConfig: { Arn: ENV.TIMERS_DLQ_ARN },
  });
});

test('the timer retry policy is within the ranges Scheduler accepts', () => {
  expect(TIMER_RETRY_POLICY.MaximumEventAgeInSeconds).toBeGreaterThanOrEqual(60);
  expect(TIMER_RETRY_POLICY.MaximumEventAgeInSeconds).toBeLessThanOrEqual(86_400);
  expect(TIMER_RETRY_POLICY.MaximumRetryAttempts).toBeGreaterThanOrEqual(0);
  expect(TIMER_RETRY_POLICY.MaximumRetryAttempts).toBeLessThanOrEqual(185);
});

test('without TIMERS_DLQ_ARN no schedule is created', async () => {
  const sent = captureCommands();
  delete process.env.TIMERS_DLQ_ARN;
  try {
    await expect(awsScheduler.scheduleAt('x', new Date(), { kind: 'webhook_retry', job_id: `dj_${'0'.repeat(26)}`, attempt: 1 })).rejects.toThrow(/TIMERS_DLQ_ARN/);
    expect(sent).toEqual([]);
  } finally {
    process.env.TIMERS_DLQ_ARN = ENV.TIMERS_DLQ_ARN;
  }
});
