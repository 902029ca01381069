// The room the fuzz suite talks to: a sidecar prepared with the engine
// (participants, sessions of every kind, a few handoffs and a proposal),
// then served by the real `ce serve` process. The database is read through a
// separate read-only connection, so the suite can show that a refused request
// changed nothing.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Capability } from '../../generated/types.js';
import {
  acceptHandoff,
  addParticipant,
  createHandoff,
  createSession,
  LOCAL_OPERATOR,
  openRoom,
  proposeChange,
  removeParticipant,
  revokeSession,
  syncArtifact,
} from '../helpers/engine.js';
import { readRuntimeFile } from '../../src/http/runtime-file.js';
import { ceServe, type ServedRoom } from '../helpers/ce-serve.js';
import { tempDir } from '../helpers/room.js';

/** What each session of ValidTokens may do: the one list the room is made with and the cases expect. */
export const SESSION_CAPABILITIES = {
  alice: ['read', 'write'],
  bob: ['read', 'write'],
  carol: ['read'],
  dave: ['read', 'approve'],
  admin: ['admin'],
  approveOnly: ['approve'],
} as const satisfies Record<keyof ValidTokens, readonly [Capability, ...Capability[]]>;

/** Tokens that open a session, by who holds them. */
export interface ValidTokens {
  /** read, write: owns the seeded handoffs */
  alice: string;
  /** read, write: the seeded handoffs' assignee */
  bob: string;
  /** read only: never owner nor assignee of a task */
  carol: string;
  /** read, approve: never owner nor assignee of a task */
  dave: string;
  /** admin only (as dave) */
  admin: string;
  /** approve only (as dave): no read */
  approveOnly: string;
}

/** Tokens that open no session on /mcp (the operator token works on REST only). */
export interface RefusedTokens {
  revoked: string;
  expired: string;
  /** a session of a participant since removed */
  removed: string;
  /** well-formed, never issued */
  unknown: string;
}

export interface RoomIds {
  artifactUri: string;
  /** alice → bob, open */
  openHandoff: string;
  openTask: string;
  /** alice → bob, accepted by bob */
  acceptedHandoff: string;
  acceptedTask: string;
  /** alice, no assignee */
  unassignedHandoff: string;
  unassignedTask: string;
  /** alice's open proposal against revision 1 */
  proposal: string;
  revokedSession: string;
}

export interface FuzzRoom {
  served: ServedRoom;
  baseUrl: string;
  /** http://host:port as a browser on the room's own page would send it */
  ownOrigin: string;
  tokens: ValidTokens;
  refused: RefusedTokens;
  operatorToken: string;
  ids: RoomIds;
  /** Every row of every table, as one string: equal strings, equal databases. */
  dump(): string;
  /** Which tables differ between two dumps, with their rows, to say what a refused request changed. */
  difference(before: string, after: string): string;
  stop(): Promise<void>;
}

/** Participants the suite may add and remove freely (admin routes aim only at these and at unknown names). */
export const SPARE_PARTICIPANTS = ['spare-1', 'spare-2'] as const;

export async function startFuzzRoom(): Promise<FuzzRoom> {
  const dir = tempDir();
  const artifact = path.join(dir, 'room.md');
  writeFileSync(artifact, '# Fuzz room\n\nA line to change.\n');

  const room = openRoom(artifact, { command: 'fuzz setup' });
  syncArtifact(room);
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', ...SPARE_PARTICIPANTS]) {
    addParticipant(room, LOCAL_OPERATOR, { name });
  }
  const session = (participant: string, capabilities: readonly [Capability, ...Capability[]]) =>
    createSession(room, LOCAL_OPERATOR, {
      participant,
      capabilities: [...capabilities] as [Capability, ...Capability[]],
    });
  const caps = SESSION_CAPABILITIES;
  const tokens: ValidTokens = {
    alice: session('alice', caps.alice).token,
    bob: session('bob', caps.bob).token,
    carol: session('carol', caps.carol).token,
    dave: session('dave', caps.dave).token,
    admin: session('dave', caps.admin).token,
    approveOnly: session('dave', caps.approveOnly).token,
  };
  const revoked = session('alice', ['read', 'write']);
  revokeSession(room, LOCAL_OPERATOR, { session_id: revoked.session.session_id });
  const expired = session('alice', ['read', 'write']);
  // An expiry already past, without waiting for one.
  room.sidecar.db.prepare('UPDATE sessions SET expires_at = created_at WHERE id = ?').run(expired.session.session_id);
  const removed = session('erin', ['read', 'write']);
  removeParticipant(room, LOCAL_OPERATOR, { name: 'erin' });

  const alice = { participant: 'alice', capabilities: ['read', 'write'] as Capability[] };
  const bob = { participant: 'bob', capabilities: ['read', 'write'] as Capability[] };
  const open = createHandoff(room, alice, { summary: 'Proofread the introduction', assignee: 'bob' }).handoff;
  const accepted = createHandoff(room, alice, { summary: 'Write the summary', assignee: 'bob' }).handoff;
  acceptHandoff(room, bob, { handoff_id: accepted.handoff_id });
  const unassigned = createHandoff(room, alice, { summary: 'Anyone: check the links' }).handoff;
  const proposal = proposeChange(room, alice, {
    base_revision: 1,
    content: '# Fuzz room\n\nA changed line.\n',
    summary: 'A change',
  }).proposal;
  room.close();

  const served = await ceServe(artifact);
  const runtime = readRuntimeFile(artifact);
  if (!runtime) throw new Error('ce serve wrote no runtime file');
  const ownOrigin = new URL(served.mcpUrl).origin;

  const reader = new Database(`${artifact}.commonroom.db`, { readonly: true, fileMustExist: true });
  const tables = (
    reader.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
  ).map(({ name }) => ({ name, rows: reader.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).raw(true) }));
  // One read transaction: every table as of the same commit.
  const readAll = reader.transaction(() => tables.map(({ name, rows }) => [name, rows.all()]));
  const rowsByTable = (dump: string) =>
    new Map(
      (JSON.parse(dump) as [string, unknown[]][]).map(([name, rows]) => [name, rows.map((row) => JSON.stringify(row))]),
    );
  const shorten = (row: string) => (row.length > 400 ? `${row.slice(0, 400)}…` : row);

  return {
    served,
    baseUrl: runtime.base_url,
    ownOrigin,
    tokens,
    refused: {
      revoked: revoked.token,
      expired: expired.token,
      removed: removed.token,
      unknown: `cr_${'A'.repeat(43)}`,
    },
    operatorToken: runtime.operator_token,
    ids: {
      artifactUri: 'workspace:///room.md',
      openHandoff: open.handoff_id,
      openTask: open.task_id,
      acceptedHandoff: accepted.handoff_id,
      acceptedTask: accepted.task_id,
      unassignedHandoff: unassigned.handoff_id,
      unassignedTask: unassigned.task_id,
      proposal: proposal.proposal_id,
      revokedSession: revoked.session.session_id,
    },
    dump: () => JSON.stringify(readAll()),
    difference(before, after) {
      const was = rowsByTable(before);
      const lines: string[] = [];
      for (const [name, rows] of rowsByTable(after)) {
        const old = new Set(was.get(name) ?? []);
        const now = new Set(rows);
        const gone = [...old].filter((row) => !now.has(row));
        const added = rows.filter((row) => !old.has(row));
        if (gone.length === 0 && added.length === 0) continue;
        lines.push(
          `${name}:`,
          ...gone.map((row) => `  - ${shorten(row)}`),
          ...added.map((row) => `  + ${shorten(row)}`),
        );
      }
      return lines.join('\n');
    },
    async stop() {
      reader.close();
      await served.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
