// What ships: the compiled bundle in dist/ (built by npm pack through
// prepack, the packages it uses inside it), run by bin/ce.js, with every
// package it still loads a run-time dependency, so `npm pack` makes a
// tarball that installs with npm i -g.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  engines: { node: string };
};

const dist = (dir = path.join(root, 'dist')): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? dist(path.join(dir, entry.name))
      : /\.c?js$/.test(entry.name)
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
  const bin = readFileSync(path.join(root, 'bin/ce.js'), 'utf8');
  expect(bin).toContain("require('../dist/serve.cjs')");
  expect(bin).toContain("import('../dist/ce.js')");
  expect(pkg.engines.node).toBe('>=20');
  const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
  const loaded = new Set<string>();
  const ownImports = new Set<string>();
  for (const file of dist()) {
    const code = readFileSync(file, 'utf8');
    // The forms esbuild writes (double quotes; bundled packages' comments and messages quote otherwise):
    // a top-level import, a dynamic import, a call of a require made with createRequire.
    for (const [, , specifier] of code.matchAll(
      /(^import\s[^;]*?\bfrom\s*|^import\s*|\bimport\(|\brequire\d*\()"([^"./][^"]*)"/gm,
    )) {
      if (specifier!.startsWith('#')) ownImports.add(specifier!);
      else if (!builtins.has(specifier!)) loaded.add(packageOf(specifier!));
    }
  }
  // The packages are bundled, but for SQLite's native addon and Ajv's runtime helpers that the generated validators require.
  expect([...loaded].sort()).toEqual(['ajv', 'better-sqlite3']);
  expect([...loaded].filter((name) => !(name in pkg.dependencies)).sort()).toEqual([]);
  // The package's own imports (package.json's "imports"): the packages bundled in dist/lazy/, each a file there.
  expect(ownImports.size).toBeGreaterThan(0);
  for (const specifier of ownImports) {
    expect(specifier).toMatch(/^#lazy\/[a-z-]+$/);
    expect(existsSync(path.join(root, 'dist', 'lazy', `${specifier.slice('#lazy/'.length)}.cjs`)), specifier).toBe(
      true,
    );
  }
  // Build tools stay development dependencies.
  for (const tool of ['tsx', 'esbuild', 'typescript', 'vitest']) expect(pkg.dependencies).not.toHaveProperty(tool);
});

/** The files the README shows as images. */
const readmeImages = (): string[] =>
  [...readFileSync(path.join(root, 'README.md'), 'utf8').matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map(([, src]) => src!);

test('the package installs no script of its own: only SQLite builds at install; dist/ is built by prepack', () => {
  const scripts = (pkg as unknown as { scripts: Record<string, string> }).scripts;
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts).not.toHaveProperty(hook);
  expect(scripts.prepack).toBe('node scripts/build.js');
  expect(readmeImages().length).toBeGreaterThan(0);
});

test('npm pack takes bin/, dist/ (the room page too) and the example, and nothing of the sources or tests', () => {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as [{ files: { path: string }[] }];
  const files = packed.files.map((file) => file.path);
  expect(files).toEqual(
    expect.arrayContaining([
      'bin/ce.js',
      'bin/package.json',
      'dist/ce.js',
      'dist/serve.cjs',
      'dist/chunks/serve.cjs',
      'dist/lazy/koa.cjs',
      'dist/start-example.js',
      'dist/chunks/input-validators/TaskRefInput.cjs',
      'dist/page/index.html',
      'dist/page/room.js',
      'dist/page/room.css',
      'dist/page/icon.svg',
      'package.json',
      'README.md',
      'LICENSE',
      'CHANGELOG.md',
      // The README's images go with it, so it reads whole on the registry's page.
      ...readmeImages(),
    ]),
  );
  expect(files.filter((file) => /^(src|test|scripts|schemas|bench|page)\//.test(file))).toEqual([]);
});

test('the packed tarball installs into an empty prefix: its ce answers --version, --help and serve --help, and LICENSE and the README images are there', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ce-pack-'));
  try {
    // dist/ is built (the suite's global setup): packed as it is, while other tests run it.
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
        cwd: root,
        encoding: 'utf8',
      }),
    ) as [{ filename: string }];
    const prefix = path.join(dir, 'prefix');
    // From npm's cache where it can; SQLite's native build is not needed by --version or --help.
    execFileSync(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix,
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        path.join(dir, packed.filename),
      ],
      { cwd: dir, encoding: 'utf8', stdio: 'pipe' },
    );
    const ce = path.join(prefix, 'bin', 'ce');
    expect(execFileSync(ce, ['--version'], { encoding: 'utf8' })).toBe(`${pkg.version}\n`);
    expect(execFileSync(ce, ['--help'], { encoding: 'utf8' })).toMatch(/^Usage: ce /);
    // ce serve runs from a bundle of its own.
    expect(execFileSync(ce, ['serve', '--help'], { encoding: 'utf8' })).toMatch(/^Usage: ce serve \[options\] <file>/);
    const installed = path.join(prefix, 'lib', 'node_modules', 'commonroom');
    for (const file of ['LICENSE', 'CHANGELOG.md', 'README.md', ...readmeImages()]) {
      expect(existsSync(path.join(installed, file)), file).toBe(true);
    }
    expect(existsSync(path.join(installed, 'test'))).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
