import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { createServiceStacks } from '../lib/service.js';

/**
 * The CDK app: `cdk synth -c stage=prod` for another stage (default `dev`); optional context
 * `bedrockModelId`, `smtpRelay` (host:port), `inboundRecipients` and `sesIdentities` (comma-separated),
 * `testInboxAddress` and `testEmailBanner` (test emails), `logLevel`, `searchEngine` (`memory` or `opensearch`).
 * cdk-nag (AwsSolutions) runs as a policy-validation plugin: any unacknowledged error fails the synth.
 */
const app = new App();
const context = (key: string) => app.node.tryGetContext(key) as string | undefined;

function searchEngineOf(value: string | undefined): 'memory' | 'opensearch' | undefined {
  if (value === undefined || value === 'memory' || value === 'opensearch') return value;
  throw new Error(`-c searchEngine=${value}: use memory (the default) or opensearch`);
}

createServiceStacks(app, {
  stage: String(context('stage') ?? 'dev'),
  logLevel: context('logLevel'),
  bedrockModelId: context('bedrockModelId'),
  smtpRelay: context('smtpRelay'),
  inboundRecipients: context('inboundRecipients')?.split(',').filter(Boolean),
  sesIdentities: context('sesIdentities')?.split(',').filter(Boolean),
  testInboxAddress: context('testInboxAddress'),
  testEmailBanner: context('testEmailBanner'),
  searchEngine: searchEngineOf(context('searchEngine')),
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
