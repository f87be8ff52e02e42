import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ROOT } from './repo-files.js';

/** Every relative link of the README and the docs pages resolves to a file, and to a heading when it names one. */

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(markdown, false).split('\n')) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = h[1]!
        .replace(/`/g, '')
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-');
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

/** Fenced blocks (and, for links, inline code) hold examples, not headings or links. */
function withoutCode(markdown: string, inline = true): string {
  let inFence = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : inline ? line.replace(/`[^`]*`/g, '') : line;
    })
    .join('\n');
}

export function brokenLinks(file: string, markdown: string, read: (path: string) => string | null): string[] {
  const broken: string[] = [];
  for (const m of withoutCode(markdown).matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const link = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: …
    const [path, anchor] = link.split('#') as [string, string | undefined];
    const target = path === '' ? file : join(dirname(file), decodeURIComponent(path));
    const text = read(target);
    if (text === null) {
      broken.push(`${file}: ${link} (no such file)`);
      continue;
    }
    if (anchor && target.endsWith('.md') && !anchorsOf(text).has(anchor)) broken.push(`${file}: ${link} (no such heading)`);
  }
  return broken;
}

const readRepo = (path: string): string | null => {
  const full = resolve(ROOT, path);
  if (!existsSync(full)) return null;
  return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
};

test('the check finds a missing file and a missing heading, and accepts what exists', () => {
  const files: Record<string, string> = { 'docs/a.md': '# A\n\n## Two words, one `code`\n', 'README.md': '' };
  const read = (p: string) => files[p] ?? null;
  expect(brokenLinks('README.md', '[a](docs/a.md#two-words-one-code) [top](#) `[y](inline.md)`\n```\n[x](nowhere.md)\n```', read)).toEqual([]);
  expect(brokenLinks('README.md', '[a](docs/b.md) [b](docs/a.md#three)', read)).toEqual(['README.md: docs/b.md (no such file)', 'README.md: docs/a.md#three (no such heading)']);
});

test('every relative link in README.md, CHANGELOG.md and docs/*.md resolves, anchors included', () => {
  const pages = ['README.md', 'CHANGELOG.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const broken = pages.filter((p) => existsSync(join(ROOT, p))).flatMap((p) => brokenLinks(p, readFileSync(join(ROOT, p), 'utf8'), readRepo));
  expect(broken).toEqual([]);
});
