// The crash scenario of the file/sidecar protocol (docs/reference.md: "The file and the
// sidecar agree after any crash"): writers propose new versions of the
// artifact against the revision they read, approvers accept open proposals,
// over MCP and REST at once, while `ce serve` is killed with SIGKILL (the
// rounds are test/helpers/crash-harness.ts's). Optionally an outside editor
// replaces the file now and then, or some of the room's file writes fail
// (a fault preloaded into `ce serve`).
//
// After each kill, on the sidecar and the file as the kill left them: the
// revisions are a chain from revision 1, every proposal revision is its
// proposal's text with its author and an approver who asked, every
// acknowledged approval is recorded, no revision is external unless the
// editor made it, and the file holds the current revision's bytes, or those
// of the one pending write (killed between the rename and the record), or
// (with the editor) its last save. After each restart: the restart settled
// the pending write by the bytes on disk and changed nothing else, the file
// is the current revision, no pending write and no temp file remain, and the
// room says so through both doors.
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Capability } from '../../generated/types.js';
import { openRoom, type Room } from './engine.js';
import { hashBytes } from '../../src/store/artifact-file.js';
import type { PendingWriteRow, ProposalRow, RevisionRow } from '../../src/store/rows.js';
import type { CeServeOptions } from './ce-serve.js';
import type { CrashScenario, LoadContext, ServeStart } from './crash-harness.js';
import type { ArtifactFault } from './fail-artifact-writes.js';
import type { Door, Outcome, RoomClient, Wire } from './recording-client.js';
import { between, pick, seededRandom, type Random } from './seeded-random.js';

export const INITIAL_CONTENT = '# Crash room\n';
const WRITERS = ['alice', 'bob', 'carol'] as const;
/** Each approver has its door: both are always in use. */
const APPROVERS = { dave: 'mcp', erin: 'rest' } as const satisfies Record<string, Door>;
type Approver = keyof typeof APPROVERS;

export const PARTICIPANTS: Record<string, [Capability, ...Capability[]]> = {
  ...Object.fromEntries(WRITERS.map((name) => [name, ['read', 'write']])),
  ...Object.fromEntries(Object.keys(APPROVERS).map((name) => [name, ['read', 'approve']])),
};

/** A writer's pause between proposals, so that approvers keep up. */
const WRITER_PAUSE_MS = { min: 0, max: 40 };
/** An approver's pause when nothing is open. */
const IDLE_PAUSE_MS = { min: 5, max: 20 };
/** The editor's pause between saves. */
const EDITOR_PAUSE_MS = { min: 20, max: 120 };

const FIXTURE = fileURLToPath(new URL('../fixtures/fail-artifact-writes.ts', import.meta.url));

export interface ProposalScenarioOptions {
  /** An outside editor also saves the file (atomically, as editors do: a file of its own renamed over it). */
  editor?: boolean;
  /** Preloaded into each `ce serve`: this share of its file writes fail, at the write or at the rename (in turn per start). */
  failingWrites?: { ratio: number };
}

interface Attempt {
  by: string;
  door: Door;
  round: number;
  outcome: Outcome['kind'];
  code?: string;
}

/** One proposal the load sent, and what is known of it. */
interface PlannedProposal {
  /** Unique in the room: it finds the proposal when the answer was lost. */
  content: string;
  author: string;
  door: Door;
  round: number;
  baseRevision: number;
  propose: Outcome['kind'];
  id?: string;
  /** Whether the sidecar holds it; unknown after a lost propose until the sidecar is read. */
  stored?: boolean;
  approvals: Attempt[];
  rejections: Attempt[];
}

/** What the last kill left: the file and the sidecar, before the restart. */
interface KillState {
  disk: Buffer;
  revisions: RevisionRow[];
  pending: PendingWriteRow | undefined;
}

/** What the load did over all rounds. */
export interface ProposalCrashTotals {
  /** Kills checked. */
  rounds: number;
  /** Acknowledged proposals and approvals, by door. */
  proposed: Record<Door, number>;
  accepted: Record<Door, number>;
  /** Approvals refused, by code (`conflict`, `unavailable`). */
  refused: Record<string, number>;
  /** `unavailable` refusals by the failed step's error (ENOSPC, EROFS). */
  failedWrites: Record<string, number>;
  /** Requests with no complete answer. */
  lost: number;
  editorSaves: number;
  /** In the sidecar at the last restart. */
  externalRevisions: number;
}

class ProposalModel {
  readonly byContent = new Map<string, PlannedProposal>();
  readonly byId = new Map<string, PlannedProposal>();
  /** Every text the editor saved. */
  readonly editorSaves = new Set<string>();
  /** Saves a read answered as recorded: they must stay revisions. */
  readonly editorSavesRecorded = new Set<string>();
  /** Per MCP reader, where its history paging stands and the newest revision it saw. */
  readonly history = new Map<string, { after: number; latest: number }>();
  atKill: KillState | undefined;
  /** Approvals go one at a time when writes may fail, so each answer can be checked against the file. */
  private approvalTurn: Promise<void> = Promise.resolve();
  readonly totals: ProposalCrashTotals = {
    rounds: 0,
    proposed: { mcp: 0, rest: 0 },
    accepted: { mcp: 0, rest: 0 },
    refused: {},
    failedWrites: {},
    lost: 0,
    editorSaves: 0,
    externalRevisions: 0,
  };

  /** A text the file may hold: the initial one, a proposal's, an editor save. */
  known(content: string): boolean {
    return content === INITIAL_CONTENT || this.byContent.has(content) || this.editorSaves.has(content);
  }

  /** The planned proposal a listed or stored one is (found by its unique text). */
  identify(id: string, content: string, author: string): PlannedProposal {
    const planned = this.byContent.get(content);
    expect(planned, `proposal ${id} (${JSON.stringify(content)}) was never asked for`).toBeDefined();
    expect(author, `author of ${id}`).toBe(planned!.author);
    if (planned!.id === undefined) {
      planned!.id = id;
      this.byId.set(id, planned!);
    }
    expect(planned!.id, `the proposal of ${JSON.stringify(content)}`).toBe(id);
    return planned!;
  }

  async oneApprovalAtATime<T>(run: () => Promise<T>): Promise<T> {
    const previous = this.approvalTurn;
    let release!: () => void;
    this.approvalTurn = new Promise((resolve) => (release = resolve));
    await previous;
    try {
      return await run();
    } finally {
      release();
    }
  }
}

const tempFilesBeside = (artifact: string): string[] => {
  const name = path.basename(artifact);
  return readdirSync(path.dirname(artifact)).filter((file) => file.startsWith(`.${name}.`) && file.endsWith('.tmp'));
};

const structured = (outcome: Outcome): Wire =>
  outcome.kind === 'acknowledged' ? outcome.body.structuredContent : undefined;

/** A refusal's details: the problem (REST) or the tool error (MCP). */
function refusalDetails(door: Door, outcome: Outcome & { kind: 'refused' }): { message: string; details: Wire } {
  if (door === 'rest') return { message: outcome.body.detail, details: outcome.body };
  // The disk's refusals are JSON-RPC errors; the room's own are tool results.
  if (outcome.body.error) return { message: outcome.body.error.message, details: outcome.body.error.data };
  const error = outcome.body.structuredContent.error;
  return { message: error.message, details: error.details ?? {} };
}

export function proposalCrashScenario(options: ProposalScenarioOptions = {}) {
  const model = new ProposalModel();
  const editing = options.editor === true;
  const failing = options.failingWrites !== undefined;
  let artifact = '';

  /** The revision to propose against, and a check of the text the room served. */
  async function readCurrent(client: RoomClient, door: Door): Promise<number | null> {
    if (door === 'rest') {
      const read = await client.rest('GET', '/artifact');
      if (read.kind === 'lost') return null;
      expect(read, `${client.participant} reads the artifact`).toMatchObject({ kind: 'acknowledged' });
      const { content, revision, unrecorded_edit } = read.kind === 'acknowledged' ? read.body : ({} as Wire);
      expect(model.known(content), `the file served holds ${JSON.stringify(content)}`).toBe(true);
      // Nothing but the editor changes the file behind the room's back.
      if (!editing) expect(unrecorded_edit).toBe(false);
      if (!unrecorded_edit) {
        expect(revision.hash).toBe(hashBytes(Buffer.from(content, 'utf8')));
        if (model.editorSaves.has(content)) {
          expect(revision.source, 'an editor save read as recorded').toBe('external');
          model.editorSavesRecorded.add(content);
        }
      }
      return revision.number;
    }
    const read = await client.mcp('resources/read', { uri: 'workspace:///room.md' });
    if (read.kind === 'lost') return null;
    expect(read, `${client.participant} reads the artifact`).toMatchObject({ kind: 'acknowledged' });
    const text = read.kind === 'acknowledged' ? read.body.contents[0].text : undefined;
    expect(model.known(text), `the file served holds ${JSON.stringify(text)}`).toBe(true);
    // MCP reads say no revision number: the newest revision in the history is the one to propose against.
    const position = model.history.get(client.participant) ?? { after: 0, latest: 1 };
    model.history.set(client.participant, position);
    for (;;) {
      const page = await client.mcp('tools/call', {
        name: 'workspace_history',
        arguments: { after: position.after, limit: 100 },
      });
      if (page.kind === 'lost') return null;
      expect(page, `${client.participant} pages the history`).toMatchObject({ kind: 'acknowledged' });
      const { entries, next_after, has_more } = structured(page);
      for (const entry of entries as Wire[]) if (entry.kind === 'revision') position.latest = entry.revision.number;
      position.after = next_after;
      if (!has_more) return position.latest;
    }
  }

  async function propose(context: LoadContext, client: RoomClient, n: number, random: Random): Promise<boolean> {
    const door: Door = random() < 0.5 ? 'mcp' : 'rest';
    const base = await readCurrent(client, door);
    if (base === null) return false;
    const author = client.participant;
    const content = `${INITIAL_CONTENT}\n${author} r${context.round}.${n} — ✓\n`;
    const planned: PlannedProposal = {
      content,
      author,
      door,
      round: context.round,
      baseRevision: base,
      propose: 'lost',
      approvals: [],
      rejections: [],
    };
    model.byContent.set(content, planned);
    const input = { base_revision: base, content, summary: `r${context.round}.${n}` };
    const outcome =
      door === 'rest'
        ? await client.rest('POST', '/proposals', input)
        : await client.mcp('tools/call', { name: 'workspace_propose', arguments: input });
    planned.propose = outcome.kind;
    if (outcome.kind === 'lost') return false;
    if (outcome.kind === 'refused' && outcome.code === 'limit_reached') {
      // The approvers have not kept up: the author has 32 open proposals, the most the room takes.
      expect(refusalDetails(door, outcome).message).toMatch(new RegExp(`^${author} already has 32 open proposals`));
      return true;
    }
    // The base exists and the text is text, and the author has room for it: the room has no reason to refuse.
    expect(outcome, `${author} proposes through ${door}`).toMatchObject({ kind: 'acknowledged' });
    const proposal = door === 'rest' ? (outcome as Wire).body.proposal : structured(outcome).proposal;
    expect(proposal).toMatchObject({ status: 'open', author, base_revision: base, content, revision: null });
    planned.id = proposal.proposal_id;
    planned.stored = true;
    model.byId.set(planned.id!, planned);
    model.totals.proposed[door]++;
    return true;
  }

  /** Open proposals as the approver's door lists them, newest first. */
  async function listOpen(client: RoomClient, door: Door): Promise<Wire[] | null> {
    const listed =
      door === 'rest'
        ? await client.rest('GET', '/proposals?limit=50')
        : await client.mcp('resources/read', { uri: 'workspace:///.room/proposals' });
    if (listed.kind === 'lost') return null;
    expect(listed, `${client.participant} lists open proposals`).toMatchObject({ kind: 'acknowledged' });
    const body = door === 'rest' ? (listed as Wire).body : JSON.parse((listed as Wire).body.contents[0].text);
    for (const proposal of body.proposals as Wire[]) expect(proposal.status).toBe('open');
    return body.proposals;
  }

  async function approve(context: LoadContext, client: RoomClient, n: number, listed: Wire): Promise<boolean> {
    const approver = client.participant as Approver;
    const door = APPROVERS[approver];
    const planned = model.identify(listed.proposal_id, listed.content, listed.author);
    const id = planned.id!;
    const attempt: Attempt = { by: approver, door, round: context.round, outcome: 'lost' };
    planned.approvals.push(attempt);
    const note = `${approver} r${context.round}.${n}`;
    const before = failing ? readFileSync(artifact) : undefined;
    const outcome =
      door === 'rest'
        ? await client.rest('POST', `/proposals/${id}/approve`, { note })
        : await client.mcp('tools/call', { name: 'proposal_approve', arguments: { proposal_id: id, note } });
    attempt.outcome = outcome.kind;
    if (outcome.kind === 'lost') return false;
    const what = `${approver} approves ${id} through ${door}`;

    if (outcome.kind === 'acknowledged') {
      const decided = door === 'rest' ? outcome.body : structured(outcome);
      expect(decided.proposal, what).toMatchObject({ status: 'accepted', decided_by: approver, note });
      expect(decided.revision, what).toMatchObject({
        number: planned.baseRevision + 1,
        source: 'proposal',
        author: planned.author,
        approver,
        proposal_id: id,
        hash: hashBytes(Buffer.from(planned.content, 'utf8')),
      });
      model.totals.accepted[door]++;
      if (failing) {
        // Answered only once the file holds it, and nothing is left beside it.
        expect(readFileSync(artifact, 'utf8'), what).toBe(planned.content);
        expect(tempFilesBeside(artifact), what).toEqual([]);
      }
      return true;
    }

    expect(outcome, what).toMatchObject({ kind: 'refused' });
    if (outcome.kind !== 'refused') return true;
    attempt.code = outcome.code;
    model.totals.refused[outcome.code] = (model.totals.refused[outcome.code] ?? 0) + 1;
    const { message, details } = refusalDetails(door, outcome);
    if (outcome.code === 'unavailable' || outcome.code === 'disk_full') {
      expect(failing, `${what}: refused as ${outcome.code} with no fault: ${message}`).toBe(true);
      // A full disk (ENOSPC) is the disk's refusal: 507, and a JSON-RPC error on MCP. A read-only directory
      // (EROFS) is the room's: 503, and a tool result on MCP.
      const reason = outcome.code === 'disk_full' ? 'ENOSPC' : 'EROFS';
      expect(outcome.status, what).toBe(reason === 'ENOSPC' ? 507 : door === 'rest' ? 503 : 200);
      expect(message, what).toBe(
        reason === 'ENOSPC'
          ? 'the disk is full: the room could not write room.md; nothing was accepted, the file is as it was and the proposal stays open'
          : 'the room could not write room.md (EROFS: read-only file system); nothing was accepted, the file is as it was and the proposal stays open',
      );
      if (door === 'mcp') {
        expect(details, what).toMatchObject(
          reason === 'ENOSPC' ? { reason: 'disk full', cause: 'ENOSPC', code: 'disk_full' } : { reason },
        );
      }
      model.totals.failedWrites[reason!] = (model.totals.failedWrites[reason!] ?? 0) + 1;
      // The file as it was, no temp file, and the proposal still open.
      expect(readFileSync(artifact), what).toEqual(before);
      expect(tempFilesBeside(artifact), what).toEqual([]);
      const read =
        door === 'rest'
          ? await client.rest('GET', `/proposals/${id}`)
          : await client.mcp('tools/call', { name: 'proposal_get', arguments: { proposal_id: id } });
      if (read.kind === 'lost') return false;
      expect(read, what).toMatchObject({ kind: 'acknowledged' });
      const still = door === 'rest' ? (read as Wire).body : structured(read);
      expect(still, what).toMatchObject({ proposal: { status: 'open', decided_by: null }, revision: null });
      return true;
    }
    expect(outcome.code, `${what}: ${message}`).toBe('conflict');
    if (failing) expect(readFileSync(artifact), what).toEqual(before);
    if (details.current_revision === undefined) {
      // Another approver decided it first.
      expect(message, what).toMatch(new RegExp(`^proposal ${id} is (accepted|rejected), not open$`));
      return true;
    }
    // A stale base: it can never be accepted now; reject it so the open list stays short.
    expect(message, what).toMatch(new RegExp(`^proposal ${id} is based on revision ${planned.baseRevision}, but`));
    expect(details.current_revision, what).toBeGreaterThan(planned.baseRevision);
    return reject(context, client, planned);
  }

  async function reject(context: LoadContext, client: RoomClient, planned: PlannedProposal): Promise<boolean> {
    const approver = client.participant as Approver;
    const door = APPROVERS[approver];
    const id = planned.id!;
    const attempt: Attempt = { by: approver, door, round: context.round, outcome: 'lost' };
    planned.rejections.push(attempt);
    const note = 'stale';
    const outcome =
      door === 'rest'
        ? await client.rest('POST', `/proposals/${id}/reject`, { note })
        : await client.mcp('tools/call', { name: 'proposal_reject', arguments: { proposal_id: id, note } });
    attempt.outcome = outcome.kind;
    if (outcome.kind === 'lost') return false;
    const what = `${approver} rejects ${id} through ${door}`;
    if (outcome.kind === 'refused') {
      // The other approver rejected it first.
      attempt.code = outcome.code;
      expect({ code: outcome.code, message: refusalDetails(door, outcome).message }, what).toEqual({
        code: 'conflict',
        message: `proposal ${id} is rejected, not open`,
      });
      return true;
    }
    expect(outcome, what).toMatchObject({ kind: 'acknowledged' });
    const decided = door === 'rest' ? (outcome as Wire).body : structured(outcome);
    expect(decided, what).toMatchObject({ proposal: { status: 'rejected', decided_by: approver }, revision: null });
    return true;
  }

  async function writer(context: LoadContext, client: RoomClient, random: Random) {
    for (let n = 0; !context.killed; n++) {
      if (!(await propose(context, client, n, random))) return;
      await sleep(between(random, WRITER_PAUSE_MS.min, WRITER_PAUSE_MS.max));
    }
  }

  async function approver(context: LoadContext, client: RoomClient, random: Random) {
    const door = APPROVERS[client.participant as Approver];
    for (let n = 0; !context.killed; n++) {
      const open = await listOpen(client, door);
      if (open === null) return;
      if (open.length === 0) {
        await sleep(between(random, IDLE_PAUSE_MS.min, IDLE_PAUSE_MS.max));
        continue;
      }
      // The newest base is the likeliest to be current.
      const newestBase = Math.max(...open.map((proposal) => proposal.base_revision as number));
      const chosen = pick(
        random,
        open.filter((proposal) => proposal.base_revision === newestBase),
      );
      const going = failing
        ? await model.oneApprovalAtATime(() => approve(context, client, n, chosen))
        : await approve(context, client, n, chosen);
      if (!going) return;
    }
  }

  /** Saves its own text over the file now and then, as an editor does (write a file, rename it over). */
  async function editor(context: LoadContext, random: Random) {
    const saving = `${artifact}.saving`;
    for (let n = 0; ; n++) {
      await sleep(between(random, EDITOR_PAUSE_MS.min, EDITOR_PAUSE_MS.max));
      if (context.killed) return;
      const content = `${INITIAL_CONTENT}\neditor r${context.round}.${n} — ✎\n`;
      model.editorSaves.add(content);
      writeFileSync(saving, content);
      renameSync(saving, artifact);
      model.totals.editorSaves++;
    }
  }

  /** What must hold of any sidecar the room left, killed or not; settles what the load could not know. */
  function checkRecords(reader: Room, round: number): { revisions: RevisionRow[]; pending: PendingWriteRow[] } {
    const db = reader.store.db;
    const revisions = db.prepare('SELECT * FROM revisions ORDER BY number').all() as RevisionRow[];
    const proposals = db.prepare('SELECT * FROM proposals').all() as ProposalRow[];
    const pending = db.prepare('SELECT * FROM pending_writes').all() as PendingWriteRow[];
    const byId = new Map(proposals.map((row) => [row.id, row]));

    // A chain of revisions from the initial one, each a distinct text.
    expect(revisions.map((row) => row.number)).toEqual(revisions.map((_, index) => index + 1));
    expect(revisions[0]).toMatchObject({ number: 1, source: 'initial', content: INITIAL_CONTENT });
    expect(new Set(revisions.map((row) => row.hash)).size, 'two revisions of the same text').toBe(revisions.length);
    for (const row of revisions.slice(1)) {
      const what = `revision ${row.number} (${row.source}) after round ${round}`;
      expect(typeof row.content, what).toBe('string');
      const bytes = Buffer.from(row.content as string, 'utf8');
      expect({ hash: row.hash, size: row.size }, what).toEqual({ hash: hashBytes(bytes), size: bytes.length });
      if (row.source === 'proposal') {
        const proposal = byId.get(row.proposal_id!);
        expect(proposal, what).toMatchObject({
          status: 'accepted',
          revision: row.number,
          author: row.author,
          decided_by: row.approver,
          content: row.content,
          base_revision: row.number - 1,
        });
        const planned = model.identify(proposal!.id, proposal!.content, proposal!.author);
        // Accepted by an approver who asked and was not refused.
        const asked = planned.approvals.filter(
          (attempt) => attempt.by === row.approver && attempt.outcome !== 'refused',
        );
        expect(asked.length, `${what}: approved by ${row.approver}, who did not ask or was refused`).toBeGreaterThan(0);
      } else {
        expect(row.source, what).toBe('external');
        expect(editing, `${what}: an external revision the room wrote itself`).toBe(true);
        expect(model.editorSaves.has(row.content as string), `${what}: not a text the editor saved`).toBe(true);
        expect(row, what).toMatchObject({ author: null, approver: null, proposal_id: null });
      }
    }

    // An editor save once answered as recorded stays recorded.
    const texts = new Set(revisions.map((row) => row.content));
    for (const content of model.editorSavesRecorded) {
      expect(texts.has(content), `the recorded save ${JSON.stringify(content)} is lost`).toBe(true);
    }

    // Every stored proposal is one the load sent, in the state its decisions allow.
    for (const row of proposals) {
      const planned = model.identify(row.id, row.content, row.author);
      const what = `proposal ${row.id} of ${row.author} (${row.status}) after round ${round}`;
      expect(planned.stored, `${what} was found absent before`).not.toBe(false);
      planned.stored = true;
      expect(row.base_revision, what).toBe(planned.baseRevision);
      const acked = (attempts: Attempt[]) => attempts.filter((attempt) => attempt.outcome === 'acknowledged');
      const couldHave = (attempts: Attempt[]) =>
        attempts.some((attempt) => attempt.by === row.decided_by && attempt.outcome !== 'refused');
      expect(acked(planned.approvals).length + acked(planned.rejections).length, what).toBeLessThanOrEqual(1);
      switch (row.status) {
        case 'accepted':
          expect(revisions[row.revision! - 1], what).toMatchObject({ source: 'proposal', proposal_id: row.id });
          expect(couldHave(planned.approvals), what).toBe(true);
          for (const attempt of acked(planned.approvals)) expect(attempt.by, what).toBe(row.decided_by);
          break;
        case 'rejected':
          expect(couldHave(planned.rejections), what).toBe(true);
          expect(acked(planned.approvals), what).toEqual([]);
          for (const attempt of acked(planned.rejections)) expect(attempt.by, what).toBe(row.decided_by);
          break;
        case 'open':
          expect({ approved: acked(planned.approvals), rejected: acked(planned.rejections) }, what).toEqual({
            approved: [],
            rejected: [],
          });
          break;
        default:
          throw new Error(`${what}: nobody withdraws`);
      }
    }
    for (const planned of model.byContent.values()) {
      if (planned.stored === true) {
        expect(byId.has(planned.id!), `proposal ${planned.id} (through ${planned.door}) is lost`).toBe(true);
      } else if (!byId.has(planned.id ?? '')) {
        planned.stored = false; // a lost propose that never committed: it must stay absent
      }
    }

    // At most one write in progress, of an open proposal on the current revision.
    expect(pending.length).toBeLessThanOrEqual(1);
    if (pending[0]) {
      const write = pending[0];
      const proposal = byId.get(write.proposal_id);
      const what = `the pending write of ${write.proposal_id} after round ${round}`;
      expect(proposal, what).toMatchObject({ status: 'open' });
      expect(write, what).toMatchObject({
        hash: hashBytes(Buffer.from(proposal!.content, 'utf8')),
        base_revision: revisions.at(-1)!.number,
      });
      // Its approval was never answered.
      const planned = model.byId.get(write.proposal_id)!;
      expect(
        planned.approvals.filter((attempt) => attempt.by === write.approver).map((attempt) => attempt.outcome),
        what,
      ).toContain('lost');
    }
    return { revisions, pending };
  }

  const scenario: CrashScenario = {
    prepare(room) {
      artifact = room.artifactPath;
    },

    async load(context) {
      // Each participant draws from its own stream, taken in a fixed order.
      const streams = () => seededRandom(Math.floor(context.random() * 2 ** 32));
      const work: Promise<void>[] = [];
      for (const name of WRITERS) work.push(writer(context, context.clients[name]!, streams()));
      for (const name of Object.keys(APPROVERS)) work.push(approver(context, context.clients[name]!, streams()));
      const editorRandom = streams();
      if (editing) work.push(editor(context, editorRandom));
      await Promise.all(work);
    },

    checkStored(reader, round, after) {
      const { revisions, pending } = checkRecords(reader, round.round);
      const disk = readFileSync(artifact);
      const current = revisions.at(-1)!;
      const temps = tempFilesBeside(artifact);
      if (after === 'stopped') {
        // A clean stop leaves nothing half done.
        expect({ pending, temps }).toEqual({ pending: [], temps: [] });
        expect(hashBytes(disk)).toBe(current.hash);
        return;
      }
      model.totals.rounds++;
      model.totals.lost += round.ledger.entries.filter((entry) => entry.outcome.kind === 'lost').length;
      // The file is the current revision, or the one write the kill interrupted after its rename, or the editor's last save.
      const allowed = [current.hash, ...pending.map((write) => write.hash)];
      const diskText = disk.toString('utf8');
      if (!allowed.includes(hashBytes(disk))) {
        expect(
          editing && model.editorSaves.has(diskText),
          `the file after the kill of round ${round.round} holds ${JSON.stringify(diskText)}, ` +
            `neither revision ${current.number} nor a pending write`,
        ).toBe(true);
      }
      // A temp file only of the write the kill interrupted (writes are one at a time).
      expect(temps.length, `temp files after the kill: ${temps.join(', ')}`).toBeLessThanOrEqual(1);
      for (const temp of temps) expect(temp).toMatch(new RegExp(`^\\.room\\.md\\.${round.pid}\\.\\d+\\.tmp$`));
      model.atKill = { disk, revisions, pending: pending[0] };
    },

    async checkServed(clients, round) {
      const atKill = model.atKill!;
      const write = atKill.pending;
      const what = `after the restart that followed round ${round.round}`;
      const disk = readFileSync(artifact);
      const diskHash = hashBytes(disk);
      // The restart wrote nothing to the file and left nothing beside it.
      expect(disk.equals(atKill.disk), `${what}: the file changed`).toBe(true);
      expect(tempFilesBeside(artifact), what).toEqual([]);

      const reader = openRoom(artifact, { mode: 'read' });
      let current: RevisionRow;
      let proposals: Map<string, ProposalRow>;
      try {
        const db = reader.store.db;
        const revisions = db.prepare('SELECT * FROM revisions ORDER BY number').all() as RevisionRow[];
        proposals = new Map((db.prepare('SELECT * FROM proposals').all() as ProposalRow[]).map((row) => [row.id, row]));
        expect(db.prepare('SELECT * FROM pending_writes').all(), `${what}: a pending write remains`).toEqual([]);
        current = revisions.at(-1)!;
        expect(current.hash, `${what}: the file is not the current revision`).toBe(diskHash);

        // The restart recorded at most the one revision the file held beyond the record.
        expect(revisions.slice(0, atKill.revisions.length), what).toEqual(atKill.revisions);
        const added = revisions.slice(atKill.revisions.length);
        if (write && write.hash === diskHash) {
          // Killed after the rename, before the record: the revision is the proposal's, with its author and approver.
          const proposal = proposals.get(write.proposal_id)!;
          expect(added, `${what}: the pending write in the file`).toEqual([
            {
              number: write.base_revision + 1,
              hash: write.hash,
              size: write.size,
              content: proposal.content,
              source: 'proposal',
              author: proposal.author,
              approver: write.approver,
              proposal_id: write.proposal_id,
              at: write.at,
              merged_base: null,
            },
          ]);
          expect(proposal, what).toMatchObject({
            status: 'accepted',
            decided_by: write.approver,
            decided_at: write.at,
            note: write.note,
          });
        } else {
          if (write) {
            // The write never reached the file: dropped, the proposal still open.
            expect(proposals.get(write.proposal_id)?.status, `${what}: the pending write not in the file`).toBe('open');
          }
          if (diskHash === atKill.revisions.at(-1)!.hash) expect(added, what).toEqual([]);
          // Else only an editor's save the room had not yet seen.
          else expect(added, what).toMatchObject([{ source: 'external', hash: diskHash }]);
        }
        model.totals.externalRevisions = revisions.filter((row) => row.source === 'external').length;
        checkRecords(reader, round.round);
      } finally {
        reader.close();
      }

      // The room serves the same through both doors.
      const text = disk.toString('utf8');
      const rest = await clients.alice!.rest('GET', '/artifact');
      expect(rest, what).toMatchObject({
        kind: 'acknowledged',
        body: { content: text, unrecorded_edit: false, revision: { number: current.number, hash: diskHash } },
      });
      const mcp = await clients.bob!.mcp('resources/read', { uri: 'workspace:///room.md' });
      expect(mcp, what).toMatchObject({ kind: 'acknowledged', body: { contents: [{ text }] } });
      // Each proposal the round approved or tried to (but for a conflict), as the sidecar has it.
      const touched = [...model.byId.values()].filter(
        (planned) =>
          planned.approvals.some(
            (attempt) =>
              attempt.round === round.round && (attempt.outcome !== 'refused' || attempt.code !== 'conflict'),
          ) || planned.id === write?.proposal_id,
      );
      for (const [index, planned] of touched.entries()) {
        const row = proposals.get(planned.id!)!;
        const expected = { proposal: { proposal_id: row.id, status: row.status, revision: row.revision } };
        if (index % 2 === 0) {
          const read = await clients.dave!.mcp('tools/call', {
            name: 'proposal_get',
            arguments: { proposal_id: row.id },
          });
          expect(read, what).toMatchObject({ kind: 'acknowledged', body: { structuredContent: expected } });
        } else {
          const read = await clients.erin!.rest('GET', `/proposals/${row.id}`);
          expect(read, what).toMatchObject({ kind: 'acknowledged', body: expected });
        }
      }
    },
  };

  return {
    scenario,
    totals: model.totals,
    /** With failing writes: each `ce serve` preloads the fault, at the write and the rename in turn, seeded per start. */
    serve: failing
      ? ({ start, seed, artifact: file }: ServeStart): CeServeOptions => ({
          nodeArgs: ['--import', 'tsx', '--import', FIXTURE],
          env: {
            FAIL_ARTIFACT_DIR: path.dirname(file),
            FAIL_ARTIFACT_FAULT: (start % 2 === 1 ? 'write' : 'rename') satisfies ArtifactFault,
            FAIL_ARTIFACT_RATIO: String(options.failingWrites!.ratio),
            FAIL_ARTIFACT_SEED: String(seed),
          },
        })
      : undefined,
  };
}
