// ce serve's bundle runs with V8's code cache (src/cli/code-cache.ts): what
// one run compiled is kept where Node's compile cache would keep it, and the
// next run hands it to V8. A cache that does not fit (a rebuilt bundle, a
// torn file, another V8's) is refused and made again; the cache is off where Node's is, and in
// a directory others could write to; what is kept may be taken before the
// run ends (ce serve takes it two seconds in), and is taken only by a run that
// compiled more than the cache held. Each run is a process of its own
// (test/fixtures/run-cached.ts), as each start is. Then the served room,
// through a start without a cache and one with it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, onTestFinished, test } from 'vitest';
import { cacheDirectory } from '../../src/cli/code-cache.js';
import { ceServe } from '../helpers/ce-serve.js';
import { ce } from '../helpers/run-ce.js';

const RUN_CACHED = fileURLToPath(new URL('../fixtures/run-cached.ts', import.meta.url));

function fixture(): { dir: string; file: string; cache: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'ce-code-cache-'));
  const file = path.join(dir, 'bundle.cjs');
  writeFileSync(
    file,
    `"use strict";
module.exports.strict = (function () { return this === undefined; })();
module.exports.file = __filename;
module.exports.join = require('node:path').join('a', 'b');
module.exports.sum = (a, b) => a + b;
`,
  );
  return { dir, file, cache: path.join(dir, 'cache') };
}

interface Ran {
  use: string;
  exports: Record<string, unknown>;
  /** Times the run serialized its compiled code (what holds the event loop). */
  serialized: number;
}

/** One run of `file` in a process of its own, with `env`: what it made of the cache, and what the file exported. */
function run(file: string, env: Record<string, string>, take?: 'take' | 'take-after'): Ran {
  const line = execFileSync(process.execPath, ['--import', 'tsx', RUN_CACHED, file, ...(take ? [take] : [])], {
    env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '', NODE_COMPILE_CACHE: '', ...env },
    encoding: 'utf8',
  });
  return JSON.parse(line) as Ran;
}

const sha1 = (data: Buffer): Buffer => createHash('sha1').update(data).digest();

const entries = (cache: string): string[] => readdirSync(cache).filter((name) => name.startsWith('commonroom-'));

test('a first run compiles and keeps its code; the next reads it, and runs the same', () => {
  const { file, cache } = fixture();
  const env = { NODE_COMPILE_CACHE: cache };
  const ran = { strict: true, file, join: path.join('a', 'b'), sum: 5 };
  expect(run(file, env)).toEqual({ use: 'none', exports: ran, serialized: 1 });
  const [entry] = entries(cache);
  expect(entry).toMatch(
    new RegExp(
      `^commonroom-bundle\\.cjs-[0-9a-f]{16}-${process.version.replaceAll('.', '\\.')}-${process.arch}\\.cache$`,
    ),
  );
  // Only this user reads or writes it.
  expect(statSync(path.join(cache, entry!)).mode & 0o777).toBe(0o600);
  expect(statSync(cache).mode & 0o777).toBe(0o700);
  // Read, and nothing more compiled: the run does not serialize its code again.
  expect(run(file, env)).toEqual({ use: 'read', exports: ran, serialized: 0 });
  // No temporary file stays.
  expect(readdirSync(cache)).toEqual([entry]);
});

test('a rebuilt bundle replaces its entry; a torn entry, or one V8 refuses, is run without and made again', () => {
  const { file, cache } = fixture();
  const env = { NODE_COMPILE_CACHE: cache };
  expect(run(file, env).use).toBe('none');
  const [entry] = entries(cache);

  // Made from other code: refused, and replaced.
  writeFileSync(file, 'module.exports.other = 1;\n');
  const other = { exports: { other: 1 } };
  expect(run(file, env)).toEqual({ use: 'rejected', ...other, serialized: 1 });
  expect(entries(cache)).toEqual([entry]);
  expect(run(file, env)).toEqual({ use: 'read', ...other, serialized: 0 });

  // Torn (as a power cut may leave it): the digest of what follows the head does not match, and it is not run.
  const whole = readFileSync(path.join(cache, entry!));
  writeFileSync(path.join(cache, entry!), Buffer.concat([whole.subarray(0, whole.length >> 1), Buffer.alloc(64)]));
  expect(run(file, env)).toEqual({ use: 'rejected', ...other, serialized: 1 });
  expect(run(file, env)).toEqual({ use: 'read', ...other, serialized: 0 });

  // Laid out as an earlier ce kept it (the bundle's digest, the code's, the code): refused, not misread.
  const code = readFileSync(path.join(cache, entry!)).subarray(20 + 20 + 8); // past two digests and the count
  writeFileSync(path.join(cache, entry!), Buffer.concat([sha1(readFileSync(file)), sha1(code), code]));
  expect(run(file, env)).toEqual({ use: 'rejected', ...other, serialized: 1 });
  expect(run(file, env)).toEqual({ use: 'read', ...other, serialized: 0 });

  // Whole but not V8's (made by another V8, say): V8 refuses it.
  const bundleDigest = readFileSync(path.join(cache, entry!)).subarray(0, 20);
  const foreign = Buffer.alloc(4096, 7);
  writeFileSync(path.join(cache, entry!), Buffer.concat([bundleDigest, sha1(foreign), foreign]));
  expect(run(file, env)).toEqual({ use: 'rejected', ...other, serialized: 1 });
  expect(run(file, env)).toEqual({ use: 'read', ...other, serialized: 0 });
  expect(readdirSync(cache)).toEqual([entry]);
});

test('what take() took is what is kept: not what the run compiled after it', () => {
  // later() is compiled only when called: a large function, so that its code shows in the entry's size.
  const later = `module.exports.later = function later() { let x = 0; ${'x += 1; '.repeat(3000)}return x; };\n`;
  const sizes: number[] = [];
  for (const take of [true, false]) {
    const { file, cache } = fixture();
    writeFileSync(file, readFileSync(file, 'utf8') + later);
    expect(run(file, { NODE_COMPILE_CACHE: cache }, take ? 'take' : undefined)).toMatchObject({
      use: 'none',
      exports: { sum: 5, later: 3000 },
    });
    sizes.push(statSync(path.join(cache, entries(cache)[0]!)).size);
    expect(run(file, { NODE_COMPILE_CACHE: cache })).toMatchObject({ use: 'read', exports: { later: 3000 } });
  }
  const [taken, whole] = sizes as [number, number];
  expect(whole - taken).toBeGreaterThan(10_000);
});

test('a run that read the cache and compiled no more than it holds serializes nothing; one that compiled more keeps its code instead', () => {
  // later() is compiled only when called: large, so that compiling it makes more than a twentieth more bytecode.
  const { file, cache } = fixture();
  const later = `module.exports.later = function later() { let x = 0; ${'x += 1; '.repeat(6000)}return x; };\n`;
  writeFileSync(file, readFileSync(file, 'utf8') + later);
  const env = { NODE_COMPILE_CACHE: cache };
  const entry = () => readFileSync(path.join(cache, entries(cache)[0]!));

  // Taken before later() ran: the entry holds no later().
  expect(run(file, env, 'take')).toMatchObject({ use: 'none', serialized: 1 });
  const early = entry();
  // The same run again compiles nothing the entry lacks: it neither takes nor keeps.
  expect(run(file, env, 'take')).toMatchObject({ use: 'read', exports: { later: 6000 }, serialized: 0 });
  expect(entry().equals(early)).toBe(true);
  // Taken after later() ran: more than the entry holds, kept in its place.
  expect(run(file, env, 'take-after')).toMatchObject({ use: 'read', exports: { later: 6000 }, serialized: 1 });
  const late = entry();
  expect(late.length - early.length).toBeGreaterThan(10_000);
  // From then on it is read as it is, taken two seconds in or kept as the run ends.
  expect(run(file, env, 'take-after')).toMatchObject({ use: 'read', serialized: 0 });
  expect(run(file, env)).toMatchObject({ use: 'read', serialized: 0 });
  expect(entry().equals(late)).toBe(true);
});

test("off where Node's compile cache is off, and in a directory another user could write to", () => {
  const { dir, file, cache } = fixture();
  expect(cacheDirectory({ NODE_COMPILE_CACHE: cache })).toBe(cache);
  expect(cacheDirectory({})).toBe(path.join(tmpdir(), 'node-compile-cache'));
  expect(cacheDirectory({ NODE_DISABLE_COMPILE_CACHE: '1', NODE_COMPILE_CACHE: cache })).toBeNull();

  expect(run(file, { NODE_DISABLE_COMPILE_CACHE: '1', NODE_COMPILE_CACHE: cache })).toMatchObject({
    use: 'off',
    exports: { sum: 5 },
  });
  expect(readdirSync(dir)).toEqual(['bundle.cjs']);

  const shared = path.join(dir, 'shared');
  mkdirSync(shared);
  chmodSync(shared, 0o777);
  expect(run(file, { NODE_COMPILE_CACHE: shared })).toMatchObject({ use: 'off', exports: { sum: 5 } });
  expect(readdirSync(shared)).toEqual([]);
});

test('ce serve starts, serves (the docs and the page too) and stops alike without a cache and with the one its first start kept', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ce-served-cache-'));
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  expect((await ce(['init', file])).code).toBe(0);
  const cache = path.join(dir, 'cache');
  for (const start of ['without a cache', 'with the cache']) {
    const served = await ceServe(file, { env: { NODE_COMPILE_CACHE: cache } });
    onTestFinished(served.kill);
    const origin = new URL(served.mcpUrl).origin;
    // The docs and the page load their packages from dist/lazy/ (required, as the bundle has no import()).
    for (const [where, type] of [
      ['/docs', 'text/html'],
      ['/', 'text/html'],
      ['/openapi.json', 'application/json'],
    ] as const) {
      const answer = await fetch(origin + where);
      expect(answer.status, `${start}: ${where}`).toBe(200);
      expect(answer.headers.get('content-type'), `${start}: ${where}`).toContain(type);
    }
    expect(await served.stop(), start).toBe(0);
    expect(served.stderr(), start).toBe('');
    expect(entries(cache), start).toEqual([expect.stringMatching(/^commonroom-serve\.cjs-/)]);
  }
});
