/**
 * Injected at the top of every function bundle (`BUNDLING.inject`): stack traces name the service's source
 * files and lines, as `--enable-source-maps` would, but the map is read when a trace is first formatted
 * rather than at every cold start. Node reads, parses and indexes the map of each module it loads with that
 * flag (≈ 12 ms CPU for a 260 KB bundle on Node 22, `npm run bench`); most containers never format a trace.
 * A frame whose file has no readable `.map` beside it keeps its generated position.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

const maps = new Map<string, SourceMap | null>();

function mapOf(fileUrl: string): SourceMap | null {
  if (!maps.has(fileUrl)) {
    try {
      maps.set(fileUrl, new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(fileUrl)}.map`, 'utf8'))));
    } catch {
      maps.set(fileUrl, null);
    }
  }
  return maps.get(fileUrl)!;
}

/** `file:///var/task/index.mjs:37:29893` → `shared/core/env.ts:12:11` (the map's sources, relative). */
function original(fileUrl: string, line: number, column: number): string | null {
  const entry = mapOf(fileUrl)?.findEntry(line - 1, column - 1);
  if (!entry || !('originalSource' in entry)) return null;
  const source = entry.originalSource.replace(/^(?:file:\/\/)?(?:.*?\/)?(?=(?:shared|functions|node_modules)\/)/, '');
  return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
}

const GENERATED_POSITION = /(file:\/\/[^\s()]+\.mjs):(\d+):(\d+)/;

function frame(site: NodeJS.CallSite): string {
  const text = site.isAsync() ? `async ${String(site)}` : String(site);
  return text.replace(GENERATED_POSITION, (whole, url: string, line: string, column: string) => original(url, Number(line), Number(column)) ?? whole);
}

if (!process.execArgv.includes('--enable-source-maps') && !process.env.NODE_OPTIONS?.includes('--enable-source-maps')) {
  Error.prepareStackTrace = (error: Error, sites: NodeJS.CallSite[]) =>
    [Error.prototype.toString.call(error), ...sites.map((site) => `    at ${frame(site)}`)].join('\n');
}
