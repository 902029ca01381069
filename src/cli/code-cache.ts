// A CommonJS bundle run with V8's code cache: the code V8 compiled in one run
// is kept on disk and handed to V8 by the next, which then compiles only what
// the cache does not hold. `ce serve` starts this way (serve-start.ts), about
// 20 ms sooner to its first answer (BENCHMARKS.md). Node.js 22's compile
// cache does the same for modules, but Node.js 20 has none, and a module
// cannot be given cached code without a flag (vm.SourceTextModule): so the
// bundle is CommonJS, run through node:vm. v8-compile-cache, the package for
// this, keeps only what V8 compiled before a script ran (what it compiles as
// the script runs is most of it), and takes over every require of the process.
//
// The cache follows Node's own: in the directory NODE_COMPILE_CACHE names,
// else `node-compile-cache` in the temporary directory, and off with
// NODE_DISABLE_COMPILE_CACHE=1. An entry is named by the bundle's path,
// node's version and the architecture, and begins with the digest of the
// bundle it was made from and the digest of its code (V8 checks no more of
// the code than its length, and an entry a power cut tore would run as
// code); V8 checks it once more (its version, its flags, the source's
// length) and refuses one that does not fit. Cached
// code is code this process runs, so a directory another user could write to
// is not used.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Script } from 'node:vm';
import { writeFileWhole } from '../store/durable-file.js';

const DIGEST_BYTES = 20;
const digest = (data: string | Buffer): Buffer => createHash('sha1').update(data).digest();
/** An entry's head: the digest of the bundle it was made from, then its cached code's. */
const HEAD_BYTES = 2 * DIGEST_BYTES;

/** What a run made of the cache: none kept yet, read, refused (made from other code, or by V8), or not used. */
export type CacheUse = 'none' | 'read' | 'rejected' | 'off';

export interface CachedRun {
  use: CacheUse;
  /** What the script set as `module.exports`. */
  exports: unknown;
  /** Takes what V8 has compiled of the script by now as what save() keeps (by default, what it compiled by then). */
  take(): void;
  /** Keeps what take() took, or what V8 has compiled of the script by now, where the cache held nothing usable or less. */
  save(): void;
}

/** The directory of the cache as Node's compile cache would choose it, or null when it is turned off. */
export function cacheDirectory(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.NODE_DISABLE_COMPILE_CACHE === '1') return null;
  return path.resolve(env.NODE_COMPILE_CACHE || path.join(tmpdir(), 'node-compile-cache'));
}

/** Whether `dir` exists (made if not) as a directory only this user can write to. */
function ownDirectory(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = statSync(dir);
    const owner = process.getuid?.();
    return stat.isDirectory() && (owner === undefined || (stat.uid === owner && (stat.mode & 0o022) === 0));
  } catch {
    return false;
  }
}

/** Runs the CommonJS file `file` as node would require it, with V8's code cache where it can. */
export function runCommonJs(file: string, env: NodeJS.ProcessEnv = process.env): CachedRun {
  const bytes = readFileSync(file);
  const dir = cacheDirectory(env);
  // One entry a file (a rebuilt bundle replaces its entry). SHA-1 tells
  // versions apart and finds a torn entry; no secret (node:crypto, which the
  // room loads all the same).
  const entry =
    dir && ownDirectory(dir)
      ? path.join(
          dir,
          `commonroom-${path.basename(file)}-${digest(file).toString('hex').slice(0, 16)}-${process.version}-${process.arch}.cache`,
        )
      : null;
  const made = digest(bytes);
  let kept: Buffer | undefined;
  try {
    if (entry) kept = readFileSync(entry);
  } catch {
    // None kept yet (or unreadable): compiled from the source, kept by save().
  }
  const cachedData =
    kept &&
    kept.subarray(0, DIGEST_BYTES).equals(made) &&
    kept.subarray(DIGEST_BYTES, HEAD_BYTES).equals(digest(kept.subarray(HEAD_BYTES)))
      ? kept.subarray(HEAD_BYTES)
      : undefined;
  // A script run with cached code has no `import()` on Node.js 20 (its
  // functions lose what node resolves it with): the file must require().
  const script = new Script(Module.wrap(bytes.toString('utf8')), {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const use: CacheUse = !entry
    ? 'off'
    : !kept
      ? 'none'
      : !cachedData || script.cachedDataRejected
        ? 'rejected'
        : 'read';
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    module.exports,
    module.exports,
    createRequire(file),
    module,
    file,
    path.dirname(file),
  );
  let taken: Buffer | null = null;
  return {
    use,
    get exports() {
      return module.exports;
    },
    take() {
      if (entry) taken = script.createCachedData();
    },
    save() {
      if (!entry) return;
      try {
        const compiled = taken ?? script.createCachedData();
        // A cache read holds what an earlier run compiled, which may have ended
        // sooner (`ce serve --help`): kept again only when this run compiled
        // more (a twentieth: the same code serializes a few bytes apart).
        if (use === 'read' && compiled.length <= cachedData!.length * 1.05) return;
        // Whole, under another name first: another start may write the same entry at once.
        writeFileWhole(entry, Buffer.concat([made, digest(compiled), compiled]), {
          temp: `${entry}.${process.pid}.tmp`,
          mode: 0o600,
          as: 'replace',
        });
      } catch {
        // A full or read-only disk: the next start compiles, as without a cache.
      }
    },
  };
}
