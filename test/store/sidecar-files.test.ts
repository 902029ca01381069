// Making a sidecar's file: made once, owner's read and write always kept;
// a file another process made a moment before is left as it is.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { artifactBits, createOwnerOnly } from '../../src/store/sidecar-files.js';
import { tempDir } from '../helpers/room.js';

test('createOwnerOnly makes the file with the bits given, and says false for one another process made first', () => {
  const file = path.join(tempDir(), 'notes.md.commonroom.db');
  expect(createOwnerOnly(file, 0o640)).toBe(true);
  expect(statSync(file).mode & 0o777).toBe(0o640);
  writeFileSync(file, 'made by another');
  expect(createOwnerOnly(file, 0o600)).toBe(false);
  expect(readFileSync(file, 'utf8')).toBe('made by another');
  expect(statSync(file).mode & 0o777).toBe(0o640);
});

test("artifactBits: the file's read and write bits, its owner's read and write always", () => {
  const dir = tempDir();
  const file = (mode: number) => {
    const at = path.join(dir, `f${mode.toString(8)}.md`);
    writeFileSync(at, '# x\n', { mode });
    return at;
  };
  expect(artifactBits(file(0o444))).toBe(0o644);
  expect(artifactBits(file(0o640))).toBe(0o640);
  expect(artifactBits(file(0o755))).toBe(0o644);
  expect(artifactBits(path.join(dir, 'none.md'))).toBe(0o600);
});
