import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createServiceStacks } from '../lib/service.js';

/**
 * The CDK app: `cdk synth -c stage=prod` for another stage (default `dev`); optional context
 * `bedrockModelId`, `smtpRelay` (host:port), `inboundRecipients` and `sesIdentities` (comma-separated),
 * `testInboxAddress` and `testEmailBanner` (test emails), `logLevel`.
 * cdk-nag (AwsSolutions) runs as a policy-validation plugin: any unacknowledged error fails the synth.
 */
const app = new App();
const context = (key: string) => app.node.tryGetContext(key) as string | undefined;

createServiceStacks(app, {
  stage: String(context('stage') ?? 'dev'),
  logLevel: context('logLevel'),
  bedrockModelId: context('bedrockModelId'),
  smtpRelay: context('smtpRelay'),
  inboundRecipients: context('inboundRecipients')?.split(',').filter(Boolean),
  sesIdentities: context('sesIdentities')?.split(',').filter(Boolean),
  testInboxAddress: context('testInboxAddress'),
  testEmailBanner: context('testEmailBanner'),
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
