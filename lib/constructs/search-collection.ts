import { CfnOutput, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import { CfnAccessPolicy, CfnCollection, CfnSecurityPolicy } from 'aws-cdk-lib/aws-opensearchserverless';
import { Construct } from 'constructs';
import type { ServiceFunction } from './service-function.js';

export interface SearchCollectionProps {
  /** Names the collection and its policies (`people-<stage>…`; OpenSearch Serverless allows 32 characters). */
  readonly stage: string;
}

/**
 * The people search on Amazon OpenSearch Serverless (`cdk deploy -c searchEngine=opensearch`): a `SEARCH`
 * collection with its encryption policy (AWS-owned key), its network policy, and — created by the API stack,
 * where the search worker's role lives — the data-access policy. Every request is SigV4-signed by a function
 * role: reaching the endpoint grants nothing without the data-access policy and `aoss:APIAccessAll`.
 */
export class SearchCollection extends Construct {
  readonly collection: CfnCollection;
  readonly name: string;
  private readonly publishers: IRole[] = [];
  private readonly indexers: IRole[] = [];
  private readonly erasers: IRole[] = [];

  constructor(scope: Construct, id: string, props: SearchCollectionProps) {
    super(scope, id);
    this.name = `people-${props.stage}`;
    const resources = [`collection/${this.name}`];
    const encryption = new CfnSecurityPolicy(this, 'Encryption', {
      name: `${this.name}-enc`,
      type: 'encryption',
      description: 'People search: encrypted at rest with an AWS-owned key',
      policy: JSON.stringify({ Rules: [{ ResourceType: 'collection', Resource: resources }], AWSOwnedKey: true }),
    });
    // The functions run outside a VPC, so the endpoint is public; access still needs a signed request from a
    // role the data-access policy names. Dashboards stay closed.
    const network = new CfnSecurityPolicy(this, 'Network', {
      name: `${this.name}-net`,
      type: 'network',
      description: 'People search: the collection endpoint (signed requests only), no dashboards',
      policy: JSON.stringify([{ Rules: [{ ResourceType: 'collection', Resource: resources }], AllowFromPublic: true }]),
    });
    this.collection = new CfnCollection(this, 'Collection', { name: this.name, type: 'SEARCH', standbyReplicas: 'ENABLED', description: 'People search index, one index per directory version behind the people alias' });
    this.collection.addResourceDependency(encryption);
    this.collection.addResourceDependency(network);
    new CfnOutput(this, 'Endpoint', { value: this.collection.attrCollectionEndpoint, description: 'OpenSearch Serverless endpoint of the people search' });
  }

  /** Environment that selects the OpenSearch engine, and the IAM half of the access (the data-access policy is the other). */
  private bind(fn: ServiceFunction): void {
    fn.addEnvironment('SEARCH_ENGINE', 'opensearch');
    fn.addEnvironment('OPENSEARCH_URL', this.collection.attrCollectionEndpoint);
    fn.addEnvironment('OPENSEARCH_SIGV4_SERVICE', 'aoss');
    fn.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['aoss:APIAccessAll'], resources: [this.collection.attrArn] }));
  }

  /** Searches and lookups through the `people` alias. */
  bindSearcher(fn: ServiceFunction): IRole {
    this.bind(fn);
    return fn.role!;
  }

  /** Creates a version's index and writes its documents (the import's chunk worker). */
  bindIndexer(fn: ServiceFunction): void {
    this.bind(fn);
    this.indexers.push(fn.role!);
  }

  /** Deletes an erased person's documents from the indices the alias names (a privacy request's confirm). */
  bindEraser(fn: ServiceFunction): void {
    this.bind(fn);
    this.erasers.push(fn.role!);
  }

  /** Counts a version's documents, swaps the alias to it and deletes replaced indices (the import's finalize step). */
  bindPublisher(fn: ServiceFunction): void {
    this.bind(fn);
    this.publishers.push(fn.role!);
  }

  /** The data-access policy: searchers read the people indices, indexers create and load them, publishers alias and delete them. */
  accessPolicy(scope: Construct, searchers: IRole[]): CfnAccessPolicy {
    const indices = [`index/${this.name}/people*`];
    const collection = [`collection/${this.name}`];
    const rule = (principals: IRole[], indexPermissions: string[], collectionPermissions: string[]) => ({
      Rules: [
        { ResourceType: 'index', Resource: indices, Permission: indexPermissions },
        ...(collectionPermissions.length ? [{ ResourceType: 'collection', Resource: collection, Permission: collectionPermissions }] : []),
      ],
      Principal: principals.map((r) => r.roleArn),
    });
    const rules = [rule(searchers, ['aoss:ReadDocument', 'aoss:DescribeIndex'], ['aoss:DescribeCollectionItems'])];
    if (this.indexers.length) rules.push(rule(this.indexers, ['aoss:CreateIndex', 'aoss:DescribeIndex', 'aoss:WriteDocument'], ['aoss:DescribeCollectionItems']));
    // An erasure reads which indices the alias names (GET _alias, a collection item) and deletes documents (_bulk).
    if (this.erasers.length) rules.push(rule(this.erasers, ['aoss:DescribeIndex', 'aoss:WriteDocument'], ['aoss:DescribeCollectionItems']));
    if (this.publishers.length) {
      // Aliases are collection items: `POST _aliases` needs CreateCollectionItems, and moving or removing one
      // Update/DeleteCollectionItems (AWS "Supported operations … in OpenSearch Serverless"); `_count` is a
      // ReadDocument, dropping the replaced index a DeleteIndex.
      rules.push(
        rule(this.publishers, ['aoss:DeleteIndex', 'aoss:DescribeIndex', 'aoss:ReadDocument'], ['aoss:CreateCollectionItems', 'aoss:UpdateCollectionItems', 'aoss:DeleteCollectionItems', 'aoss:DescribeCollectionItems']),
      );
    }
    return new CfnAccessPolicy(scope, 'SearchCollectionAccess', {
      name: `${this.name}-access`,
      type: 'data',
      description: `People search data access (${Stack.of(scope).stackName})`,
      policy: Stack.of(scope).toJsonString(rules),
    });
  }
}
