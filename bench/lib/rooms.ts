// Rooms the benchmarks serve, made with the engine before `ce serve` opens
// them: participants, sessions and, for the scale check, many handoffs.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  acceptHandoff,
  addParticipant,
  approveProposal,
  cancelTask,
  createHandoff,
  createSession,
  LOCAL_OPERATOR,
  openRoom,
  proposeChange,
  type Room,
} from '../../test/helpers/engine.js';

export interface BenchRoom {
  file: string;
  /** alice and bob: read and write. */
  alice: string;
  bob: string;
  /** A working task of alice's, assigned to bob: what tasks/get reads. */
  taskId: string;
  /** More sessions of alice's, one per listen round. */
  listeners: string[];
}

const caller = (participant: string) => ({ participant, capabilities: ['read', 'write'] as ['read', 'write'] });

/**
 * A room with `handoffs` finished (cancelled) handoffs besides its one
 * working task, and `revisions` accepted proposals (each a revision and a
 * decision in the history).
 */
export function makeRoom(
  dir: string,
  name: string,
  options: { handoffs?: number; revisions?: number; listenerSessions?: number } = {},
) {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.md`);
  writeFileSync(file, `# ${name}\n`);
  const room: Room = openRoom(file, { command: 'ce bench' });
  try {
    const session = (participant: string) =>
      createSession(room, LOCAL_OPERATOR, { participant, capabilities: ['read', 'write'] }).token;
    for (const participant of ['alice', 'bob']) addParticipant(room, LOCAL_OPERATOR, { name: participant });
    // Seeding only: the bench's own rows need not each wait for the disk.
    room.sidecar.db.pragma('synchronous = OFF');
    for (let i = 0; i < (options.handoffs ?? 0); i++) {
      const made = createHandoff(room, caller('alice'), { summary: `Seeded handoff ${i}`, assignee: 'bob' });
      cancelTask(room, caller('alice'), { task_id: made.handoff.task_id });
    }
    let base = 1;
    for (let i = 0; i < (options.revisions ?? 0); i++) {
      const { proposal } = proposeChange(room, caller('alice'), {
        base_revision: base,
        content: `# ${name}\n\nRevision ${i + 2}.\n`,
        summary: `Seeded edit ${i}`,
      });
      const approver = { participant: 'bob', capabilities: ['read', 'approve'] as ['read', 'approve'] };
      base = approveProposal(room, approver, { proposal_id: proposal.proposal_id }).proposal.revision!;
    }
    const made = createHandoff(room, caller('alice'), { summary: 'The task tasks/get reads', assignee: 'bob' });
    acceptHandoff(room, caller('bob'), { handoff_id: made.handoff.handoff_id });
    room.sidecar.db.pragma('synchronous = FULL');
    return {
      file,
      alice: session('alice'),
      bob: session('bob'),
      taskId: made.handoff.task_id,
      listeners: Array.from({ length: options.listenerSessions ?? 0 }, () => session('alice')),
    } satisfies BenchRoom;
  } finally {
    room.close();
  }
}

/** Events and handoffs a room holds, read after seeding (for the report). */
export function roomCounts(file: string): { handoffs: number; events: number; revisions: number } {
  const room = openRoom(file, { mode: 'read' });
  try {
    const db = room.sidecar.db;
    return {
      handoffs: (db.prepare('SELECT count(*) AS n FROM handoffs').get() as { n: number }).n,
      events: (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n,
      revisions: (db.prepare('SELECT count(*) AS n FROM revisions').get() as { n: number }).n,
    };
  } finally {
    room.close();
  }
}
