import { DIRECTORY_IMPORT } from '../../shared/catalog/functions.js';
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { S3EventSourceV2 } from 'aws-cdk-lib/aws-lambda-event-sources';
import { EventType, type IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ServiceFunction } from './service-function.js';

/**
 * A deployment brings its own licensed directory: uploading the JSONL to the import bucket at `key` starts
 * a versioned, chunked import. This function only plans it (line-aligned byte ranges, one status item, one
 * message per chunk on the directory-import queue); the queue's worker writes the chunks and the finalize
 * worker switches lookups to the new version (shared/directory-import/). It lives beside the bucket and the
 * table: an S3 notification towards another stack would make the two stacks depend on each other.
 */
export interface DirectoryImportProps {
  readonly bucket: IBucket;
  readonly key: string;
  readonly table: ITable;
  /** Chunks go here; a redelivered event whose chunks are all written queues the finalize step. */
  readonly chunkQueue: IQueue;
  readonly finalizeQueue: IQueue;
  readonly stage: string;
  readonly serviceName: string;
  /** Where an upload's notification lands after Lambda's asynchronous retries fail, instead of being dropped. */
  readonly deadLetterQueue: IQueue;
}

export const DIRECTORY_IMPORT_MODULE = DIRECTORY_IMPORT.module;

export class DirectoryImport extends Construct {
  readonly fn: ServiceFunction;
  constructor(scope: Construct, id: string, props: DirectoryImportProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'Fn', {
      module: DIRECTORY_IMPORT_MODULE,
      stage: props.stage,
      serviceName: props.serviceName,
      description: 'Plan a chunked, versioned import of an uploaded directory JSONL',
      // A plan is a few dozen range reads and one message per chunk (about 3,600 at 100M people).
      timeout: Duration.minutes(5),
      memorySize: 512,
      deadLetterQueue: props.deadLetterQueue,
    });
    ServiceFunction.applyBindings(this.fn, DIRECTORY_IMPORT.bindings, {
      tables: { directory: props.table },
      queues: { 'directory-import': props.chunkQueue, 'directory-finalize': props.finalizeQueue },
      directory: { bucket: props.bucket, key: props.key },
    });
    this.fn.addEventSource(new S3EventSourceV2(props.bucket, { events: [EventType.OBJECT_CREATED], filters: [{ prefix: props.key }] }));
  }
}
