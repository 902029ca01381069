// What the disk has said of the room's commits (group-commit.ts): how the
// last one went, the last batch that failed, and whether a failure was
// fatal. A failed fsync is fatal: the kernel may have dropped what it was to
// write, so the room refuses every write from then on and tells onFatal's
// listeners, which stop the process (src/cli/serve.ts).
import { storageErrorOf, StorageError } from '../errors.js';

const DOING = 'committing this change';

export class DiskVerdicts {
  /** How the last commit of a batch went (null before the first): what a readiness check reports. */
  lastCommit: { at: number; failure: string | null; diskFull: boolean } | null = null;
  /** The newest batch that failed, and the error its changes were answered with. */
  private lastFailure: { batch: number; error: unknown } | null = null;
  /** Set once a commit failed fatally: every write is refused with it. */
  broken: StorageError | null = null;
  /** Set when the log's fsync failed after COMMIT: SQLite shows what may not be on disk, so no answer may leave. */
  unkept: StorageError | null = null;
  private readonly fatalListeners = new Set<(error: StorageError) => void>();
  private readonly healthListeners = new Set<(failure: string | null) => void>();

  /** `listener(error)` once, when a commit fails fatally (a failed fsync). */
  onFatal(listener: (error: StorageError) => void): () => void {
    this.fatalListeners.add(listener);
    return () => this.fatalListeners.delete(listener);
  }

  /**
   * `listener(failure)` when commits begin to fail (why: a full disk, say),
   * and `listener(null)` when one succeeds again: once each, not per batch.
   */
  onHealthChange(listener: (failure: string | null) => void): () => void {
    this.healthListeners.add(listener);
    return () => this.healthListeners.delete(listener);
  }

  /** The error a failed statement or commit is answered with; a fatal one breaks the room for writes. */
  judged(error: unknown): unknown {
    const judged = storageErrorOf(error, DOING);
    if (judged instanceof StorageError && judged.fatal && !this.broken) {
      this.broken = judged;
      for (const listener of this.fatalListeners) listener(judged);
    }
    return judged;
  }

  /** The log's fsync failed after COMMIT, as SQLite would say it had it failed inside: fatal, and nothing answers. */
  syncFailed(): StorageError {
    const judged = this.judged({ code: 'SQLITE_IOERR_FSYNC' }) as StorageError;
    this.unkept ??= judged;
    return judged;
  }

  committed(): void {
    const wasFailing = this.lastCommit?.failure != null;
    this.lastCommit = { at: Date.now(), failure: null, diskFull: false };
    if (wasFailing) for (const listener of this.healthListeners) listener(null);
  }

  failed(batch: number, error: unknown): void {
    const wasFailing = this.lastCommit?.failure != null;
    const failure = error instanceof Error ? error.message : String(error);
    this.lastCommit = {
      at: Date.now(),
      failure,
      diskFull: error instanceof StorageError && error.reason === 'disk full',
    };
    if (!wasFailing) for (const listener of this.healthListeners) listener(failure);
    if ((this.lastFailure?.batch ?? 0) < batch) this.lastFailure = { batch, error };
  }

  /** What an answer whose work began while batch `first` was (or was next to be) open must be refused with, if anything. */
  refusalFor(first: number): unknown {
    if (this.unkept) return this.unkept;
    return this.lastFailure !== null && this.lastFailure.batch >= first ? this.lastFailure.error : null;
  }
}
