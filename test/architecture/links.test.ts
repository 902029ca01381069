// No link to a file that is not there: every relative link and image of the
// project's markdown names a file of the repository, and its #anchor a
// heading of that file (as GitHub makes them, github-slugger). The README
// and what it links to go out in the package, so their links must also land
// in the package's files, or they break on the registry's page.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import { expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { files: string[] };

/** The markdown the project writes (not its dependencies', nor generated reports). */
const documents = [
  'README.md',
  'CHANGELOG.md',
  'BENCHMARKS.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** Links and images outside code blocks and code spans: `[text](target)`, `![alt](target)`. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** The anchors GitHub gives a document's headings. */
function anchorsOf(file: string): Set<string> {
  const slugger = new GithubSlugger();
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slugger.slug(m[1]!.replace(/`/g, ''))));
}

const shipped = (file: string): boolean =>
  pkg.files.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));

test.each(documents)('%s: every relative link names a file that is there, and a heading of it', (document) => {
  const broken: string[] = [];
  for (const target of linksOf(readFileSync(path.join(root, document), 'utf8'))) {
    if (/^[a-z]+:/i.test(target)) continue; // https:, mailto: and the like
    const [file, anchor] = target.split('#') as [string, string | undefined];
    const resolved = file === '' ? document : path.posix.normalize(path.posix.join(path.posix.dirname(document), file));
    if (!existsSync(path.join(root, resolved))) broken.push(`${target}: no file ${resolved}`);
    else if (anchor && resolved.endsWith('.md') && !anchorsOf(path.join(root, resolved)).has(anchor)) {
      broken.push(`${target}: no heading #${anchor} in ${resolved}`);
    } else if (shipped(document) && !shipped(resolved)) {
      broken.push(`${target}: ${resolved} is not in the package (package.json files), but ${document} is`);
    }
  }
  expect(broken).toEqual([]);
});

test('the README is short: a start, a walkthrough and links; the reference holds the rest', () => {
  expect(readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
});
