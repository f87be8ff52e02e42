import { S3Client } from '@aws-sdk/client-s3';
import { lazyClient } from './aws-client.js';

export const s3Client = lazyClient(() => new S3Client({}));
