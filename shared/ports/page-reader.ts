/**
 * The page-reader port: how the research loop retrieves a web page it wants to check. An answer is either
 * the page (its final URL, status and text) or why it was not read, so a refusal is data the loop can
 * reason about (an unverifiable check is simply not met), never an exception that fails the job.
 */
export interface Page {
  url: string;
  status: number;
  contentType: string;
  body: string;
}

export type PageRefusal = 'not_allowed' | 'robots' | 'too_large' | 'timeout' | 'http_error' | 'unreachable';

export type PageResult = { ok: true; page: Page } | { ok: false; url: string; reason: PageRefusal; detail: string };

export interface ReadOptions {
  /** The whole read (robots.txt included) ends within this many ms, answering `timeout` if it cannot; the reader's own per-fetch cap still applies. */
  timeoutMs?: number;
}

export interface PageReader {
  read(url: string, options?: ReadOptions): Promise<PageResult>;
}
