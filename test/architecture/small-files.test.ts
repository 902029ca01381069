// Small files: no hand-written module of src/ or page/ is longer than about
// 250 lines (260 at most), so each says one thing and fits on a screen or two.
// generated/ is emitted and may be as long as the schemas make it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const MAX_LINES = 260;

const sources = (dir: string): string[] =>
  readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));

test(`no module of src/ or page/ is over ${MAX_LINES} lines`, () => {
  const long = [...sources('src'), ...sources('page')]
    .map((file) => ({ file, lines: readFileSync(path.join(root, file), 'utf8').split('\n').length }))
    .filter(({ lines }) => lines > MAX_LINES);
  expect(long).toEqual([]);
});
