// What a start loads, read off the compiled bundle (dist/, built by the
// suite's setup): ce.js picks a command line, the whole one (main) or, for
// `ce serve`, one with that command alone (serve-main), and each loads the
// chunks it imports statically, so the engine (SQLite, the validators) stays
// out of them and is imported when a command needs a room; `ce serve` loads
// no other command, then the HTTP server, and Koa and the REST door stay out
// of that too (each loads at the first request that needs it, so a room
// answers its first MCP request without them). Nor does it compile the
// validators of requests: each is read from a file of its own beside the
// chunks (dist/chunks/input-validators/) at its first call. esbuild puts a
// module in a chunk shared by whatever reaches it: one static import from the
// command line of a module beside the engine brings the whole engine chunk
// with it. raw-body comes with the server, and requires what it needs only
// for an error or a decoder at their first use (scripts/build.js).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';

const dist = path.resolve(import.meta.dirname, '../../dist');

/** A chunk and every chunk it imports statically. */
function staticallyLoaded(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const [, specifier] of text.matchAll(/^(?:import|export)\b[^;]*?["'](\.\.?\/[^"']+)["']/gms)) {
    staticallyLoaded(path.resolve(path.dirname(file), specifier!), seen);
  }
  return seen;
}

/** The source files esbuild marks in the chunks, `// src/engine/room.ts` and the like. */
const sourcesIn = (files: Set<string>): string[] =>
  [...files].flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/^\/\/ ((?:src|generated|node_modules)\/\S+)$/gm)].map((m) => m[1]!),
  );

/** The chunk whose name starts with `name`, which one of `loaded` imports dynamically. */
function dynamicChunk(loaded: Set<string>, name: string): string {
  for (const file of loaded) {
    const match = new RegExp(`import\\("(\\.\\.?/(?:chunks/)?${name}-[A-Z0-9]+\\.js)"\\)`).exec(
      readFileSync(file, 'utf8'),
    );
    if (match) return path.resolve(path.dirname(file), match[1]!);
  }
  throw new Error(`no chunk of ce's start imports a ${name} chunk`);
}

const bin = staticallyLoaded(path.join(dist, 'ce.js'));
/** What `ce` loads before it runs a command: the whole command line, and the one `ce serve` starts on. */
const commandLines = {
  whole: staticallyLoaded(dynamicChunk(bin, 'main')),
  serve: staticallyLoaded(dynamicChunk(bin, 'serve-main')),
};

test('every ce command starts without the engine, the validators, the HTTP server or Koa', () => {
  expect(sourcesIn(commandLines.whole)).toContain('src/cli/main.ts');
  expect(sourcesIn(commandLines.serve)).toContain('src/cli/serve-main.ts');
  for (const loaded of [commandLines.whole, commandLines.serve]) {
    // A constant or a parser of src/http or src/store may come along; their modules that open or serve a room may not.
    expect(
      sourcesIn(loaded).filter((source) =>
        /^(src\/engine\/|src\/store\/(sidecar|room-store)|src\/http\/(server|app|mcp\/post)|generated\/.*validators|node_modules\/(koa|@koa|ajv)\/)/.test(
          source,
        ),
      ),
    ).toEqual([]);
  }
});

test('ce serve starts without the other commands', () => {
  const others = sourcesIn(commandLines.whole).filter((source) => !sourcesIn(commandLines.serve).includes(source));
  // What only the whole command line loads: the other commands, the operation table they are built from.
  expect(others).toEqual(expect.arrayContaining(['src/cli/main.ts', 'src/cli/commands.ts', 'src/cli/status.ts']));
  expect(
    sourcesIn(commandLines.serve).filter((source) =>
      /^src\/cli\/(main|commands|status|edit|open|backup|bridge|completion|help-topics)\.ts$/.test(source),
    ),
  ).toEqual([]);
});

test('ce serve loads the HTTP server without Koa, the REST door, the page or the docs', () => {
  const server = dynamicChunk(commandLines.serve, 'server');
  const sources = sourcesIn(staticallyLoaded(server));
  expect(sources).toContain('src/http/mcp/post.ts');
  expect(sources).toContain('generated/input-validators.js');
  // Ajv's code of a validator (the schemaPath of each error it can make) is in no chunk a start loads.
  for (const file of staticallyLoaded(server))
    expect(readFileSync(file, 'utf8'), file).not.toContain('schemaPath: "#/');
  expect(
    sources.filter((source) =>
      /^(node_modules\/(koa|@koa|mime-db|path-to-regexp)\/|src\/http\/(koa-app|page|docs|rest\/door|rest\/operation-routes)\.ts|generated\/(validators|query-validators)\.js)/.test(
        source,
      ),
    ),
  ).toEqual([]);
});

test('the validators of requests ship beside the chunks, one module each, as generated', () => {
  const generated = path.resolve(import.meta.dirname, '../../generated/input-validators');
  const shipped = path.join(dist, 'chunks', 'input-validators');
  const names = readdirSync(generated).sort();
  expect(names).toContain('TaskRefInput.cjs');
  expect(readdirSync(shipped).sort()).toEqual(names);
  for (const name of names)
    expect(readFileSync(path.join(shipped, name), 'utf8')).toBe(readFileSync(path.join(generated, name), 'utf8'));
});

test('raw-body, which ce serve loads, requires http-errors and iconv-lite at their first use, not as it loads', () => {
  const server = dynamicChunk(commandLines.serve, 'server');
  const rawBody = [...staticallyLoaded(server)]
    .map((file) => /^\/\/ node_modules\/raw-body\/index\.js$[\s\S]*?(?=^\/\/ )/m.exec(readFileSync(file, 'utf8'))?.[0])
    .find((text) => text !== undefined);
  expect(rawBody).toBeDefined();
  // http-errors makes a class for every HTTP status as it loads: about 6 ms of a start (scripts/build.js).
  expect(rawBody).toContain('return require_http_errors().apply(this, arguments);');
  expect(rawBody).not.toMatch(/var (createError|iconv) = require_/);
});
