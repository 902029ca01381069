// What ships: the compiled bundle in dist/ (built by npm ci through
// prepare, the packages it uses inside it), run by bin/ce.js, with every
// package it still loads a run-time dependency, so `npm pack` makes a
// tarball that installs with npm i -g.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  engines: { node: string };
};

const dist = (dir = path.join(root, 'dist')): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? dist(path.join(dir, entry.name))
      : entry.name.endsWith('.js')
        ? [path.join(dir, entry.name)]
        : [],
  );

/** A package's name from an import specifier: `ajv/dist/runtime/x` → `ajv`, `@koa/router` → `@koa/router`. */
const packageOf = (specifier: string): string =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

test('bin/ce.js runs the bundle, and every package the bundle loads is a run-time dependency', () => {
  expect(pkg.bin).toEqual({ ce: 'bin/ce.js' });
  expect(readFileSync(path.join(root, 'bin/ce.js'), 'utf8')).toContain("import('../dist/ce.js')");
  expect(pkg.engines.node).toBe('>=20');
  const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
  const loaded = new Set<string>();
  for (const file of dist()) {
    const code = readFileSync(file, 'utf8');
    // The forms esbuild writes (double quotes; bundled packages' comments and messages quote otherwise):
    // a top-level import, a dynamic import, a call of a require made with createRequire.
    for (const [, , specifier] of code.matchAll(
      /(^import\s[^;]*?\bfrom\s*|^import\s*|\bimport\(|\brequire\d*\()"([^"./][^"]*)"/gm,
    )) {
      if (!builtins.has(specifier!)) loaded.add(packageOf(specifier!));
    }
  }
  // The packages are bundled, but for SQLite's native addon and Ajv's runtime helpers that the generated validators require.
  expect([...loaded].sort()).toEqual(['ajv', 'better-sqlite3']);
  expect([...loaded].filter((name) => !(name in pkg.dependencies)).sort()).toEqual([]);
  // Build tools stay development dependencies.
  for (const tool of ['tsx', 'esbuild', 'typescript', 'vitest']) expect(pkg.dependencies).not.toHaveProperty(tool);
});

test('npm pack takes bin/, dist/ (the room page too) and the example, and nothing of the sources or tests', () => {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as [{ files: { path: string }[] }];
  const files = packed.files.map((file) => file.path);
  expect(files).toEqual(
    expect.arrayContaining([
      'bin/ce.js',
      'dist/ce.js',
      'dist/start-example.js',
      'dist/page/index.html',
      'dist/page/room.js',
      'dist/page/room.css',
      'dist/page/icon.svg',
      'package.json',
    ]),
  );
  expect(files.filter((file) => /^(src|test|scripts|schemas|bench|page)\//.test(file))).toEqual([]);
});
