import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnLoggingConfiguration, CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { sourcePathRegex, type SourceRateLimit } from '../../shared/catalog/routes.js';

export interface SourceRateLimitsProps {
  /** Resource-name prefix, `<service>-<stage>`. */
  readonly prefix: string;
  /** The REST API stage the web ACL protects. */
  readonly stage: Stage;
  /** Its name, which stands in front of every path on the execute-api host. */
  readonly stageName: string;
  /** The catalogue's per-source limits (shared/catalog/routes.ts SOURCE_RATE_LIMITS), one rule each, in order. */
  readonly limits: readonly SourceRateLimit[];
}

/** The body of every refusal, the same as API Gateway's own throttle answer (the THROTTLED gateway response). */
export const TOO_MANY_REQUESTS_BODY = '{"message":"Too Many Requests"}';
const BODY_KEY = 'TooManyRequests';

/**
 * The whole URI path, URL_DECODEd, matches one route pattern, anchored at both ends (`^…$`): with the stage name
 * in front (the execute-api host) or without it. Never a CONTAINS match, which an encoded `%2F…openapi.json`
 * in a path parameter would satisfy.
 */
function pathMatches(pattern: string, stageName: string): CfnWebACL.StatementProperty {
  return {
    regexMatchStatement: {
      fieldToMatch: { uriPath: {} },
      regexString: sourcePathRegex(pattern, stageName),
      textTransformations: [{ priority: 0, type: 'URL_DECODE' }],
    },
  };
}

function methodIs(method: string): CfnWebACL.StatementProperty {
  return { byteMatchStatement: { fieldToMatch: { method: {} }, positionalConstraint: 'EXACTLY', searchString: method, textTransformations: [{ priority: 0, type: 'NONE' }] } };
}

const anyOf = (statements: CfnWebACL.StatementProperty[]): CfnWebACL.StatementProperty =>
  statements.length === 1 ? statements[0]! : { orStatement: { statements } };

/** The scope-down of one limit: its method, the path matching one of `paths` and none of `excludePaths`. */
export function scopeDownOf(limit: SourceRateLimit, stageName: string): CfnWebACL.StatementProperty {
  const all: CfnWebACL.StatementProperty[] = [anyOf(limit.paths.map((p) => pathMatches(p, stageName)))];
  const excludes = limit.excludePaths ?? [];
  if (excludes.length) all.push({ notStatement: { statement: anyOf(excludes.map((p) => pathMatches(p, stageName))) } });
  if (limit.methods?.length) all.push(anyOf(limit.methods.map(methodIs)));
  return all.length === 1 ? all[0]! : { andStatement: { statements: all } };
}

/**
 * An AWS WAF web ACL (REGIONAL) on the public API's stage: one rate-based rule per catalogue limit, counted per
 * source IP (`AggregateKeyType: IP`, the connection's address: a forwarded header would be the client's to
 * choose). WAF runs before API Gateway's authorizers and throttles, so a refused request reaches neither. A
 * source over its limit is answered 429 with API Gateway's throttle body; everything else is allowed on to the
 * stage, whose method throttles stay the overall ceiling. Only refused requests are logged (without the API key
 * header or the path, which carries the tracking tokens).
 */
export class SourceRateLimits extends Construct {
  readonly webAcl: CfnWebACL;
  readonly association: CfnWebACLAssociation;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: SourceRateLimitsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const metric = (name: string) => `${props.prefix}-${name}`;

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `${props.prefix}-api-edge`,
      description: `${props.prefix}: per-source-address rate limits of the public API`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      customResponseBodies: { [BODY_KEY]: { contentType: 'APPLICATION_JSON', content: TOO_MANY_REQUESTS_BODY } },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: metric('api-edge'), sampledRequestsEnabled: true },
      rules: props.limits.map((limit, priority) => ({
        name: limit.name,
        priority,
        action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: BODY_KEY } } },
        statement: {
          rateBasedStatement: {
            limit: limit.limit,
            evaluationWindowSec: limit.windowSeconds,
            aggregateKeyType: 'IP',
            scopeDownStatement: scopeDownOf(limit, props.stageName),
          },
        },
        visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: metric(limit.name), sampledRequestsEnabled: true },
      })),
    });

    this.association = new CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });

    // WAF delivers to CloudWatch Logs only into a group named `aws-waf-logs-…`, named by its ARN without `:*`.
    // The name is fixed, so the group goes with the stack: a retained one would stay behind after `cdk destroy`
    // and make the next deploy of this stack fail on a name already in use.
    const logGroupName = `aws-waf-logs-${props.prefix}-api`;
    this.logGroup = new LogGroup(this, 'Logs', { logGroupName, retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    const logging = new CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      logDestinationConfigs: [stack.formatArn({ service: 'logs', resource: 'log-group', resourceName: logGroupName, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
      redactedFields: [{ singleHeader: { Name: 'x-api-key' } }, { uriPath: {} }],
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [{ Behavior: 'KEEP', Requirement: 'MEETS_ANY', Conditions: [{ ActionCondition: { Action: 'BLOCK' } }] }],
      },
    });
    logging.node.addDependency(this.logGroup);
  }
}
