import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { repoTextFiles, ROOT } from './repo-files.js';

/**
 * Nothing in the repository cites a document outside it (issue 36): the decisions the code relies on are in
 * docs/decisions.md, the public contract is the published OpenAPI document. The history (CHANGELOG.md) may
 * name what once was.
 */
const EXEMPT = new Set(['CHANGELOG.md', 'package-lock.json']);
// Built from parts, so this file does not cite them itself.
const OUTSIDE_DOCS = new RegExp(`\\b(?:${['SPEC', 'DESIGN'].join('|')})\\.md\\b`, 'g');
const UP_TO_SHARED = /((?:\.\.\/)+)shared\//g;

export function outsideCitations(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(OUTSIDE_DOCS)) found.push(`${file}: ${m[0]}`);
  for (const m of text.matchAll(UP_TO_SHARED)) {
    const target = resolve(ROOT, dirname(file), m[1]!, 'shared');
    if (relative(ROOT, target).startsWith('..')) found.push(`${file}: ${m[0]} (outside the repository)`);
  }
  return found;
}

test('the check finds a citation of a document beside the repository, and not a path inside it', () => {
  expect(outsideCitations('shared/x.ts', `// see ${'SPEC'}.md "Limits"`)).toHaveLength(1);
  expect(outsideCitations('README.md', `[the spec](../shared/${'DESIGN'}.md)`)).toHaveLength(2);
  expect(outsideCitations('functions/emails/get.ts', "import { x } from '../../shared/http/handler.js';")).toEqual([]);
  expect(outsideCitations('functions/emails/get.ts', "import { x } from '../../../shared/elsewhere.js';")).toHaveLength(1);
});

test('no file of the repository cites a document outside it (docs/decisions.md holds the decisions)', () => {
  const found = repoTextFiles()
    .filter((f) => !EXEMPT.has(f))
    .flatMap((f) => outsideCitations(f, readFileSync(resolve(ROOT, f), 'utf8')));
  expect(found).toEqual([]);
});
