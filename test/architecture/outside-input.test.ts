// Outside JSON is parsed in one place, with prototype keys refused
// (src/outside-json.ts), and no client object is merged into another with
// Object.assign, which would follow a __proto__ key into the prototype.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

const sources = (dir: string): string[] =>
  readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));

/** Lines of the project's own code matching `pattern`, as `file:line: text`. */
function occurrences(pattern: RegExp, except: string[] = []): string[] {
  return [...sources('src'), ...sources('bin'), ...sources('scripts')]
    .filter((file) => !except.includes(file))
    .flatMap((file) =>
      readFileSync(path.join(root, file), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          pattern.test(line) && !/^\s*(\/\/|\*)/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
}

test('no Object.assign anywhere in the sources: inputs are built from own properties', () => {
  expect(occurrences(/Object\.assign\s*\(/)).toEqual([]);
});

test('JSON.parse only where the text is the sidecar’s own or the project’s own files', () => {
  expect(
    occurrences(/JSON\.parse\s*\(/, [
      'src/outside-json.ts', // the one parser of outside JSON, which names a refused key
      'src/engine/row-mapping.ts', // the sidecar's JSON columns, written by the engine from validated input
      'src/engine/sessions.ts', // the sidecar's capabilities column
      'src/engine/settings.ts', // the sidecar's settings, written by the engine from validated input
      'src/engine/proposals/mergeable.ts', // the sidecar's mergeable column, written by the engine
      'src/engine/proposals/read-proposals.ts', // the same column, read back
      'scripts/generate/bundle.ts', // the project's own schema files
    ]),
  ).toEqual([]);
});
