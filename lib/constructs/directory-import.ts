import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { S3EventSourceV2 } from 'aws-cdk-lib/aws-lambda-event-sources';
import { EventType, type IBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ServiceFunction } from './service-function.js';

/**
 * A deployment brings its own licensed directory: uploading the JSONL (gzipped) to the import bucket at
 * `key` loads it into the directory table (the same import `npm start` runs locally), and the search
 * worker builds its index from the same object at cold start. It lives beside the bucket and the table:
 * an S3 notification towards another stack would make the two stacks depend on each other.
 */
export interface DirectoryImportProps {
  readonly bucket: IBucket;
  readonly key: string;
  readonly table: ITable;
  readonly stage: string;
  readonly serviceName: string;
}

export const DIRECTORY_IMPORT_MODULE = 'functions/directory/import.ts';

export class DirectoryImport extends Construct {
  readonly fn: ServiceFunction;
  constructor(scope: Construct, id: string, props: DirectoryImportProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'Fn', {
      module: DIRECTORY_IMPORT_MODULE,
      stage: props.stage,
      serviceName: props.serviceName,
      description: 'Load an uploaded directory JSONL into the directory table',
      timeout: Duration.minutes(15),
      memorySize: 1024,
    });
    this.fn.bindTable(props.table, 'directory', 'readwrite');
    this.fn.bindDirectorySource({ bucket: props.bucket, key: props.key });
    this.fn.addEventSource(new S3EventSourceV2(props.bucket, { events: [EventType.OBJECT_CREATED], filters: [{ prefix: props.key }] }));
  }
}
