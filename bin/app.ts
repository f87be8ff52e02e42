import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ApiStack } from '../lib/api-stack.js';
import { StatefulStack } from '../lib/stateful-stack.js';

/**
 * The CDK app: `cdk synth -c stage=prod` for another stage (default `dev`). Stateful resources live in their
 * own stack and are handed to the API stack as props. cdk-nag (AwsSolutions) runs as a policy-validation
 * plugin: any unacknowledged error fails the synth.
 */
const SERVICE = 'people-outreach';

const app = new App();
const stage = String(app.node.tryGetContext('stage') ?? 'dev');
if (!/^[a-z][a-z0-9-]{0,15}$/.test(stage)) throw new Error(`Invalid stage "${stage}": lowercase letters, digits and dashes, at most 16`);
const prefix = `${SERVICE}-${stage}`;

const inboundRecipients = (app.node.tryGetContext('inboundRecipients') as string | undefined)?.split(',').filter(Boolean);
const stateful = new StatefulStack(app, `${prefix}-stateful`, { prefix, stage, serviceName: SERVICE, inboundRecipients, description: `${SERVICE} (${stage}): tables, queues, keys, inbound mail` });
const api = new ApiStack(app, `${prefix}-api`, {
  prefix,
  stage,
  serviceName: SERVICE,
  logLevel: app.node.tryGetContext('logLevel') as string | undefined,
  description: `${SERVICE} (${stage}): REST API, handlers and workers`,
  tables: stateful.tables,
  queues: stateful.queues,
  secretBoxKey: stateful.secretBoxKey,
  directoryBucket: stateful.directoryImportBucket,
  scheduleGroup: stateful.scheduleGroup,
  schedulerRole: stateful.schedulerRole,
  bedrockModelId: app.node.tryGetContext('bedrockModelId') as string | undefined,
  smtpRelay: app.node.tryGetContext('smtpRelay') as string | undefined,
});
api.addStackDependency(stateful);

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
