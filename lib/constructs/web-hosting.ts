import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative } from 'node:path';
import { AssetHashType, Aws, BOOTSTRAP_QUALIFIER_CONTEXT, DefaultStackSynthesizer, DockerImage, Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct, type IConstruct } from 'constructs';
import { APP_BASE, OAUTH_CALLBACK_PATH, PUBLIC_BASE } from '../../shared/catalog/routes.js';
import { PRIVACY_PAGE_PATH, WEB_APP_STATIC_FILES, cognitoEndpointOf, cognitoOriginOf, webAppContentSecurityPolicy } from '../../shared/catalog/web-app.js';
import { REPO_ROOT, nagFinding } from './service-function.js';

/** Where the app lives in the bucket and on the distribution, as `npm start` serves it (shared/local/web-app.ts). */
export const APP_PREFIX = 'app/';
/** Content-hashed bundles, cached for a year: a new build gets new names. */
export const ASSETS_DIR = 'assets';
/** The API behaviour: the app's calls stay on the distribution's origin and reach the AppApi stage. */
export const APP_API_PATH_PATTERN = `${APP_BASE.split('/').slice(0, 3).join('/')}/*`;
/**
 * The OAuth callback behaviour: the providers send the browser back to the app's own domain, so the
 * browser-binding cookie that the app's start set (on this domain) comes along; it goes to the public API.
 */
export const OAUTH_CALLBACK_PATH_PATTERN = `${OAUTH_CALLBACK_PATH}*`;
/**
 * The privacy page (`/privacy/`, no sign-in) lives among the app's files, under `app/privacy/` (the viewer-request
 * function maps `/privacy/…` there); its calls, the public API's privacy requests, stay on this origin too.
 */
export const PRIVACY_DIR = 'privacy';
export const PRIVACY_API_PATH_PATTERN = `${PUBLIC_BASE}privacy-requests/*`;

export interface WebHostingProps {
  readonly prefix: string;
  /** The AppApi's deployment stage, the path prefix of its invoke URL. */
  readonly stage: string;
  readonly appApi: RestApi;
  /** The public API (its deployment stage is `stage` too): the OAuth callback's origin. */
  readonly publicApi: RestApi;
  readonly userPoolId: string;
  readonly userPoolClientId: string;
}

/**
 * The customer web app on AWS: its static files in a private bucket, read by CloudFront through origin
 * access control, under `/app/` with the security headers of the local gateway; `/api/app/*` goes to the
 * AppApi on the same distribution, so the app calls its API on its own origin (`apiBase` `/api/app/v1/`
 * as locally: no CORS, and the connect-src of the shared policy holds unchanged). The app routes with the URL
 * hash, so every path the viewer asks for is a real object: no SPA fallback to index.html is needed. The
 * privacy page is served the same way at `/privacy/`, with the same headers, and its calls to
 * `/api/public/v1/privacy-requests/*` go to the public API's stage, uncached.
 */
export class WebHosting extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly headersPolicy: ResponseHeadersPolicy;
  /** The deployment writing index.html and config.json (no-cache), after the hashed bundles. */
  readonly pageDeployment: BucketDeployment;
  /** Where customers open the app. */
  readonly url: string;
  /** The public OAuth callback on the app's domain: the redirect URI the mailbox providers are given. */
  readonly oauthCallbackUrl: string;
  /** The privacy page, which every outreach email's footer and every privacy-request link names. */
  readonly privacyUrl: string;

  constructor(scope: Construct, id: string, props: WebHostingProps) {
    super(scope, id);
    const region = Stack.of(this).region;

    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'The bucket holds only the public build of the web app, written by deployments; CloudFront is its only reader.',
    });

    this.headersPolicy = new ResponseHeadersPolicy(this, 'Headers', {
      responseHeadersPolicyName: `${props.prefix}-web-app`,
      comment: 'The web app\'s security headers, the same as the local gateway\'s',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: webAppContentSecurityPolicy(cognitoOriginOf(region)), override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
      },
    });

    const paths = new CloudFrontFunction(this, 'Paths', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'The app is served at /app/ and the privacy page at /privacy/ (index.html), like the local gateway',
      code: FunctionCode.fromInline(
        [
          'function handler(event) {',
          '  var uri = event.request.uri;',
          `  if (uri === '/' || uri === '/${APP_PREFIX.slice(0, -1)}') return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: '/${APP_PREFIX}' } } };`,
          `  if (uri === '${PRIVACY_PAGE_PATH.slice(0, -1)}') return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: '${PRIVACY_PAGE_PATH}' } } };`,
          `  if (uri.startsWith('${PRIVACY_PAGE_PATH}')) uri = '/${APP_PREFIX}${PRIVACY_DIR}/' + uri.slice(${PRIVACY_PAGE_PATH.length});`,
          "  if (uri.endsWith('/')) uri = uri + 'index.html';",
          '  event.request.uri = uri;',
          '  return event.request;',
          '}',
        ].join('\n'),
      ),
    });

    const appApiOrigin = new HttpOrigin(`${props.appApi.restApiId}.execute-api.${region}.${Stack.of(this).urlSuffix}`, {
      originPath: `/${props.stage}`,
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
    });
    const publicApiOrigin = new HttpOrigin(`${props.publicApi.restApiId}.execute-api.${region}.${Stack.of(this).urlSuffix}`, {
      originPath: `/${props.stage}`,
      protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${props.prefix}: the customer web app`,
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        // Honours each object's Cache-Control: a year for hashed bundles, revalidation for index.html and config.json.
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.headersPolicy,
        functionAssociations: [{ function: paths, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        [APP_API_PATH_PATTERN]: {
          origin: appApiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          // Never cached: every answer is one user's. With caching disabled, the all-viewer policy forwards the
          // Authorization header; the Host header must be API Gateway's own.
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.headersPolicy,
        },
        // The privacy page's calls (no key, no sign-in): never cached, every answer is one person's.
        [PRIVACY_API_PATH_PATTERN]: {
          origin: publicApiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.headersPolicy,
        },
        // Never cached (a one-time code in every query); the all-viewer policy forwards the query and the cookie.
        [OAUTH_CALLBACK_PATH_PATTERN]: {
          origin: publicApiOrigin,
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.headersPolicy,
        },
      },
    });
    Validations.of(this.distribution).acknowledge(
      { id: 'AwsSolutions-CFR1', reason: 'The app is for customers in any country; sign-in is the access control.' },
      { id: 'AwsSolutions-CFR2', reason: 'A CloudFront web ACL lives in us-east-1, outside these stacks; behind the distribution are static files, the AppApi (Cognito tokens on every method) and the OAuth callback (throttled at the public API stage).' },
      { id: 'AwsSolutions-CFR3', reason: 'Access logs need a log bucket with ACLs enabled; the AppApi behind it keeps its own access logs, and the static files hold nothing private.' },
      { id: 'AwsSolutions-CFR4', reason: 'The distribution uses its default *.cloudfront.net certificate, on which CloudFront fixes the TLS policy; a custom domain with its own certificate is a deployment choice.' },
    );

    const built = Source.asset(join(REPO_ROOT, 'web/app'), {
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Never used: the local esbuild build below always runs (esbuild is a dependency of the repository).
        image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:22-alpine'),
        local: { tryBundle: (outputDir) => (buildHostedWebApp(outputDir), true) },
      },
    });
    const bundles = new BucketDeployment(this, 'Bundles', {
      destinationBucket: this.bucket,
      destinationKeyPrefix: APP_PREFIX,
      sources: [built],
      exclude: ['*'],
      include: [`${ASSETS_DIR}/*`],
      // Open tabs keep loading the bundles their index.html names until they reload.
      prune: false,
      cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(Duration.days(365)), CacheControl.immutable()],
    });
    this.pageDeployment = new BucketDeployment(this, 'Pages', {
      destinationBucket: this.bucket,
      destinationKeyPrefix: APP_PREFIX,
      sources: [
        built,
        Source.jsonData('config.json', {
          apiBase: APP_BASE,
          publicApiBase: PUBLIC_BASE,
          cognito: { endpoint: cognitoEndpointOf(region), region, userPoolId: props.userPoolId, clientId: props.userPoolClientId },
        }),
      ],
      exclude: [`${ASSETS_DIR}/*`],
      prune: false,
      cacheControl: [CacheControl.noCache()],
      distribution: this.distribution,
      distributionPaths: [
        `/${APP_PREFIX}`,
        `/${APP_PREFIX}index.html`,
        `/${APP_PREFIX}config.json`,
        `/${APP_PREFIX}favicon.svg`,
        PRIVACY_PAGE_PATH,
        `/${APP_PREFIX}${PRIVACY_DIR}/index.html`,
      ],
    });
    this.pageDeployment.node.addDependency(bundles);
    this.url = `https://${this.distribution.distributionDomainName}/${APP_PREFIX}`;
    this.oauthCallbackUrl = `https://${this.distribution.distributionDomainName}${OAUTH_CALLBACK_PATH}`;
    this.privacyUrl = `https://${this.distribution.distributionDomainName}${PRIVACY_PAGE_PATH}`;
    acknowledgeDeploymentProvider(Stack.of(this), this.bucket);
  }
}

/**
 * The qualifier of the bootstrap stack the app deploys with, which names its asset bucket
 * (`cdk-<qualifier>-assets-<account>-<region>`): the synthesizer's (`@aws-cdk/core:bootstrapQualifier` in
 * cdk.json or `-c`, as `cdk bootstrap --qualifier` set it up), else CDK's default.
 */
export function bootstrapQualifier(stack: Stack): string {
  return stack.synthesizer.bootstrapQualifier ?? (stack.node.tryGetContext(BOOTSTRAP_QUALIFIER_CONTEXT) as string | undefined) ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER;
}

/**
 * The BucketDeployment's provider function, one per stack, created beside the stack's own constructs by CDK
 * with CDK's grants: read the asset bucket, write the app bucket, invalidate the distribution.
 */
function acknowledgeDeploymentProvider(stack: Stack, appBucket: Bucket): void {
  const provider: IConstruct | undefined = stack.node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!provider) throw new Error('BucketDeployment provider not found');
  const iam5 = 'AwsSolutions-IAM5';
  const copying = 'CDK\'s BucketDeployment provider copies the built app from the asset bucket into the app bucket (object keys by wildcard, S3 action groups as CDK grants them).';
  Validations.of(provider).acknowledge(
    {
      id: nagFinding(stack, 'AwsSolutions-IAM4', 'Policy', ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole').managedPolicyArn),
      reason: 'CDK\'s BucketDeployment provider logs with the AWS-managed basic execution policy.',
    },
    ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map((action) => ({ id: `${iam5}[Action::${action}]`, reason: copying })),
    { id: nagFinding(stack, iam5, 'Resource', `arn:${Aws.PARTITION}:s3:::cdk-${bootstrapQualifier(stack)}-assets-${Aws.ACCOUNT_ID}-${Aws.REGION}/*`), reason: copying },
    { id: nagFinding(stack, iam5, 'Resource', `${appBucket.bucketArn}/*`), reason: copying },
    { id: 'AwsSolutions-L1', reason: 'CDK\'s BucketDeployment provider runtime is pinned by the CDK version, not by this stack.' },
    { id: 'Serverless-LambdaLatestVersion', reason: 'CDK\'s BucketDeployment provider runtime is pinned by the CDK version, not by this stack.' },
    { id: 'Serverless-LambdaDLQ', reason: 'CDK\'s BucketDeployment provider is a custom resource handler that reports its outcome to CloudFormation, which fails the deployment on an error or on no answer; nothing is lost silently.' },
    { id: 'Serverless-LambdaTracing', reason: 'CDK\'s BucketDeployment provider runs only during deployments, where CloudFormation reports its outcome; the service\'s own functions are traced.' },
    { id: `${iam5}[Resource::*]`, reason: 'CloudFront\'s CreateInvalidation, which the provider calls after writing index.html and config.json, takes no resource-level permission.' },
  );
}

/**
 * The app built for hosting: esbuild bundles `web/app/src/main.ts` (Preact, htm) and `app.css` into
 * content-hashed files under `assets/`, and index.html is rewritten to name them. The privacy page
 * (web/privacy) the same way, its own bundle and stylesheet beside the app's: `privacy/index.html` names them,
 * and the app's stylesheet, by absolute path (the viewer asks for `/privacy/`, served from `app/privacy/`).
 */
export function buildHostedWebApp(outDir: string): void {
  const source = join(REPO_ROOT, 'web/app');
  const privacySource = join(REPO_ROOT, 'web/privacy');
  // esbuild's synchronous API: CDK bundles assets synchronously during synthesis.
  const esbuild = requireEsbuild();
  const result = esbuild.buildSync({
    entryPoints: [join(source, 'src/main.ts'), join(source, 'app.css'), join(privacySource, 'src/privacy.ts'), join(privacySource, 'privacy.css')],
    outdir: join(outDir, ASSETS_DIR),
    entryNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: REPO_ROOT,
  });
  const outputs = Object.entries(result.metafile!.outputs);
  const named = (entry: string) => {
    const found = outputs.find(([, o]) => o.entryPoint?.endsWith(entry));
    if (!found) throw new Error(`esbuild produced no output for ${entry}`);
    return `${ASSETS_DIR}/${basename(relative(REPO_ROOT, found[0]))}`;
  };
  /** The page's `src`/`href` naming `reference`, now naming the entry's hashed output (with `prefix` before it). */
  const rewrite = (page: string, references: (readonly [reference: string, entry: string])[], prefix: string) => {
    let html = readFileSync(page, 'utf8');
    for (const [reference, entry] of references) {
      const attribute = new RegExp(`(src|href)="${reference.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`);
      if (!attribute.test(html)) throw new Error(`${relative(REPO_ROOT, page)} no longer names ${reference}`);
      html = html.replace(attribute, `$1="${prefix}${named(entry)}"`);
    }
    return html;
  };
  writeFileSync(join(outDir, 'index.html'), rewrite(join(source, 'index.html'), [['app.js', 'web/app/src/main.ts'], ['app.css', 'web/app/app.css']], ''));
  mkdirSync(join(outDir, PRIVACY_DIR));
  const privacyReferences = [['privacy.js', 'web/privacy/src/privacy.ts'], ['privacy.css', 'web/privacy/privacy.css'], ['../app/app.css', 'web/app/app.css']] as const;
  writeFileSync(join(outDir, PRIVACY_DIR, 'index.html'), rewrite(join(privacySource, 'index.html'), [...privacyReferences], `/${APP_PREFIX}`));
  // The favicon keeps its name (index.html links favicon.svg, the privacy page ../app/favicon.svg) and is deployed with the pages.
  for (const file of WEB_APP_STATIC_FILES.filter((f) => f.endsWith('.svg'))) copyFileSync(join(source, file), join(outDir, file));
}

function requireEsbuild(): typeof import('esbuild') {
  return createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
}
