// Fault injection for the artifact's writes, the way a full disk or a
// read-only directory would fail them (a root user ignores permissions, so
// the fs calls themselves are made to fail). The room's code imports
// node:fs by name: the patched functions reach it through
// syncBuiltinESMExports. Used in-process by tests, and preloaded into a
// `ce serve` child by test/fixtures/fail-artifact-writes.ts.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';

/** Which step fails: writing the temp file (ENOSPC), its fsync (EIO), or renaming it over the artifact (EROFS). */
export type ArtifactFault = 'write' | 'fsync' | 'rename';

const errno = (code: string, message: string, syscall: string): NodeJS.ErrnoException =>
  Object.defineProperties(new Error(`${code}: ${message}, ${syscall}`), {
    code: { value: code },
    syscall: { value: syscall },
  }) as NodeJS.ErrnoException;

/**
 * From now on, each write of an artifact temp file in `dir` (the room's temp
 * files are `.<name>.<pid>.<time>.tmp`) fails at the chosen step while
 * `failing()` says so. Returns a function that puts the real fs back.
 */
export function failArtifactWrites(dir: string, fault: ArtifactFault, failing: () => boolean = () => true): () => void {
  const real = { openSync: fs.openSync, writeSync: fs.writeSync, fsyncSync: fs.fsyncSync, renameSync: fs.renameSync };
  const isTemp = (file: fs.PathLike): boolean =>
    path.dirname(path.resolve(String(file))) === path.resolve(dir) &&
    /^\..+\.\d+\.\d+\.tmp$/.test(path.basename(String(file)));
  const doomed = new Set<number>();
  fs.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
    const fd = (real.openSync as (...args: unknown[]) => number)(file, ...rest);
    if ((fault === 'write' || fault === 'fsync') && isTemp(file) && failing()) doomed.add(fd);
    return fd;
  }) as typeof fs.openSync;
  fs.writeSync = ((fd: number, ...rest: unknown[]) => {
    if (fault === 'write' && doomed.delete(fd)) throw errno('ENOSPC', 'no space left on device', 'write');
    return (real.writeSync as (...args: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  fs.fsyncSync = ((fd: number) => {
    if (fault === 'fsync' && doomed.delete(fd)) throw errno('EIO', 'i/o error', 'fsync');
    real.fsyncSync(fd);
  }) as typeof fs.fsyncSync;
  fs.renameSync = ((from: fs.PathLike, to: fs.PathLike) => {
    if (fault === 'rename' && isTemp(from) && failing()) throw errno('EROFS', 'read-only file system', 'rename');
    real.renameSync(from, to);
  }) as typeof fs.renameSync;
  syncBuiltinESMExports();
  return () => {
    fs.openSync = real.openSync;
    fs.writeSync = real.writeSync;
    fs.fsyncSync = real.fsyncSync;
    fs.renameSync = real.renameSync;
    syncBuiltinESMExports();
  };
}

/**
 * From now on, `edit()` runs each time an artifact temp file in `dir` has
 * been fsynced, before the room's last look and its rename: an edit made
 * outside the room while an approval writes the file, as an editor saving
 * at that moment would. Returns a function that puts the real fs back.
 */
export function editWhileWriting(dir: string, edit: () => void): () => void {
  const real = { openSync: fs.openSync, fsyncSync: fs.fsyncSync };
  const temps = new Set<number>();
  fs.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
    const fd = (real.openSync as (...args: unknown[]) => number)(file, ...rest);
    if (path.dirname(path.resolve(String(file))) === path.resolve(dir) && /\.\d+\.\d+\.tmp$/.test(String(file))) {
      temps.add(fd);
    }
    return fd;
  }) as typeof fs.openSync;
  fs.fsyncSync = ((fd: number) => {
    real.fsyncSync(fd);
    if (temps.delete(fd)) edit();
  }) as typeof fs.fsyncSync;
  syncBuiltinESMExports();
  return () => {
    fs.openSync = real.openSync;
    fs.fsyncSync = real.fsyncSync;
    syncBuiltinESMExports();
  };
}
