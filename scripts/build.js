// npm run build (and npm pack through prepack, npm start, the test suite's
// setup): bundles with esbuild, into dist/,
// - the ce command line and the npm start example (ce.js, start-example.js
//   and their chunks): code a command loads only when it runs (the engine,
//   the HTTP server) goes to chunks of its own, so `ce --help` reads neither
//   SQLite nor the validators;
// - `ce serve` alone, as one CommonJS file (chunks/serve.cjs), which
//   bin/ce.js runs through serve.cjs with V8's code cache;
// - the packages a room imports only at a first use, a file each (lazy/);
// - the room's page (page/), for browsers: everything the room serves at /,
//   nothing fetched from elsewhere.
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/** What the build leaves for the tests and the profile, not shipped. */
const BUILD_CACHE = 'node_modules/.cache/ce-build';

rmSync('dist', { recursive: true, force: true }); // no chunk of an earlier build stays behind

// raw-body requires iconv-lite, and iconv-lite its code pages (half a megabyte
// of tables) once a decoder is asked for. The room reads bodies as bytes
// (raw-body is given no encoding) and decodes UTF-8 itself, so no decoder is
// ever asked for: the tables are left out of the bundle, which every start
// would read and compile. Asked for one all the same, iconv-lite says the
// encoding is not recognized.
const withoutCodePages = {
  name: 'without-iconv-code-pages',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/encodings$/ }, ({ importer }) =>
      /iconv-lite[\\/]lib[\\/]index\.js$/.test(importer)
        ? { path: 'iconv-code-pages', namespace: 'left-out' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'left-out' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

// Dependencies that require, as they load, what they need only for a case a
// room's start never meets: each is required at its first use instead. Exact
// versions are pinned; a package whose lines differ fails the build here
// rather than starting slower.
// - raw-body: http-errors and iconv-lite, only to make an error (a body too
//   large, cut short, of the wrong length) or a decoder (never: see above).
//   http-errors makes a class for every HTTP status as it loads, about 6 ms
//   of each start (BENCHMARKS.md).
// - pino: worker_threads and thread-stream, only for a log written by a
//   transport in a worker (the room writes its own stream) or through a
//   sonic-boom it makes (the same); sonic-boom, which pino requires all the
//   same: assert, only to check a descriptor as it flushes.
// Each of node's own modules left out is about 1 ms of a start.
const AT_FIRST_USE = {
  'raw-body/index.js': [
    [
      "var createError = require('http-errors')",
      "function createError () { return require('http-errors').apply(this, arguments) }",
    ],
    [
      "var iconv = require('iconv-lite')",
      "var iconv = { getDecoder: function (encoding) { return require('iconv-lite').getDecoder(encoding) } }",
    ],
  ],
  'pino/lib/tools.js': [
    ["const { isMainThread } = require('worker_threads')", ''],
    ['if (!opts.sync && isMainThread) {', "if (!opts.sync && require('worker_threads').isMainThread) {"],
  ],
  'pino/lib/transport.js': [
    [
      "const ThreadStream = require('thread-stream')",
      "function ThreadStream (options) { return new (require('thread-stream'))(options) }",
    ],
  ],
  'sonic-boom/index.js': [
    ["const assert = require('assert')", "function assert () { return require('assert').apply(this, arguments) }"],
  ],
};
const dependenciesAtFirstUse = {
  name: 'dependencies-at-first-use',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]node_modules[\\/]/ }, ({ path }) => {
      const file = Object.keys(AT_FIRST_USE).find((name) => path.replaceAll('\\', '/').endsWith(`/node_modules/${name}`));
      if (!file) return undefined;
      let source = readFileSync(path, 'utf8');
      for (const [eager, atFirstUse] of AT_FIRST_USE[file]) {
        if (!source.includes(eager)) throw new Error(`${path} no longer holds "${eager}" (scripts/build.js)`);
        source = source.replace(eager, atFirstUse);
      }
      return { contents: source, loader: 'js' };
    });
  },
};

// Packages a room imports only at a first use that needs them: Koa and its
// router (the first request Koa answers), markdown-it (/docs), prom-client
// (--metrics), pino-pretty (--log-format pretty). Each is bundled whole into
// dist/lazy/NAME.cjs, which every other bundle imports as `#lazy/NAME`
// (package.json's "imports"), so that no bundle holds their code: a room's
// start reads none of it, and the process holds one copy of each.
const LAZY_PACKAGES = {
  koa: 'koa',
  '@koa/router': 'koa-router',
  'markdown-it': 'markdown-it',
  'prom-client': 'prom-client',
  'pino-pretty': 'pino-pretty',
};
// So is the module that holds the OpenAPI document (200 KB, read at the
// first request for /openapi.json or /docs): as its importer names it, and its source.
const LAZY_MODULES = { './openapi-document.js': 'src/http/openapi-document.ts' };
const lazyPackagesOutside = {
  name: 'lazy-packages-outside',
  setup(builder) {
    const names = [...Object.keys(LAZY_PACKAGES), ...Object.keys(LAZY_MODULES)].map((name) =>
      name.replaceAll(/[/.]/g, '\\$&'),
    );
    builder.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, ({ path, kind }) => {
      // A static import would be hoisted to the top of a bundle and read at its start.
      if (kind !== 'dynamic-import') {
        throw new Error(`${path} is imported statically; import it where it is first used (scripts/build.js)`);
      }
      return { path: `#lazy/${LAZY_PACKAGES[path] ?? lazyName(LAZY_MODULES[path])}`, external: true };
    });
  },
};
/** A lazy module's file name in dist/lazy/: its source's name. */
const lazyName = (source) => source.replace(/^.*\//, '').replace(/\.ts$/, '');
// CommonJS dependencies call require(); an ES module has none of its own.
const requireBanner = {
  js: "import { createRequire as __ceRequire } from 'node:module'; const require = __ceRequire(import.meta.url);",
};

// Each lazy file: a CommonJS module whose module.exports is the package's
// default export (a CommonJS package's module.exports) or the module's, bundled
// with all it requires. CommonJS, so that both kinds of bundle load it: an ES
// module imports it (its default is module.exports), and ce serve's CommonJS
// bundle requires it (see below).
const lazyPackageEntries = {
  name: 'lazy-package-entries',
  setup(builder) {
    builder.onResolve({ filter: /^lazy-(package|module):/ }, ({ path }) => ({ path, namespace: 'lazy-entry' }));
    builder.onLoad({ filter: /.*/, namespace: 'lazy-entry' }, ({ path }) => {
      const [kind, name] = [path.slice(0, path.indexOf(':')), path.slice(path.indexOf(':') + 1)];
      return {
        contents:
          kind === 'lazy-package' ? `module.exports = require('${name}');` : `module.exports = require('./${name}').default;`,
        resolveDir: process.cwd(),
        loader: 'js',
      };
    });
  },
};
await build({
  entryPoints: {
    ...Object.fromEntries(Object.entries(LAZY_PACKAGES).map(([name, file]) => [file, `lazy-package:${name}`])),
    ...Object.fromEntries(Object.values(LAZY_MODULES).map((source) => [lazyName(source), `lazy-module:${source}`])),
  },
  outdir: 'dist/lazy',
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  plugins: [lazyPackageEntries],
  logLevel: 'warning',
});

/**
 * A CommonJS bundle beside the ES module ones (`.cjs`, in a package of ES
 * modules): its own require, and import.meta.url (where the page's files
 * are) made from __filename.
 */
const commonJs = {
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  banner: undefined,
  inject: ['scripts/import-meta-url.js'],
  define: { 'import.meta.url': 'importMetaUrl' },
};

/** What the bundles of the command line and of `ce serve` share. */
const nodeBundle = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies go in the bundle too: a start then reads a few files, not
  // hundreds resolved one by one. SQLite's native addon stays outside.
  external: ['better-sqlite3'],
  plugins: [withoutCodePages, dependenciesAtFirstUse, lazyPackagesOutside],
  banner: requireBanner,
  logLevel: 'warning',
};

await build({
  ...nodeBundle,
  entryPoints: { ce: 'src/cli/bin.ts', 'start-example': 'scripts/start-example.ts' },
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
});
// `ce serve` (bin/ce.js picks it): one file, dist/chunks/serve.cjs, holding
// every module a room's start runs; the modules it runs only at a first use
// (the REST door, Koa's app, the docs, the metrics) are in it too, each run
// when first asked for. Split into chunks as the command line is, a start
// read 29 files, and node's module loader costs about 0.4 ms a file beside
// the code: as one file a room answers its first request about 25 ms sooner
// (BENCHMARKS.md). CommonJS, so that dist/serve.cjs can run it with V8's
// code cache (src/cli/code-cache.ts). Beside the chunks, where the
// validators' modules are.
const serveBundle = {
  ...nodeBundle,
  ...commonJs,
  entryPoints: { serve: 'src/cli/serve-bin.ts' },
  // better-sqlite3's JavaScript too (a dozen files node would resolve and read
  // one by one, 6 to 8 ms of a start); its native addon stays where it was
  // installed, and the room names it (src/store/sidecar.ts).
  external: [],
  splitting: false,
  // Its import()s as require()s: node:vm gives a script run with cached
  // code no import() (Node.js 20), and each is of node's own modules or of a
  // lazy file, which is CommonJS.
  supported: { 'dynamic-import': false },
};
// Without comments and spaces: 560 KB where it was 875 (the packages'
// documentation comments most of it), which every start reads, decodes and
// hashes, and whose cached code V8 reads; side by side a room answers its
// first request 2 to 4 ms sooner (BENCHMARKS.md). Names are kept, so that a
// stack trace the room logs names its functions. Its source map is not
// shipped: it goes to node_modules/.cache/ce-build/, where `npm run
// bench:profile` reads it (and a line and column of a stack trace can be
// looked up in it); its sources are named from dist/chunks/.
const minified = await build({
  ...serveBundle,
  outdir: 'dist/chunks',
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'external',
  sourcesContent: false,
  write: false,
});
mkdirSync('dist/chunks', { recursive: true });
mkdirSync(BUILD_CACHE, { recursive: true });
for (const { path: file, contents } of minified.outputFiles) {
  writeFileSync(file.endsWith('.map') ? path.join(BUILD_CACHE, path.basename(file)) : file, contents);
}
// The same bundle as esbuild writes it, each module under a comment naming
// its source, for the tests that read what a start loads
// (test/architecture/start-up-code.test.ts); not shipped.
await build({ ...serveBundle, outdir: BUILD_CACHE });
// What bin/ce.js requires for `ce serve`: the code cache's runner, CommonJS
// too, as a module would make node load the whole of each of node's modules
// it imports (node:crypto's web crypto, for one).
await build({
  ...commonJs,
  entryPoints: { serve: 'src/cli/serve-start.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
// Each validator of requests is read from a file of its own at its first call
// (generated/input-validators.js, bundled into a chunk), beside the chunks.
cpSync('generated/input-validators', 'dist/chunks/input-validators', { recursive: true });

await build({
  entryPoints: { room: 'page/main.ts' },
  outdir: 'dist/page',
  bundle: true, // markdown-it, diff, diff2html, CodeMirror and eventsource-parser go in room.js
  format: 'esm',
  platform: 'browser',
  target: ['chrome120', 'firefox120', 'safari17'],
  minify: true,
  sourcemap: false,
  legalComments: 'eof',
  logLevel: 'warning',
});
// The stylesheet, with diff2html's bundled into it.
await build({
  entryPoints: { room: 'page/room.css' },
  outdir: 'dist/page',
  bundle: true,
  minify: true,
  target: ['chrome120', 'firefox120', 'safari17'],
  logLevel: 'warning',
});
mkdirSync('dist/page', { recursive: true });
for (const file of ['index.html', 'icon.svg']) copyFileSync(`page/${file}`, `dist/page/${file}`);
