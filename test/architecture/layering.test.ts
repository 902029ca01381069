import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
}

// The engine knows nothing of HTTP or JSON-RPC; the store makes no rules; the
// bus knows nothing of either. Adapters depend on the engine, never the reverse.
const forbidden: Record<string, RegExp[]> = {
  'src/engine': [/^koa/, /^@koa\//, /^node:http/, /\/http\//, /\/cli\//, /modelcontextprotocol/],
  'src/store': [/^koa/, /^node:http/, /\/http\//, /\/cli\//, /\/bus\//, /\/engine\//],
  'src/bus': [/^koa/, /^node:http/, /\/engine\//, /\/store\//, /\/http\//, /\/cli\//],
};

test.each(Object.entries(forbidden))('%s imports only what its layer may', (dir, patterns) => {
  const offenders = sourceFiles(dir).flatMap((file) =>
    imports(file)
      .filter((spec) => patterns.some((p) => p.test(spec)))
      .map((spec) => `${path.relative(root, file)} imports ${spec}`),
  );
  expect(offenders).toEqual([]);
});
