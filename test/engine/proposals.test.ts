import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPatch } from 'diff';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  approveHandoff,
  approveProposal,
  acceptHandoff,
  completeHandoff,
  createHandoff,
  getProposal,
  listProposals,
  proposeChange,
  readArtifact,
  rejectProposal,
  syncArtifact,
  watchArtifact,
  withdrawProposal,
  listHistory,
  type Room,
  type RoomChange,
} from '../helpers/engine.js';
import { expectRefused } from '../helpers/expect-refused.js';
import { caller, makeRoom, type TestRoom } from '../helpers/room.js';

const alice = caller('alice');
const bob = caller('bob');
const approver = caller('dave', ['read', 'approve']);
const ORIGINAL = '# Test room\n';

let t: TestRoom;
let room: Room;
beforeEach(() => {
  t = makeRoom();
  room = t.room;
  syncArtifact(room); // revision 1: the file as the room found it
});
afterEach(() => t.close());

const onDisk = () => readFileSync(t.artifact, 'utf8');

describe('the artifact', () => {
  test('reading gives the file and its revision', () => {
    const read = readArtifact(room, alice);
    expect(read).toMatchObject({ name: 'room.md', content: ORIGINAL, unrecorded_edit: false });
    expect(read.revision).toMatchObject({ number: 1, source: 'initial', author: null, size: ORIGINAL.length });
    expect(read.revision.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  test('an outside edit is noticed on read and recorded as an external revision with its event', () => {
    const sub = room.bus.subscribe();
    writeFileSync(t.artifact, '# Edited in vim\n');
    const read = readArtifact(room, alice);
    expect(read).toMatchObject({ content: '# Edited in vim\n', revision: { number: 2, source: 'external' } });
    expect(sub.pending).toBe(1);
    // Reading again records nothing more.
    expect(readArtifact(room, alice).revision.number).toBe(2);
    expect(sub.pending).toBe(1);
  });

  test('the watcher records an outside edit without anyone reading', async () => {
    const changes: RoomChange[] = [];
    const sub = room.bus.subscribe();
    const stop = watchArtifact(room);
    try {
      // Editors often write a new file and rename it over the old one.
      const temp = path.join(t.dir, '.room.md.swp');
      writeFileSync(temp, '# Saved by an editor\n');
      renameSync(temp, t.artifact);
      changes.push((await sub.next())!);
    } finally {
      stop();
    }
    expect(changes[0]!.event).toMatchObject({ type: 'artifact.external_edit', actor: null, payload: { revision: 2 } });
  });
});

describe('proposals', () => {
  test('propose → approve writes the file atomically and records the revision, history and event', () => {
    const { proposal } = proposeChange(room, alice, {
      base_revision: 1,
      content: '# Better room\n',
      summary: 'retitle',
    });
    expect(proposal).toMatchObject({ status: 'open', author: 'alice', base_revision: 1, summary: 'retitle' });
    expect(onDisk()).toBe(ORIGINAL);

    const out = approveProposal(room, approver, { proposal_id: proposal.proposal_id, note: 'yes' });
    expect(out.proposal).toMatchObject({ status: 'accepted', decided_by: 'dave', note: 'yes', revision: 2 });
    expect(out.revision).toMatchObject({ number: 2, source: 'proposal', author: 'alice', approver: 'dave' });
    expect(onDisk()).toBe('# Better room\n');
    expect(readArtifact(room, alice).revision.number).toBe(2); // no outside edit was seen
    const kinds = listHistory(room, alice, {}).entries.map((e) => [e.kind, e.revision?.number ?? null]);
    expect(kinds).toEqual([
      ['revision', 1],
      ['revision', 2],
    ]);
    // No temp file left beside the artifact.
    expect(readdirSync(t.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  test('a unified diff against the base revision', () => {
    const diff = createPatch('room.md', ORIGINAL, '# Test room\n\nA new paragraph.\n');
    const { proposal } = proposeChange(room, bob, { base_revision: 1, diff, summary: 'A change' });
    expect(proposal.content).toBe('# Test room\n\nA new paragraph.\n');
    approveProposal(room, approver, { proposal_id: proposal.proposal_id });
    expect(onDisk()).toBe('# Test room\n\nA new paragraph.\n');
    const stale = createPatch('room.md', 'something else\n', 'other\n');
    expectRefused(
      room,
      () => proposeChange(room, bob, { base_revision: 2, diff: stale, summary: 'A change' }),
      'invalid_input',
      /does not apply to revision 2/,
    );
    expectRefused(
      room,
      () => proposeChange(room, bob, { base_revision: 2, diff: 'not a diff', summary: 'A change' }),
      'invalid_input',
      /diff/,
    );
  });

  test('a change to the same lines as a later revision is a conflict naming them, and nothing is written', () => {
    const first = proposeChange(room, alice, { base_revision: 1, content: 'first\n', summary: 'A change' }).proposal;
    const second = proposeChange(room, bob, { base_revision: 1, content: 'second\n', summary: 'A change' }).proposal;
    approveProposal(room, approver, { proposal_id: first.proposal_id });
    const error = expectRefused(
      room,
      () => approveProposal(room, approver, { proposal_id: second.proposal_id }),
      'conflict',
      `proposal ${second.proposal_id} is based on revision 1, but the artifact is at revision 2, and both change the same or adjacent lines: line 1 of revision 1, line 1 in revision 2 and line 1 in the proposal. Nothing was written; propose again from revision 2`,
    );
    const line1 = { start: 1, count: 1 };
    expect(error.details).toEqual({
      base_revision: 1,
      current_revision: 2,
      conflicts: [{ base: line1, current: line1, proposal: line1 }],
    });
    expect(onDisk()).toBe('first\n');
    expect(getProposal(room, alice, { proposal_id: second.proposal_id }).proposal.status).toBe('open');
  });

  test('an outside edit to the same lines conflicts with an open proposal: it is never overwritten silently', () => {
    const { proposal } = proposeChange(room, alice, {
      base_revision: 1,
      content: 'from the room\n',
      summary: 'A change',
    });
    writeFileSync(t.artifact, 'typed straight into the file\n');
    // The approval first records the outside edit, then refuses the proposal that changes the same line.
    expect(() => approveProposal(room, approver, { proposal_id: proposal.proposal_id })).toThrow(
      /based on revision 1, but the artifact is at revision 2/,
    );
    expect(getProposal(room, alice, { proposal_id: proposal.proposal_id }).proposal.status).toBe('open');
    expect(onDisk()).toBe('typed straight into the file\n');
    expect(readArtifact(room, alice).revision).toMatchObject({ number: 2, source: 'external' });
  });

  test('reject and withdraw close a proposal without touching the file', () => {
    const rejected = proposeChange(room, alice, { base_revision: 1, content: 'no\n', summary: 'A change' }).proposal;
    const withdrawn = proposeChange(room, alice, {
      base_revision: 1,
      content: 'maybe\n',
      summary: 'A change',
    }).proposal;
    expect(
      rejectProposal(room, approver, { proposal_id: rejected.proposal_id, note: 'off topic' }).proposal,
    ).toMatchObject({
      status: 'rejected',
      decided_by: 'dave',
      note: 'off topic',
      revision: null,
    });
    expectRefused(
      room,
      () => withdrawProposal(room, bob, { proposal_id: withdrawn.proposal_id }),
      'forbidden',
      /only the author \(alice\)/,
    );
    expect(withdrawProposal(room, alice, { proposal_id: withdrawn.proposal_id }).proposal.status).toBe('withdrawn');
    expect(onDisk()).toBe(ORIGINAL);
    for (const p of [rejected, withdrawn]) {
      expectRefused(
        room,
        () => approveProposal(room, approver, { proposal_id: p.proposal_id }),
        'conflict',
        /not open/,
      );
      expectRefused(room, () => rejectProposal(room, approver, { proposal_id: p.proposal_id }), 'conflict', /not open/);
    }
    expect(listHistory(room, alice, {}).entries.map((e) => [e.kind, e.actor, e.note])).toEqual([
      ['revision', null, null],
      ['proposal_rejected', 'dave', 'off topic'],
      ['proposal_withdrawn', 'alice', null],
    ]);
    expect(listProposals(room, alice, {}).proposals).toEqual([]);
    expect(listProposals(room, alice, { status: 'rejected' }).proposals.map((p) => p.proposal_id)).toEqual([
      rejected.proposal_id,
    ]);
  });

  test('a page of proposals ends early once it holds 4 MiB of text; next_cursor goes on from there, missing none', () => {
    const line = `${'x'.repeat(99)}\n`;
    const ids = Array.from({ length: 12 }, (_, i) => {
      const content = `${ORIGINAL}${i}\n${line.repeat(4_000)}`; // 400 KB, and as much again in its diff
      return proposeChange(room, alice, { base_revision: 1, content, summary: `Long ${i}` }).proposal.proposal_id;
    });
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = listProposals(room, alice, { limit: 500, ...(cursor ? { cursor } : {}) });
      pages.push(page.proposals.map((p) => p.proposal_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(pages.length).toBeGreaterThan(1);
    // 4 MiB of content and diffs, and the one that passed it: 5 or 6 of these.
    expect(pages[0]!.length).toBeGreaterThanOrEqual(5);
    expect(pages[0]!.length).toBeLessThanOrEqual(6);
    // Every one once (made in the same millisecond, they are in id order, not the order made).
    expect(pages.flat().sort()).toEqual([...ids].sort());
  });

  test('bad proposals', () => {
    expectRefused(
      room,
      () => proposeChange(room, alice, { base_revision: 9, content: 'x', summary: 'A change' }),
      'invalid_input',
      /base_revision 9 does not exist/,
    );
    expectRefused(
      room,
      () => proposeChange(room, alice, { base_revision: 1, content: 'x', diff: 'y', summary: 'A change' } as never),
      'invalid_input',
      /^input takes one of content or diff, not both$/,
    );
    expectRefused(
      room,
      () => proposeChange(room, alice, { base_revision: 1, content: 'x'.repeat(512 * 1024 + 1), summary: 'A change' }),
      'too_large',
      /^content must NOT be larger than 524288 bytes/,
    );
    expectRefused(
      room,
      () => getProposal(room, alice, { proposal_id: 'pr_nope' }),
      'not_found',
      /unknown proposal pr_nope/,
    );
  });
});

test('history pages with a cursor across more than one page, and records handoff decisions', () => {
  for (let i = 0; i < 5; i++) {
    const { proposal } = proposeChange(room, alice, {
      base_revision: i + 1,
      content: `version ${i + 2}\n`,
      summary: 'A change',
    });
    approveProposal(room, approver, { proposal_id: proposal.proposal_id });
  }
  const { handoff } = createHandoff(room, alice, { summary: 'x', assignee: 'bob' });
  acceptHandoff(room, bob, { handoff_id: handoff.handoff_id });
  completeHandoff(room, bob, { handoff_id: handoff.handoff_id, result: { content: [] } });
  approveHandoff(room, approver, { handoff_id: handoff.handoff_id, note: 'good' });

  const seen: string[] = [];
  let after = 0;
  let pages = 0;
  for (;;) {
    const page = listHistory(room, alice, { after, limit: 2 });
    pages++;
    seen.push(...page.entries.map((e) => (e.kind === 'revision' ? `r${e.revision!.number}` : e.kind)));
    after = page.next_after;
    if (!page.has_more) break;
  }
  expect(pages).toBe(4);
  expect(seen).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'handoff_approved']);
  expect(listHistory(room, alice, { after }).entries).toEqual([]);

  // Latest first (before, 0 for the latest), then back with next_before; the first page's next_after follows what comes next.
  const back: string[] = [];
  let before = 0;
  const firsts: number[] = [];
  for (;;) {
    const page = listHistory(room, alice, { before, limit: 3 });
    back.push(...page.entries.map((e) => (e.kind === 'revision' ? `r${e.revision!.number}` : e.kind)));
    firsts.push(page.next_after);
    if (!page.has_more) break;
    before = page.next_before!;
  }
  expect(back).toEqual(['handoff_approved', 'r6', 'r5', 'r4', 'r3', 'r2', 'r1']);
  expect(firsts[0]).toBe(after);
  expect(listHistory(room, alice, { before: 1 })).toEqual({ entries: [], next_after: 0, has_more: false });
  expectRefused(
    room,
    () => listHistory(room, alice, { before: 3, after: 2 }),
    'invalid_input',
    'before pages latest first, after oldest first: give one of them',
  );
});

describe('noise', () => {
  let t2: TestRoom;
  beforeEach(() => {
    t2 = makeRoom();
    syncArtifact(t2.room);
  });
  afterEach(() => t2.close());

  test('a proposal that leaves its base as it is is refused, naming the field, and nothing is stored', () => {
    expectRefused(
      t2.room,
      () => proposeChange(t2.room, alice, { base_revision: 1, content: ORIGINAL, summary: 'nothing' }),
      'invalid_input',
      'content leaves revision 1 as it is: a proposal changes something',
    );
    expectRefused(
      t2.room,
      () =>
        proposeChange(t2.room, alice, {
          base_revision: 1,
          diff: '--- room.md\n+++ room.md\n@@ -1,1 +1,1 @@\n-# Test room\n+# Test room\n',
          summary: 'the same line again',
        }),
      'invalid_input',
      'diff leaves revision 1 as it is: a proposal changes something',
    );
  });

  test('a summary of only spaces is refused, for a proposal and for a handoff', () => {
    expectRefused(
      t2.room,
      () => proposeChange(t2.room, alice, { base_revision: 1, content: '# New\n', summary: '  \t ' }),
      'invalid_input',
      'summary must be some text, not only spaces (got "  \\t ")',
    );
    expectRefused(
      t2.room,
      () => createHandoff(t2.room, alice, { summary: '\n\n' }),
      'invalid_input',
      'summary must be some text, not only spaces (got "\\n\\n")',
    );
  });
});
