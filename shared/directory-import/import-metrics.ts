import { logger } from '../core/logger.js';

/**
 * CloudWatch metrics of directory imports, as Embedded Metric Format lines: Lambda ships stdout to CloudWatch
 * Logs, which turns each such line into metric data points, with no SDK client and no extra request.
 * Namespace `<service>/DirectoryImport`, one dimension `Version`, and a version-less aggregate.
 * On the twin (no CloudWatch) the same numbers go to the debug log.
 */
export type ImportMetric = 'ChunksDone' | 'PeopleWritten' | 'CompaniesWritten' | 'ChunkFailures' | 'ImportsCompleted' | 'ImportsFailed' | 'ItemsDeleted';

export function emitImportMetrics(version: string, values: Partial<Record<ImportMetric, number>>): void {
  const names = Object.keys(values) as ImportMetric[];
  if (!names.length) return;
  if (!process.env.AWS_LAMBDA_FUNCTION_NAME) {
    logger.debug('directory import metrics', { version, ...values });
    return;
  }
  const line = {
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: `${process.env.POWERTOOLS_SERVICE_NAME ?? 'people-outreach'}/DirectoryImport`,
          Dimensions: [['Version'], []],
          Metrics: names.map((Name) => ({ Name, Unit: 'Count' })),
        },
      ],
    },
    Version: version,
    ...values,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
