/**
 * Start-up of the one-machine twin at a directory size: `tsx bin/local.ts` on a fresh DATA_DIR until
 * `/healthz` answers 200 (first start: generation, index build, snapshot), then again on the same
 * DATA_DIR (restart: snapshot load), then once more after moving DATA_DIR. Beside them, the physical
 * floors on this machine: reading the snapshot file's bytes and hashing the directory file.
 *   tsx bin/bench-startup.ts [--people 100000]   → one JSON line on stdout
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../shared/local/processes.js';
import { fileVersion, loadDirectoryFile } from '../shared/search-engine/index-source.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { people: { type: 'string', default: '100000' } } });
const people = Number(values.people);

async function startOnce(dataDir: string): Promise<{ ready_ms: number; load: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bin/local.ts')], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), DIRECTORY_PEOPLE: String(people) },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the local stack exited with ${child.exitCode} before it was ready`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
      if (ok) return { ready_ms: Math.round(performance.now() - started), load: Number(loadavg()[0]!.toFixed(1)) };
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

const base = mkdtempSync(join(tmpdir(), 'bench-startup-'));
try {
  const dataDir = join(base, 'data');
  const first = await startOnce(dataDir);
  const restart = await startOnce(dataDir);
  const moved = join(base, 'moved');
  renameSync(dataDir, moved);
  const afterMove = await startOnce(moved);

  const file = join(moved, 'directory.jsonl');
  const snapshot = join(moved, 'index', readdirSync(join(moved, 'index'))[0]!);
  let t = performance.now();
  readFileSync(snapshot);
  const readSnapshotMs = performance.now() - t;
  t = performance.now();
  createHash('sha256').update(readFileSync(file)).digest();
  const hashInMemoryMs = performance.now() - t;
  t = performance.now();
  await fileVersion(file);
  const hashStreamedMs = performance.now() - t;
  const heapBefore = process.memoryUsage().heapUsed;
  t = performance.now();
  const loaded = await loadDirectoryFile(file);
  const loadMs = performance.now() - t;
  globalThis.gc?.();
  const mem = process.memoryUsage();
  console.log(
    JSON.stringify({
      people,
      first_start_ms: first.ready_ms,
      restart_ms: restart.ready_ms,
      moved_restart_ms: afterMove.ready_ms,
      load_average: [first.load, restart.load, afterMove.load],
      directory_file_mb: Math.round(statSync(file).size / 2 ** 20),
      snapshot_mb: Math.round(statSync(snapshot).size / 2 ** 20),
      index_load_ms: Math.round(loadMs),
      index_from_snapshot: loaded.fromSnapshot,
      heap_after_load_mb: Math.round((mem.heapUsed - heapBefore) / 2 ** 20),
      external_after_load_mb: Math.round(mem.external / 2 ** 20),
      read_snapshot_bytes_ms: Math.round(readSnapshotMs),
      sha256_streamed_ms: Math.round(hashStreamedMs),
      sha256_in_memory_ms: Math.round(hashInMemoryMs),
    }),
  );
} finally {
  rmSync(base, { recursive: true, force: true });
}
