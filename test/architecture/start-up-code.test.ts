// What a start loads, read off the compiled bundles (dist/, built by the
// suite's setup). bin/ce.js runs dist/ce.js, the whole command line, for
// every command but `ce serve`: it loads the chunks it imports statically,
// so the engine (SQLite, the validators) stays out of them and is imported
// when a command needs a room. For `ce serve` bin/ce.js requires
// dist/serve.cjs, which runs dist/chunks/serve.cjs with V8's code cache
// (src/cli/code-cache.ts): one CommonJS file with the room's every module,
// better-sqlite3's JavaScript too, and no other command: node's module
// loader costs about 0.4 ms a file, and split into chunks a start read 29.
// The modules a room runs only at a first use (the REST door, Koa's app, the
// docs) are in that file, run when first asked for; the packages they bring
// (Koa and its router, markdown-it, prom-client, pino-pretty) are not, but
// in dist/lazy/, CommonJS files required or imported then as `#lazy/NAME`,
// and so is the OpenAPI document. Nor does a start compile the validators of
// requests: each is read from a file of its own beside the chunks
// (dist/chunks/input-validators/) at its first call. Packages that require
// at their load what they need only for a case a start never meets (raw-body,
// pino, sonic-boom) require it at its first use (scripts/build.js). The
// shipped file has neither comments nor spaces; what each test reads of its
// modules it reads off the same bundle as esbuild writes it, each module
// under a comment naming its source, which the build leaves in
// node_modules/.cache/ce-build/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { expect, test } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const dist = path.join(root, 'dist');
const serveBundle = path.join(dist, 'chunks', 'serve.cjs');
/** The same bundle before its comments and spaces went: each module under a comment naming its source. */
const readableServe = path.join(root, 'node_modules', '.cache', 'ce-build', 'serve.cjs');

/** The specifiers a file imports statically (at the top, read before it runs). */
const staticImports = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\b[^;]*?["']([^"']+)["']/gms)].map((m) => m[1]!);

/** The specifiers a CommonJS file requires by name, `require("node:fs")`. */
const requires = (file: string): string[] =>
  [...readFileSync(file, 'utf8').matchAll(/\brequire\d*\("([^"]+)"\)/g)].map((m) => m[1]!);

/** A bundle and every file of ours it imports statically. */
function staticallyLoaded(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const specifier of staticImports(file)) {
    if (specifier.startsWith('.')) staticallyLoaded(path.resolve(path.dirname(file), specifier), seen);
  }
  return seen;
}

/** The source files esbuild marks in the bundles, `// src/engine/room.ts` and the like. */
const sourcesIn = (files: Iterable<string>): string[] =>
  [...files].flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/^\/\/ ((?:src|generated|node_modules)\/\S+)$/gm)].map((m) => m[1]!),
  );

/** The text esbuild put in a bundle for each source file, by the source's path. */
function modulesIn(file: string): Map<string, string> {
  const parts = readFileSync(file, 'utf8').split(/^\/\/ ((?:src|generated|node_modules)\/\S+)$/m);
  const modules = new Map<string, string>();
  for (let i = 1; i < parts.length; i += 2) modules.set(parts[i]!, parts[i + 1]!);
  return modules;
}

const commandLine = staticallyLoaded(path.join(dist, 'ce.js'));
const serve = sourcesIn([readableServe]);

test('bin/ce.js runs dist/serve.cjs for ce serve, and dist/ce.js for every other command', () => {
  const bin = readFileSync(path.join(root, 'bin/ce.js'), 'utf8');
  expect(bin).toContain("if (process.argv[2] === 'serve') require('../dist/serve.cjs');");
  expect(bin).toContain("else void import('../dist/ce.js');");
  // A CommonJS program: node sets up no module loader to start it.
  expect(JSON.parse(readFileSync(path.join(root, 'bin/package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
  expect(sourcesIn(commandLine)).toContain('src/cli/main.ts');
  // dist/serve.cjs is the code cache's runner, and runs the serve bundle.
  const runner = path.join(dist, 'serve.cjs');
  expect([...new Set(sourcesIn([runner]))].sort()).toEqual([
    'src/cli/code-cache.ts',
    'src/cli/serve-start.ts',
    'src/store/durable-file.ts',
  ]);
  expect(requires(runner).filter((specifier) => !isBuiltin(specifier))).toEqual([]);
  expect(readFileSync(runner, 'utf8')).toContain('"./chunks/serve.cjs"');
  expect(serve).toContain('src/cli/serve-bin.ts');
});

test('every other ce command starts without the engine, the validators, the HTTP server or Koa', () => {
  // A constant or a parser of src/http or src/store may come along; their modules that open or serve a room may not.
  expect(
    sourcesIn(commandLine).filter((source) =>
      /^(src\/engine\/|src\/store\/(sidecar|room-store)|src\/http\/(server|app|mcp\/post)|generated\/.*validators|node_modules\/(koa|@koa|ajv)\/)/.test(
        source,
      ),
    ),
  ).toEqual([]);
});

test('ce serve starts from one file: it requires nothing of ours but the lazy files, and holds no other command', () => {
  // And Ajv's runtime helpers, which the validators of query strings require when the REST door first runs.
  expect(
    requires(serveBundle).filter(
      (specifier) => !isBuiltin(specifier) && !/^(#lazy\/|ajv\/dist\/runtime\/)/.test(specifier),
    ),
  ).toEqual([]);
  expect(serve).toEqual(
    expect.arrayContaining([
      'src/cli/serve-main.ts',
      'src/engine/room.ts',
      'src/http/mcp/post.ts',
      'node_modules/better-sqlite3/lib/database.js',
    ]),
  );
  expect(
    serve.filter((source) =>
      /^src\/cli\/(main|commands|status|edit|open|backup|bridge|completion|help-topics)\.ts$/.test(source),
    ),
  ).toEqual([]);
});

test("ce serve's file is the readable bundle without comments or spaces, its names kept", () => {
  const shipped = readFileSync(serveBundle, 'utf8');
  const readable = readFileSync(readableServe, 'utf8');
  expect(shipped.length).toBeLessThan(readable.length * 0.7);
  expect(sourcesIn([serveBundle])).toEqual([]);
  expect(requires(serveBundle).sort()).toEqual(requires(readableServe).sort());
  // A stack trace the room logs names the functions it went through.
  for (const name of ['function openRoom(', 'GroupCommit=class{', 'function serveRoom('])
    expect(shipped).toContain(name);
});

test("ce serve's file runs with cached code: it has no import(), and is ASCII", () => {
  const text = readFileSync(serveBundle, 'utf8');
  // Node.js 20 gives a script run with cached code no import() (scripts/build.js makes each a require()).
  expect(text).not.toMatch(/\bimport\(/);
  // Node holds an ASCII file as a one-byte string: anything else (a comment's arrow) doubles it, 2 ms of a start.
  expect(text.match(/[^\x00-\x7f]/g) ?? []).toEqual([]);
});

test('the packages a room needs only at a first use are in dist/lazy/, imported by no bundle statically', () => {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { imports: Record<string, string> };
  expect(pkg.imports).toEqual({ '#lazy/*': './dist/lazy/*.cjs' });
  // Their code is in no bundle of ours.
  expect(
    [...serve, ...sourcesIn(commandLine)].filter((source) =>
      /^node_modules\/(koa|@koa|mime-db|markdown-it|prom-client|pino-pretty)\//.test(source),
    ),
  ).toEqual([]);
  const lazy = new Set<string>();
  const bundles = [dist, path.join(dist, 'chunks')].flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => /\.c?js$/.test(name))
      .map((name) => path.join(dir, name)),
  );
  expect(bundles).toContain(serveBundle);
  for (const file of bundles) {
    for (const [, name] of readFileSync(file, 'utf8').matchAll(/\b(?:import|require)\("#lazy\/([^"]+)"\)/g))
      lazy.add(name!);
    expect(staticImports(file).filter((specifier) => specifier.startsWith('#'))).toEqual([]);
  }
  expect([...lazy].sort()).toEqual([
    'koa',
    'koa-router',
    'markdown-it',
    'openapi-document',
    'pino-pretty',
    'prom-client',
  ]);
  // The OpenAPI document too (200 KB to compile), read at the first request for it.
  expect(serve).not.toContain('generated/openapi.json');
  for (const name of lazy) expect(existsSync(path.join(dist, 'lazy', `${name}.cjs`)), name).toBe(true);
});

test('ce serve compiles no validator at its start: each validator of requests is read at its first call', () => {
  expect(serve).toContain('generated/input-validators.js');
  // Ajv's code of a request's validator (the schemaPath of each error it can make) is not in the file; the
  // REST door's validators of query strings are, run (as the door is) at the first REST request.
  for (const [source, text] of modulesIn(readableServe)) {
    if (source !== 'generated/query-validators.js') expect(text, source).not.toContain('schemaPath: "#/');
  }
  expect(serve).not.toContain('generated/validators.js');
});

test('the validators of requests ship beside the chunks, one module each, as generated', () => {
  const generated = path.join(root, 'generated/input-validators');
  const shipped = path.join(dist, 'chunks', 'input-validators');
  const names = readdirSync(generated).sort();
  expect(names).toContain('TaskRefInput.cjs');
  expect(readdirSync(shipped).sort()).toEqual(names);
  for (const name of names)
    expect(readFileSync(path.join(shipped, name), 'utf8')).toBe(readFileSync(path.join(generated, name), 'utf8'));
});

test('the packages ce serve loads require what only a case a start never meets needs at its first use', () => {
  const modules = modulesIn(readableServe);
  const rawBody = modules.get('node_modules/raw-body/index.js');
  expect(rawBody).toBeDefined();
  // http-errors makes a class for every HTTP status as it loads: about 6 ms of a start (scripts/build.js).
  expect(rawBody).toContain('return require_http_errors().apply(this, arguments);');
  expect(rawBody).not.toMatch(/var (createError|iconv) = require_/);
  // node's worker_threads and assert (and what they load) are about 1 ms each.
  expect(modules.get('node_modules/pino/lib/tools.js')).not.toMatch(/^\s*(var|const) \{ isMainThread \} = require/m);
  expect(modules.get('node_modules/pino/lib/transport.js')).toContain(
    'function ThreadStream(options) {\n      return new (require_thread_stream())(options);',
  );
  expect(modules.get('node_modules/sonic-boom/index.js')).toContain('return require("assert").apply(this, arguments);');
  // thread-stream requires them, and is itself required only by a transport's first stream.
  for (const [source, text] of [...modules].filter(([source]) => !source.startsWith('node_modules/thread-stream/'))) {
    expect(text.match(/^ {4}var \w+ = require\("(node:)?(worker_threads|assert)"\)/gm) ?? [], source).toEqual([]);
  }
});
