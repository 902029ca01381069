import type { Database, Statement } from 'better-sqlite3';
import type { HistoryRow, PendingWriteRow, ProposalRow, RevisionRow, SessionRow } from './rows.js';

function prepareStatements(db: Database) {
  const p = (sql: string): Statement => db.prepare(sql);
  return {
    insertSession:
      p(`INSERT INTO sessions (id, token_hash, participant, capabilities_json, created_at, expires_at, revoked_at)
      VALUES (@id, @token_hash, @participant, @capabilities_json, @created_at, @expires_at, NULL)`),
    getSession: p('SELECT * FROM sessions WHERE id = ?'),
    getSessionByTokenHash: p('SELECT * FROM sessions WHERE token_hash = ?'),
    listSessions: p(`SELECT * FROM sessions WHERE (@participant IS NULL OR participant = @participant)
      ORDER BY created_at DESC, id DESC`),
    revokeSession: p('UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    revokeSessionsOf: p('UPDATE sessions SET revoked_at = ? WHERE participant = ? AND revoked_at IS NULL'),

    insertRevision: p(`INSERT INTO revisions (number, hash, size, content, source, author, approver, proposal_id, at,
      merged_base) VALUES (@number, @hash, @size, @content, @source, @author, @approver, @proposal_id, @at, @merged_base)`),
    getRevision: p('SELECT * FROM revisions WHERE number = ?'),
    currentRevision: p('SELECT * FROM revisions ORDER BY number DESC LIMIT 1'),

    insertProposal: p(`INSERT INTO proposals (id, status, author, base_revision, summary, content, diff, created_at,
        decided_by, decided_at, note, revision, mergeable_json)
      VALUES (@id, @status, @author, @base_revision, @summary, @content, @diff, @created_at, NULL, NULL, NULL, NULL,
        @mergeable_json)`),
    decideProposal: p(`UPDATE proposals SET status = @status, decided_by = @decided_by, decided_at = @decided_at,
        note = @note, revision = @revision, mergeable_json = NULL WHERE id = @id AND status = 'open'`),
    setMergeable: p('UPDATE proposals SET mergeable_json = @mergeable_json WHERE id = @id'),
    openProposals: p(`SELECT * FROM proposals WHERE status = 'open' ORDER BY created_at, id`),
    countOpenProposalsBy: p(`SELECT count(*) AS n FROM proposals WHERE status = 'open' AND author = ?`),
    getProposal: p('SELECT * FROM proposals WHERE id = ?'),
    listProposals: p(`SELECT * FROM proposals
      WHERE status = @status
        AND (@before_at IS NULL OR created_at < @before_at OR (created_at = @before_at AND id < @before_id))
      ORDER BY created_at DESC, id DESC LIMIT @limit`),

    insertPendingWrite: p(`INSERT INTO pending_writes (id, proposal_id, approver, note, base_revision, hash, size, at,
      content, merged_base) VALUES (1, @proposal_id, @approver, @note, @base_revision, @hash, @size, @at, @content,
      @merged_base)`),
    getPendingWrite: p(
      `SELECT proposal_id, approver, note, base_revision, hash, size, at, content, merged_base
      FROM pending_writes WHERE id = 1`,
    ),
    deletePendingWrite: p('DELETE FROM pending_writes WHERE id = 1'),
    getFileRewrite: p('SELECT revision, reason, at FROM file_rewrite WHERE id = 1'),
    deleteFileRewrite: p('DELETE FROM file_rewrite WHERE id = 1'),

    insertHistory: p(`INSERT INTO history (at, kind, actor, revision, proposal_id, handoff_id, note)
      VALUES (@at, @kind, @actor, @revision, @proposal_id, @handoff_id, @note)`),
    listHistory: p('SELECT * FROM history WHERE id > ? ORDER BY id LIMIT ?'),
    listHistoryBefore: p('SELECT * FROM history WHERE id < ? ORDER BY id DESC LIMIT ?'),
  };
}

/**
 * Sessions, revisions, proposals and history: the rows of the room around
 * the artifact, with every statement prepared once.
 */
export class WorkspaceStore {
  private readonly s: ReturnType<typeof prepareStatements>;

  constructor(db: Database) {
    this.s = prepareStatements(db);
  }

  insertSession(row: Omit<SessionRow, 'revoked_at'>): void {
    this.s.insertSession.run(row);
  }
  getSession(id: string): SessionRow | undefined {
    return this.s.getSession.get(id) as SessionRow | undefined;
  }
  getSessionByTokenHash(hash: string): SessionRow | undefined {
    return this.s.getSessionByTokenHash.get(hash) as SessionRow | undefined;
  }
  listSessions(participant: string | null): SessionRow[] {
    return this.s.listSessions.all({ participant }) as SessionRow[];
  }
  revokeSession(id: string, at: number): boolean {
    return this.s.revokeSession.run(at, id).changes === 1;
  }
  revokeSessionsOf(participant: string, at: number): number {
    return this.s.revokeSessionsOf.run(at, participant).changes;
  }

  insertRevision(row: RevisionRow): void {
    this.s.insertRevision.run(row);
  }
  getRevision(number: number): RevisionRow | undefined {
    return this.s.getRevision.get(number) as RevisionRow | undefined;
  }
  currentRevision(): RevisionRow | undefined {
    return this.s.currentRevision.get() as RevisionRow | undefined;
  }

  insertProposal(row: Omit<ProposalRow, 'decided_by' | 'decided_at' | 'note' | 'revision'>): void {
    this.s.insertProposal.run(row);
  }
  decideProposal(row: Pick<ProposalRow, 'id' | 'status' | 'decided_by' | 'decided_at' | 'note' | 'revision'>): boolean {
    return this.s.decideProposal.run(row).changes === 1;
  }
  setMergeable(row: Pick<ProposalRow, 'id' | 'mergeable_json'>): void {
    this.s.setMergeable.run(row);
  }
  openProposals(): ProposalRow[] {
    return this.s.openProposals.all() as ProposalRow[];
  }
  countOpenProposalsBy(author: string): number {
    return (this.s.countOpenProposalsBy.get(author) as { n: number }).n;
  }
  getProposal(id: string): ProposalRow | undefined {
    return this.s.getProposal.get(id) as ProposalRow | undefined;
  }
  listProposals(query: {
    status: string;
    before_at: number | null;
    before_id: string | null;
    limit: number;
  }): ProposalRow[] {
    return this.s.listProposals.all(query) as ProposalRow[];
  }

  insertPendingWrite(row: PendingWriteRow): void {
    this.s.insertPendingWrite.run(row);
  }
  getPendingWrite(): PendingWriteRow | undefined {
    return this.s.getPendingWrite.get() as PendingWriteRow | undefined;
  }
  deletePendingWrite(): void {
    this.s.deletePendingWrite.run();
  }

  /** The revision the file is to be written from (a restore), if any. */
  getFileRewrite(): { revision: number; reason: string; at: number } | undefined {
    return this.s.getFileRewrite.get() as { revision: number; reason: string; at: number } | undefined;
  }
  deleteFileRewrite(): void {
    this.s.deleteFileRewrite.run();
  }

  insertHistory(row: Omit<HistoryRow, 'id'>): number {
    return Number(this.s.insertHistory.run(row).lastInsertRowid);
  }
  listHistory(after: number, limit: number): HistoryRow[] {
    return this.s.listHistory.all(after, limit) as HistoryRow[];
  }

  /** Entries before `before`, newest first. */
  listHistoryBefore(before: number, limit: number): HistoryRow[] {
    return this.s.listHistoryBefore.all(before, limit) as HistoryRow[];
  }
}
