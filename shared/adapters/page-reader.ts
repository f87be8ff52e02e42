import { isLocalMode } from '../core/env.js';
import { systemResolver } from './web-target.js';
import type { PageReader } from '../ports/page-reader.js';
import { httpPageReader } from './page-reader-http.js';
import { localPageReader } from './page-reader-local.js';

/** The page reader of this environment: public HTTPS in AWS, the sample web on the local twin. One per research step, so robots.txt is read once per site per step. */
export function pageReader(): PageReader {
  return isLocalMode() ? localPageReader() : httpPageReader({ resolver: systemResolver });
}
