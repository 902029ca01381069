// A restore brings back a room as its backup had it, sessions included. A
// session revoked since the backup was made (a leaked token, a participant
// removed, which revokes theirs) must stay revoked: the room's sidecar being
// replaced knows of it, and the restored one is told before it takes its
// place. Where no sidecar is replaced (the machine was lost), the caller
// says that the backup's sessions are back as they were.
import Database, { type Database as Db } from 'better-sqlite3';

/**
 * Revokes in `restored` every session that `replaced` (the sidecar it takes
 * the place of) has revoked, at the time it was revoked there. Returns how
 * many were live in `restored`.
 */
export function carryRevocations(restored: Db, replaced: string): number {
  const old = new Database(replaced, { readonly: true, fileMustExist: true });
  let revoked: { id: string; revoked_at: number }[];
  try {
    // A sidecar from before sessions were kept has none to carry.
    const hasSessions = old.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sessions'").get();
    revoked = hasSessions
      ? (old.prepare('SELECT id, revoked_at FROM sessions WHERE revoked_at IS NOT NULL').all() as typeof revoked)
      : [];
  } finally {
    old.close();
  }
  const revoke = restored.prepare('UPDATE sessions SET revoked_at = @revoked_at WHERE id = @id AND revoked_at IS NULL');
  let carried = 0;
  restored.transaction(() => {
    for (const session of revoked) carried += revoke.run(session).changes;
  })();
  return carried;
}
