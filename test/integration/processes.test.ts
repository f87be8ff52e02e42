import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../support/local.js';
import { isAlive, until } from '../support/probes.js';

/** A process that starts DynamoDB Local on `dir` and then waits to be killed. */
function owner(dir: string) {
  const script = `import { startDynamoLocal } from './shared/local/processes.ts'; await startDynamoLocal({ root: process.cwd(), dbPath: ${JSON.stringify(dir)} }); console.log('up'); setInterval(() => {}, 1000);`;
  // Node itself with tsx's loader (not the tsx launcher, which would be a second process): the pid killed
  // is the one that owns the JVM.
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const up = new Promise<void>((res, rej) => {
    child.stdout!.on('data', (d) => String(d).includes('up') && res());
    child.once('exit', (code) => rej(new Error(`owner exited with ${code}`)));
  });
  return { child, up };
}

test('a SIGKILLed owner does not leave DynamoDB Local running on its data directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ddb-owner-'));
  let first: ReturnType<typeof owner> | undefined;
  try {
    first = owner(dir);
    await first.up;
    const pidFile = join(dir, 'dynamodb-local.pid');
    expect(existsSync(pidFile)).toBe(true);
    const jvm = Number(readFileSync(pidFile, 'utf8'));
    expect(isAlive(jvm)).toBe(true);
    first.child.kill('SIGKILL');
    // The watchdog outside the killed process ends the JVM within a couple of seconds.
    expect(await until(() => !isAlive(jvm), 10_000)).toBe(true);
  } finally {
    first?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
