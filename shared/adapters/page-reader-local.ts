import http from 'node:http';
import { requireEnv } from '../core/env.js';
import { isLoopbackAddress } from './web-target.js';
import { webhookTargetPolicy } from './webhook-targets.js';
import { cappedGet, httpPageReader, type Transport } from './page-reader-http.js';
import type { PageReader } from '../ports/page-reader.js';

/**
 * The page reader of the one-machine twin: the same reader and rules as in AWS, with the host table kept on
 * the machine. A host resolves through the static table (WEBHOOK_HOSTS) or, for the sites the sample web
 * serves (shared/local/sample-web.ts, at SAMPLE_WEB_PORT), to 127.0.0.1; any other host does not resolve.
 * The connection goes to the sample web's loopback port with the site's name in the Host header, and a
 * checked address that is not loopback is refused, so nothing leaves the machine.
 */
/** Where the sample web lists the hosts it serves. */
export const SAMPLE_WEB_HOSTS_PATH = '/.well-known/hosts';

const get = (port: number, host: string, path: string, limits: { maxBytes: number; timeoutMs: number; userAgent: string }) =>
  cappedGet(http.request, { host: '127.0.0.1', port, path, method: 'GET', agent: false, headers: { host, 'user-agent': limits.userAgent, connection: 'close' } }, limits);

let hosts: { port: number; set: Promise<Set<string>> } | undefined;

function sampleHosts(port: number): Promise<Set<string>> {
  if (!hosts || hosts.port !== port) {
    const set = get(port, 'localhost', SAMPLE_WEB_HOSTS_PATH, { maxBytes: 64 * 1024 * 1024, timeoutMs: 60_000, userAgent: 'local' }).then((a) => new Set(JSON.parse(a.body) as string[]));
    set.catch(() => {
      hosts = undefined;
    });
    hosts = { port, set };
  }
  return hosts.set;
}

export function localPageReader(): PageReader {
  const port = Number(requireEnv('SAMPLE_WEB_PORT'));
  const table = webhookTargetPolicy().resolver;
  const transport: Transport = (target, path, limits) => get(port, target.hostname, path, limits);
  return httpPageReader({
    resolver: async (host) => {
      const listed = await table(host);
      if (listed.length) return listed;
      return (await sampleHosts(port)).has(host.toLowerCase()) ? ['127.0.0.1'] : [];
    },
    allowLoopback: true,
    transport,
    refuseConnection: (address) => (isLoopbackAddress(address) ? null : 'the local stack reads pages on loopback addresses only'),
  });
}
