// ce handoffs, handoff, handoff-events, task, task-cancel, proposals and
// history, through the real binary. The room is filled with the engine in
// this process and closed before ce runs; --json answers are compared with
// what the engine itself answers.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type {
  DetailedTask,
  Handoff,
  HandoffEventsOutput,
  HandoffListOutput,
  HandoffTaskOutput,
  ProposalListOutput,
  TaskCancelOutput,
  WorkspaceHistoryOutput,
} from '../../generated/types.js';
import {
  acceptHandoff,
  addParticipant,
  approveHandoff,
  approveProposal,
  completeHandoff,
  createHandoff,
  getHandoff,
  getTask,
  listHandoffEvents,
  listHandoffs,
  listProposals,
  LOCAL_OPERATOR,
  ManualClock,
  openRoom,
  proposeChange,
  requestHandoffInput,
  syncArtifact,
  listHistory,
  type Room,
} from '../helpers/engine.js';
import { ce, failedWith, failedWithJson, okJson, okPlain } from '../helpers/run-ce.js';
import { caller, tempDir } from '../helpers/room.js';

const SLOW = { timeout: 120_000 };
const alice = caller('alice', ['read', 'write', 'approve']);
const bob = caller('bob');
const carol = caller('carol');

let dir: string;
let file: string;
/** review: accepted by bob, waiting for input; typos: open, anyone may accept; summary: approved. */
let review: Handoff;
let typos: Handoff;
let summary: Handoff;
let inputKey: string;
let accepted: string;
let stillOpen: string;

beforeAll(() => {
  dir = tempDir();
  file = path.join(dir, 'room.md');
  writeFileSync(file, '# Notes\n');
  // A second apart, so newest-first order is not left to ids.
  const clock = new ManualClock(Date.now() - 60_000);
  const room = openRoom(file, { clock, command: 'vitest' });
  const step = <T>(action: () => T): T => {
    clock.advance(1_000);
    return action();
  };
  try {
    step(() => syncArtifact(room));
    for (const name of ['alice', 'bob', 'carol']) step(() => addParticipant(room, LOCAL_OPERATOR, { name }));
    review = step(() =>
      createHandoff(room, alice, { summary: 'Review the intro', constraints: 'Keep it short', assignee: 'bob' }),
    ).handoff;
    step(() => acceptHandoff(room, bob, { handoff_id: review.handoff_id }));
    inputKey = step(() =>
      requestHandoffInput(room, bob, { handoff_id: review.handoff_id, message: 'Which tone?' }),
    ).key;
    typos = step(() => createHandoff(room, alice, { summary: 'Fix the typos\nin section two' })).handoff;
    summary = step(() => createHandoff(room, alice, { summary: 'Summarise the notes', assignee: 'bob' })).handoff;
    step(() => acceptHandoff(room, bob, { handoff_id: summary.handoff_id }));
    step(() =>
      completeHandoff(room, bob, {
        handoff_id: summary.handoff_id,
        result: { content: [{ type: 'text', text: 'done' }] },
      }),
    );
    step(() => approveHandoff(room, alice, { handoff_id: summary.handoff_id, note: 'thanks' }));
    const first = step(() =>
      proposeChange(room, bob, { base_revision: 1, content: '# Notes\n\nMore.\n', summary: 'add more' }),
    );
    accepted = first.proposal.proposal_id;
    step(() => approveProposal(room, alice, { proposal_id: accepted, note: 'looks right' }));
    stillOpen = step(() => proposeChange(room, carol, { base_revision: 2, content: '# Notes\n', summary: 'undo it' }))
      .proposal.proposal_id;
  } finally {
    room.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the engine answers, read the way ce reads: a read-only open. */
function engineSays<T>(read: (room: Room) => T): T {
  const room = openRoom(file, { mode: 'read' });
  try {
    return read(room);
  } finally {
    room.close();
  }
}

describe.concurrent('ce handoffs', () => {
  test('lists newest first, pages with a cursor, filters by status', SLOW, async () => {
    const [plain, firstPage] = await Promise.all([
      ce(['handoffs', file]),
      ce(['handoffs', file, '--limit', '1', '--json']),
    ]);
    const lines = okPlain(plain).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^HANDOFF +STATUS +OWNER +ASSIGNEE +UPDATED +SUMMARY$/);
    expect(lines.slice(1).map((line) => line.split(/ {2,}/))).toEqual([
      [summary.handoff_id, 'approved', 'alice', 'bob', expect.any(String), 'Summarise the notes'],
      [typos.handoff_id, 'open', 'alice', '-', expect.any(String), 'Fix the typos…'],
      [review.handoff_id, 'accepted', 'alice', 'bob', expect.any(String), 'Review the intro'],
    ]);

    const page = okJson<HandoffListOutput>(firstPage);
    expect(page).toEqual(engineSays((room) => listHandoffs(room, LOCAL_OPERATOR, { limit: 1 })));
    expect(page.handoffs.map((h) => h.handoff_id)).toEqual([summary.handoff_id]);
    expect(page.next_cursor).not.toBeNull();
    // The rest, from that cursor, of one status.
    const accepted = okJson<HandoffListOutput>(
      await ce(['handoffs', file, '--status', 'accepted', '--cursor', page.next_cursor!, '--json']),
    );
    expect(accepted).toEqual({
      handoffs: [expect.objectContaining({ handoff_id: review.handoff_id })],
      next_cursor: null,
    });
  });
});

describe.concurrent('ce handoff and ce handoff-events', () => {
  test('show the handoff as the local operator reads it, without its task, and its events', SLOW, async () => {
    const [plain, json, unknown, events, eventsPage] = await Promise.all([
      ce(['handoff', file, review.handoff_id]),
      ce(['handoff', file, review.handoff_id, '--json']),
      ce(['handoff', file, 'ho_made_up']),
      ce(['handoff-events', file, review.handoff_id]),
      ce(['handoff-events', file, review.handoff_id, '--after', '1', '--limit', '1', '--json']),
    ]);
    const shown = okPlain(plain);
    for (const line of [
      `handoff: +${review.handoff_id}`,
      'status: +accepted',
      'summary: +Review the intro',
      'constraints: +Keep it short',
      'owner: +alice',
      'assignee: +bob',
      `task: +${review.task_id} \\(its owner or assignee reads it: ce task `,
      `inputs: +${inputKey}: Which tone\\? \\(asked by bob; not answered\\)`,
      'result: +-',
    ]) {
      expect(shown).toMatch(new RegExp(`^${line}`, 'm'));
    }

    const output = okJson<HandoffTaskOutput>(json);
    expect(output.task).toBeNull();
    expect(output).toEqual(engineSays((room) => getHandoff(room, LOCAL_OPERATOR, { handoff_id: review.handoff_id })));

    failedWith(unknown, 1, /^ce: unknown handoff ho_made_up$/m);

    const rows = okPlain(events).trimEnd().split('\n');
    expect(rows[0]).toMatch(/^EVENT +AT +TYPE +ACTOR +PAYLOAD$/);
    expect(rows.slice(1).map((row) => row.split(/ {2,}/).slice(2, 4))).toEqual([
      ['handoff.created', 'alice'],
      ['handoff.accepted', 'bob'],
      ['task.input_required', 'bob'],
    ]);

    const page = okJson<HandoffEventsOutput>(eventsPage);
    expect(page).toEqual(
      engineSays((room) =>
        listHandoffEvents(room, LOCAL_OPERATOR, { handoff_id: review.handoff_id, after: 1, limit: 1 }),
      ),
    );
    expect(page).toMatchObject({ has_more: true, gap: false });
    expect(page.events.map((e) => e.type)).toEqual(['handoff.created']);
  });
});

describe.concurrent('ce task', () => {
  test('shows the task to its owner and assignee; anyone else gets what a made-up id gets', SLOW, async () => {
    const taskId = review.task_id;
    const [owner, assignee, other, madeUp, stranger, nobody] = await Promise.all([
      ce(['task', file, taskId, '--participant', 'alice']),
      ce(['task', file, taskId, '--participant', 'bob', '--json']),
      ce(['task', file, taskId, '--participant', 'carol']),
      ce(['task', file, 'tk_made_up', '--participant', 'alice']),
      ce(['task', file, taskId, '--participant', 'zed']),
      ce(['task', file, taskId]),
    ]);
    const shown = okPlain(owner);
    expect(shown).toMatch(new RegExp(`^task: +${taskId}$`, 'm'));
    expect(shown).toMatch(/^status: +input_required$/m);
    expect(shown).toMatch(new RegExp(`^input requests: +${inputKey}: Which tone\\?$`, 'm'));

    expect(okJson<DetailedTask>(assignee)).toEqual(engineSays((room) => getTask(room, bob, { task_id: taskId })));

    expect(failedWith(other, 1, /^ce: unknown task$/m)).toBe(failedWith(madeUp, 1, /^ce: unknown task$/m));
    failedWith(stranger, 1, /^ce: zed is not a participant of this room$/m);
    // A task id alone is not authorization: --participant is required.
    failedWith(nobody, 2, /^ce: missing --participant \(who acts, with FILE\)$/m);
  });
});

describe.concurrent('ce proposals and ce history', () => {
  test('list proposals by status and the history of revisions and decisions', SLOW, async () => {
    const [open, acceptedJson, history, historyJson] = await Promise.all([
      ce(['proposals', file]),
      ce(['proposals', file, '--status', 'accepted', '--json']),
      ce(['history', file]),
      ce(['history', file, '--json']),
    ]);
    const openRows = okPlain(open).trimEnd().split('\n');
    expect(openRows[0]).toMatch(/^PROPOSAL +STATUS +MERGES +AUTHOR +BASE +REVISION +DECIDED BY +CREATED +SUMMARY$/);
    expect(openRows.slice(1).map((row) => row.split(/ {2,}/))).toEqual([
      [stillOpen, 'open', 'up to date', 'carol', '2', '-', '-', expect.any(String), 'undo it'],
    ]);
    const acceptedOnly = okJson<ProposalListOutput>(acceptedJson);
    expect(acceptedOnly).toEqual(engineSays((room) => listProposals(room, LOCAL_OPERATOR, { status: 'accepted' })));
    expect(acceptedOnly.proposals).toEqual([
      expect.objectContaining({
        proposal_id: accepted,
        status: 'accepted',
        author: 'bob',
        decided_by: 'alice',
        revision: 2,
      }),
    ]);

    const entries = okPlain(history).trimEnd().split('\n');
    expect(entries[0]).toMatch(/^ID +AT +KIND +ACTOR +REVISION +AUTHOR +APPROVER +DETAIL$/);
    expect(entries.slice(1).map((row) => row.split(/ {2,}/).slice(2))).toEqual([
      ['revision', '-', '1 (initial)', '-', '-', '-'],
      ['handoff_approved', 'alice', '-', '-', '-', `handoff ${summary.handoff_id}; note: thanks`],
      ['revision', 'alice', '2 (proposal)', 'bob', 'alice', `proposal ${accepted}; note: looks right`],
    ]);
    expect(okJson<WorkspaceHistoryOutput>(historyJson)).toEqual(
      engineSays((room) => listHistory(room, LOCAL_OPERATOR, {})),
    );
  });
});

// Last, and alone: it changes the room the tests above read.
describe('ce task-cancel', () => {
  test('the owner cancels; the assignee may not; a finished task stays as it was', SLOW, async () => {
    failedWith(
      await ce(['task-cancel', file, review.task_id, '--participant', 'bob']),
      1,
      /^ce: only the task's owner \(alice\) may cancel it$/m,
    );

    const cancelled = okJson<TaskCancelOutput>(
      await ce(['task-cancel', file, review.task_id, '--participant', 'alice', '--json']),
    );
    expect(cancelled).toMatchObject({ cancelled: true, task: { taskId: review.task_id, status: 'cancelled' } });
    expect(
      engineSays((room) => getHandoff(room, LOCAL_OPERATOR, { handoff_id: review.handoff_id })).handoff.status,
    ).toBe('cancelled');

    expect(okPlain(await ce(['task-cancel', file, summary.task_id, '--participant', 'alice']))).toBe(
      `task ${summary.task_id} was already completed; it stays as it was\n`,
    );
  });
});
