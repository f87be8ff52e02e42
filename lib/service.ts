import { Aspects, type App } from 'aws-cdk-lib';
import { ApiStack } from './api-stack.js';
import { FunctionLogGroups } from './constructs/log-retention.js';
import { assertInvocableModelId } from './constructs/service-function.js';
import { StatefulStack } from './stateful-stack.js';
import type { RouteDef } from '../shared/catalog/routes.js';

/**
 * The whole service on one CDK app: the stateful stack, and the API stack that receives its resources as
 * props and deploys after it. bin/app.ts and the infrastructure tests build exactly this.
 */
export const SERVICE = 'people-outreach';

export interface ServiceOptions {
  stage: string;
  logLevel?: string;
  bedrockModelId?: string;
  /** Query understanding and evidence judgement by this Bedrock model (docs/search.md "Language-model port"). */
  languageModelId?: string;
  smtpRelay?: string;
  /**
   * Name or complete ARN of an existing Secrets Manager secret `{"username","password"}` for the relay; without
   * it, `smtpRelay` creates one in the stateful stack (docs/deploying.md "Deploying to AWS").
   */
  smtpRelaySecret?: string;
  /** The shared test inbox every test email goes to (docs/decisions.md#decisions-the-contract-leaves-open); without it, test-email creation answers 503. */
  testInboxAddress?: string;
  testEmailBanner?: string;
  inboundRecipients?: string[];
  /** SES identities (domains or addresses) mail may be sent from; without any, nothing may send through SES. */
  sesIdentities?: string[];
  /** `opensearch`: people search on an OpenSearch Serverless collection instead of the in-memory engine. */
  searchEngine?: 'memory' | 'opensearch';
  /** Build these routes instead of the catalogue's (tests projecting routes still to come). */
  routes?: readonly RouteDef[];
}

export function createServiceStacks(app: App, opts: ServiceOptions): { stateful: StatefulStack; api: ApiStack; prefix: string } {
  if (!/^[a-z][a-z0-9-]{0,15}$/.test(opts.stage)) throw new Error(`Invalid stage "${opts.stage}": lowercase letters, digits and dashes, at most 16`);
  if (opts.smtpRelaySecret && !opts.smtpRelay) throw new Error('-c smtpRelaySecret needs -c smtpRelay (host:port of the relay)');
  // A bare id of a model Bedrock serves only through an inference profile would pass synth and fail every call.
  if (opts.bedrockModelId) assertInvocableModelId('bedrockModelId', opts.bedrockModelId);
  if (opts.languageModelId) assertInvocableModelId('languageModelId', opts.languageModelId);
  // Every Lambda function, CDK's own helpers included, logs to a group of its stack with a retention.
  Aspects.of(app).add(new FunctionLogGroups());
  const prefix = `${SERVICE}-${opts.stage}`;
  const stateful = new StatefulStack(app, `${prefix}-stateful`, {
    prefix,
    stage: opts.stage,
    serviceName: SERVICE,
    inboundRecipients: opts.inboundRecipients,
    searchEngine: opts.searchEngine,
    smtpRelay: opts.smtpRelay,
    smtpRelaySecret: opts.smtpRelaySecret,
    description: `${SERVICE} (${opts.stage}): tables, queues, keys, inbound mail`,
  });
  const api = new ApiStack(app, `${prefix}-api`, {
    prefix,
    stage: opts.stage,
    serviceName: SERVICE,
    logLevel: opts.logLevel,
    description: `${SERVICE} (${opts.stage}): REST API, handlers and workers`,
    tables: stateful.tables,
    queues: stateful.queues,
    deadLetterQueues: stateful.deadLetterQueues,
    secretBoxKey: stateful.secretBoxKey,
    mailboxProviders: stateful.mailboxProviders,
    directoryBucket: stateful.directoryImportBucket,
    scheduleGroup: stateful.scheduleGroup,
    schedulerRole: stateful.schedulerRole,
    bedrockModelId: opts.bedrockModelId,
    languageModelId: opts.languageModelId,
    smtpRelay: opts.smtpRelay,
    smtpRelaySecret: stateful.smtpRelaySecret,
    testInboxAddress: opts.testInboxAddress,
    testEmailBanner: opts.testEmailBanner,
    alarmTopic: stateful.alarmTopic,
    userPool: stateful.userPool,
    userPoolClientId: stateful.userPoolClient.userPoolClientId,
    sesIdentities: opts.sesIdentities,
    routes: opts.routes,
    searchCollection: stateful.searchCollection,
  });
  api.addStackDependency(stateful);
  return { stateful, api, prefix };
}
