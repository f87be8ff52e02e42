import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { createServiceStacks } from '../lib/service.js';

/**
 * The CDK app: `cdk synth -c stage=prod` for another stage (default `dev`); optional context
 * `bedrockModelId`, `smtpRelay` (host:port), `inboundRecipients` and `sesIdentities` (comma-separated),
 * `testInboxAddress` and `testEmailBanner` (test emails), `logLevel`, `searchEngine` (`memory` or `opensearch`).
 * `bedrockModelId` may be a foundation model id (`anthropic.claude-…`) or a cross-Region inference profile id
 * (`us.…`, `eu.…`, `apac.…`, `global.…`); the drafting worker is granted what each needs. `languageModelId`, the
 * same kinds of id: query understanding and evidence judgement by that model (the functions bound to
 * `languageModel`, the search worker, get LANGUAGE_MODEL=bedrock, LANGUAGE_MODEL_ID and the grant; off without it).
 * `smtpRelaySecret` (name or ARN of a Secrets Manager secret `{"username","password"}`): the relay's credentials;
 * without it, `smtpRelay` creates that secret in the stateful stack for the operator to fill in.
 * `maxLambdaMemoryMb` (default 3008): every function's memory is capped at it, because new accounts may not
 * configure more than 3,008 MB; raise it (up to 10240) once the account's quota allows, e.g.
 * `-c maxLambdaMemoryMb=10240` for the directory-finalize worker's full 10 GB. `maxWorkerConcurrency` (2–1000): every
 * SQS event source runs at most that many containers, for an account whose Lambda concurrency quota is still small.
 * `sesSandbox=true` while the account is in the SES sandbox (the sending grant then covers every identity here,
 * recipients included). `@aws-cdk/core:bootstrapQualifier`: the qualifier `cdk bootstrap --qualifier` used.
 * A bare model id of a model Bedrock serves only through an inference profile is refused (use the `us.…` id).
 * docs/deploying.md "First deploy into a fresh account" walks through each.
 * cdk-nag (AwsSolutions and Serverless packs) runs as policy-validation plugins: any unacknowledged error fails
 * the synth. `npm run lint:cfn` then runs AWS's cfn-lint over every synthesised template (bin/cfn-lint.sh).
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
  languageModelId: context('languageModelId'),
  smtpRelay: context('smtpRelay'),
  smtpRelaySecret: context('smtpRelaySecret'),
  inboundRecipients: context('inboundRecipients')?.split(',').filter(Boolean),
  sesIdentities: context('sesIdentities')?.split(',').filter(Boolean),
  testInboxAddress: context('testInboxAddress'),
  testEmailBanner: context('testEmailBanner'),
  searchEngine: searchEngineOf(context('searchEngine')),
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
