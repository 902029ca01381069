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
// bundle it was made from and the digest of the rest (V8 checks no more of
// the code than its length, and an entry a power cut tore would run as
// code); V8 checks it once more (its version, its flags, the source's
// length) and refuses one that does not fit. Cached
// code is code this process runs, so a directory another user could write to
// is not used.
//
// Serializing what V8 compiled holds the event loop (9 to 20 ms for a room
// that answered its first requests), so a run does it only when it compiled
// more than the entry it read holds. It tells so by the bytes of bytecode in
// its heap (v8.getHeapCodeStatistics(), a read of a counter), which the entry
// keeps as the run that made it measured them: a run that read the entry and
// compiled nothing new has as many.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getHeapCodeStatistics } from 'node:v8';
import { Script } from 'node:vm';
import { writeFileWhole } from '../store/durable-file.js';

const DIGEST_BYTES = 20;
const digest = (data: string | Buffer): Buffer => createHash('sha1').update(data).digest();
/** The entries' layout: an entry of another layout is made from other code to this one, and refused as stale. */
const LAYOUT = 'bytecode-counted\n';
/**
 * An entry: the digest of the bundle it was made from (after LAYOUT), the
 * digest of the rest, then the rest: the bytes of bytecode the run that made
 * it had in its heap (a 64-bit integer), and the cached code.
 */
const HEAD_BYTES = 2 * DIGEST_BYTES;
const COUNT_BYTES = 8;
/** Bytes of bytecode in this process's heap: what V8 has compiled, node's own code included. */
const bytecodeBytes = (): number => getHeapCodeStatistics().bytecode_and_metadata_size;
/** A run that compiled a twentieth more than the entry it read holds keeps what it compiled instead. */
const MORE = 1.05;

/** What a run made of the cache: none kept yet, read, refused (made from other code, or by V8), or not used. */
export type CacheUse = 'none' | 'read' | 'rejected' | 'off';

export interface CachedRun {
  use: CacheUse;
  /** What the script set as `module.exports`. */
  exports: unknown;
  /**
   * Takes what V8 has compiled of the script by now as what save() keeps (by
   * default, what it compiled by then): only where the cache held nothing
   * usable or less, for taking it holds the event loop.
   */
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
  const made = createHash('sha1').update(LAYOUT).update(bytes).digest();
  let kept: Buffer | undefined;
  try {
    if (entry) kept = readFileSync(entry);
  } catch {
    // None kept yet (or unreadable): compiled from the source, kept by save().
  }
  const fits =
    kept !== undefined &&
    kept.length > HEAD_BYTES + COUNT_BYTES &&
    kept.subarray(0, DIGEST_BYTES).equals(made) &&
    kept.subarray(DIGEST_BYTES, HEAD_BYTES).equals(digest(kept.subarray(HEAD_BYTES)));
  const keptBytecode = fits ? Number(kept!.readBigUInt64BE(HEAD_BYTES)) : 0;
  const cachedData = fits ? kept!.subarray(HEAD_BYTES + COUNT_BYTES) : undefined;
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
  // A cache read holds what an earlier run compiled, which may have ended
  // sooner (`ce serve --help`): kept again only when this run compiled more.
  const compiledMore = (): { bytecode: number } | null => {
    const bytecode = bytecodeBytes();
    return use === 'read' && bytecode <= keptBytecode * MORE ? null : { bytecode };
  };
  /** What take() took: the code and the bytecode counted then; null, nothing worth keeping. */
  let taken: { code: Buffer; bytecode: number } | null | undefined;
  return {
    use,
    get exports() {
      return module.exports;
    },
    take() {
      if (!entry) return;
      const more = compiledMore();
      taken = more && { code: script.createCachedData(), bytecode: more.bytecode };
    },
    save() {
      if (!entry || taken === null) return;
      try {
        const more = taken ?? compiledMore();
        if (more === null) return;
        const code = taken?.code ?? script.createCachedData();
        const count = Buffer.alloc(COUNT_BYTES);
        count.writeBigUInt64BE(BigInt(more.bytecode));
        const rest = Buffer.concat([count, code]);
        // Whole, under another name first: another start may write the same entry at once.
        writeFileWhole(entry, Buffer.concat([made, digest(rest), rest]), {
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
