import { CfnResource, RemovalPolicy, type IAspect } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';

/** How long every log group the stacks cause keeps its events (the service functions' own groups keep the same). */
export const LOG_RETENTION = RetentionDays.ONE_MONTH;

/**
 * Every Lambda function in the stacks logs to a log group of its own stack, kept `LOG_RETENTION` and removed with
 * the stack. The service's functions name theirs (ServiceFunction); the functions CDK adds by itself — the S3
 * bucket-notifications handler, the BucketDeployment provider, any custom-resource provider a later construct
 * brings — would write to `/aws/lambda/<name>`, which Lambda creates at the first log line with no expiry. This
 * aspect gives each such function a group beside it and points `LoggingConfig.LogGroup` at it, so the group exists
 * (with its retention) before the function first runs.
 */
export class FunctionLogGroups implements IAspect {
  visit(node: IConstruct): void {
    if (!(node instanceof CfnResource) || node.cfnResourceType !== 'AWS::Lambda::Function') return;
    if (namedLogGroup(node)) return;
    const logs = new LogGroup(node.node.scope!, `${node.node.id}Logs`, { retention: LOG_RETENTION, removalPolicy: RemovalPolicy.DESTROY });
    node.addPropertyOverride('LoggingConfig.LogGroup', logs.logGroupName);
  }
}

/** Whether the function already names its log group (LoggingConfig.LogGroup), as an L2 function with `logGroup` does. */
function namedLogGroup(fn: CfnResource): boolean {
  if (fn instanceof CfnFunction) {
    const config = fn.loggingConfig as CfnFunction.LoggingConfigProperty | undefined;
    return config?.logGroup !== undefined;
  }
  // A raw CfnResource (CDK's bucket-notifications handler) holds its properties as given.
  const props = (fn as unknown as { cfnProperties?: { LoggingConfig?: { LogGroup?: unknown } } }).cfnProperties;
  return props?.LoggingConfig?.LogGroup !== undefined;
}

/**
 * The stage's execution log group, which API Gateway would otherwise create itself at the first logged error,
 * named `API-Gateway-Execution-Logs_{rest-api-id}/{stage_name}` ("Execution logging for REST APIs") and never
 * expiring. Created here before the stage, with `LOG_RETENTION`, and removed with the stack (a new API has a new id).
 */
export function executionLogGroup(api: RestApi, stageName: string): LogGroup {
  const logs = new LogGroup(api, 'ExecutionLogs', {
    logGroupName: `API-Gateway-Execution-Logs_${api.restApiId}/${stageName}`,
    retention: LOG_RETENTION,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  api.deploymentStage.node.addDependency(logs);
  return logs;
}
