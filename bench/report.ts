// Writes one benchmark's section of BENCHMARKS.md, between markers of its
// own name, leaving the other sections as they are.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const file = path.join(root, 'BENCHMARKS.md');

const HEAD = `# Benchmarks

Measured on demand (\`npm run bench\`), never in \`npm test\`. Every figure is a
ratio to an anchor measured in the same run, round by round, so a busy or a
fast machine moves both sides alike; the reported figure is the median of the
per-round ratios.
`;

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

export const machine = (): string =>
  `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}, ${process.platform} ${process.arch}`;

/** Replaces (or adds) the section `name` of BENCHMARKS.md with `body`. */
export function writeSection(name: string, body: string): void {
  const begin = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : HEAD;
  const section = `${begin}\n${body.trim()}\n${end}`;
  const at = current.indexOf(begin);
  const next =
    at === -1
      ? `${current.trimEnd()}\n\n${section}\n`
      : `${current.slice(0, at)}${section}${current.slice(current.indexOf(end) + end.length)}`;
  writeFileSync(file, next);
}
