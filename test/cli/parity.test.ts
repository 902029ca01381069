// Every operation command of ce answers the same with and without a running
// room process. Each case runs on twin rooms (copies of one room in one
// state, one served by `ce serve`, one not; one pair for the whole file, its
// parts run in order): a state change goes through the
// room's REST API on the served twin and takes the writer's lock on the
// other; a reading command reads the sidecar either way. Successes and
// refusals alike, the exit code, stdout and stderr (--json: the answer, or
// the error document with its details) must match once ids, tokens,
// cursors and times are normalised. The few differences are the reference's
// (the ce section) and are asserted as such.
import { renameSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { operations, type Operation } from '../../generated/operations.js';
import type { ArtifactReadOutput } from '../../generated/types.js';
import {
  acceptHandoff,
  addParticipant,
  completeHandoff,
  createHandoff,
  createSession,
  LOCAL_OPERATOR,
  openRoom,
  proposeChange,
  removeParticipant,
  syncArtifact,
  type Room,
} from '../helpers/engine.js';
import { caller } from '../helpers/room.js';
import { ce, okJson } from '../helpers/run-ce.js';
import {
  bytesOf,
  coverage,
  ok,
  plain,
  refused,
  twinRooms,
  usage,
  type Case,
  type TwinRooms,
} from '../helpers/twin-rooms.js';

const SLOW = { timeout: 60_000 };
const NOTES = '# Notes\n\nFirst line.\n';
const alice = caller('alice', ['read', 'write', 'approve']);
const bob = caller('bob');

/** What the prepared room holds that cases name. */
const made = { ready: '', waiting: '', early: '' };

/**
 * The room every part starts from, made by the engine and closed: alice, bob
 * and carol (dave was removed), a session of alice's; a handoff of alice's
 * with its result ready, for handoff-reject, and a task of alice's that bob
 * may not see; an early proposal of bob's.
 */
function prepareRoom(file: string): void {
  writeFileSync(file, NOTES);
  const room = openRoom(file, { command: 'vitest' });
  try {
    syncArtifact(room);
    for (const name of ['alice', 'bob', 'carol', 'dave']) addParticipant(room, LOCAL_OPERATOR, { name });
    removeParticipant(room, LOCAL_OPERATOR, { name: 'dave' });
    createSession(room, LOCAL_OPERATOR, { participant: 'alice', capabilities: ['read', 'write'] });
    const ready = createHandoff(room, alice, { summary: 'Summarise the notes', assignee: 'bob' }).handoff;
    acceptHandoff(room, bob, { handoff_id: ready.handoff_id });
    completeHandoff(room, bob, { handoff_id: ready.handoff_id, result: { content: [{ type: 'text', text: 'done' }] } });
    made.ready = ready.handoff_id;
    made.waiting = createHandoff(room, alice, { summary: 'Check the links', assignee: 'carol' }).handoff.task_id;
    made.early = proposeChange(room, bob, {
      base_revision: 1,
      content: '# Notes\n\nAn early change.\n',
      summary: 'A change',
    }).proposal.proposal_id;
  } finally {
    room.close();
  }
}

const LARGEST = 'x'.repeat(512 * 1024 - 2); // with its quotes, the largest text a proposal takes as JSON (1 MiB)
const RESULT = { content: [{ type: 'text', text: 'Proofread; two fixes' }], structuredContent: { fixes: 2 } };

let twins: TwinRooms;
const cleanUps: (() => Promise<void>)[] = [];
beforeAll(async () => {
  twins = await twinRooms(
    { expect, onTestFinished: (fn) => void cleanUps.push(fn as () => Promise<void>) },
    prepareRoom,
    {
      'result.json': JSON.stringify(RESULT),
      'big-result.json': JSON.stringify({ content: [{ type: 'text', text: 'x'.repeat(300_000) }] }),
      'second.md': '# Notes\n\nFirst line.\nSecond line.\n',
      'change.diff': '--- notes.md\n+++ notes.md\n@@ -1,3 +1,3 @@\n # Notes\n \n-First line.\n+The first line.\n',
      'stray.diff': '--- notes.md\n+++ notes.md\n@@ -1,1 +1,1 @@\n-# Not here\n+# Nor here\n',
      'largest.md': LARGEST,
      'over.md': `${LARGEST}x`,
      'far-over.md': 'x'.repeat(1024 * 1024),
      'other.md': NOTES,
    },
  );
}, SLOW.timeout);
afterAll(async () => {
  for (const cleanUp of cleanUps) await cleanUp();
});

/** Tasks working or waiting for input in the (direct) room: the active-task limit counts them. */
function activeTasks(): number {
  const room = openRoom(twins.direct.file, { mode: 'read' });
  try {
    const row = room.store.db
      .prepare("SELECT count(*) AS n FROM tasks WHERE status IN ('working', 'input_required')")
      .get() as { n: number };
    return row.n;
  } finally {
    room.close();
  }
}

/** A case where the served twin refuses before sending: `field` cannot travel as a path segment. */
const notSendable = (code: string, line: string, field: string): Case => ({
  ...refused(code, line),
  served: { code: 'invalid_input', message: new RegExp(`^${field} "\\.{0,2}" cannot be sent to the room process$`) },
});

describe('the same answer with and without ce serve', () => {
  test('handoffs and tasks', SLOW, async () => {
    const { ready, waiting } = made;
    // Create, with an idempotent replay; a participant that does not exist, bad input.
    await twins.run(
      ok(
        'handoff-create {file} --participant alice --summary "Review the intro" --constraints "Keep it short" ' +
          '--assignee bob --artifact workspace:///notes.md --idempotency-key review-1',
        { review: (o) => o.handoff.handoff_id, reviewTask: (o) => o.handoff.task_id },
      ),
      ok('handoff-create {file} --participant alice --summary "Review the intro" --idempotency-key review-1'),
      ok('handoff-create {file} --participant alice --summary "Fix the typos"', {
        typos: (o) => o.handoff.handoff_id,
        typosTask: (o) => o.handoff.task_id,
      }),
      ok('handoff-create {file} --participant carol --summary "Check the links" --assignee bob', {
        links: (o) => o.handoff.handoff_id,
      }),
      refused('not_found', 'handoff-create {file} --participant nobody --summary x'),
      refused('invalid_input', 'handoff-create {file} --participant alice --summary x --assignee nobody'),
      refused('invalid_input', `handoff-create {file} --participant alice --summary ${'x'.repeat(2_001)}`),
      usage('handoff-create {file} --participant alice --summary x --status open'),
    );

    // Accept (the named assignee, or anyone), then ask for input: wrong participant, wrong state.
    await twins.run(
      refused('forbidden', 'handoff-accept {file} {review} --participant carol'),
      refused('not_found', 'handoff-accept {file} ho_made_up --participant bob'),
      ok('handoff-accept {file} {review} --participant bob'),
      refused('conflict', 'handoff-accept {file} {review} --participant bob'),
      ok('handoff-accept {file} {typos} --participant carol'),
      ok('handoff-accept {file} {links} --participant bob'),
      // One report each: the first report of a task is committed at once on either path.
      ok('handoff-progress {file} {links} --participant bob --message "Checking the links" --progress 3 --total 40'),
      refused('forbidden', 'handoff-progress {file} {links} --participant alice --message "Mine?"'),
      refused('forbidden', 'handoff-request-input {file} {review} --participant alice --message "Which tone?"'),
      refused('conflict', `handoff-request-input {file} ${ready} --participant bob --message "Which tone?"`),
      ok('handoff-request-input {file} {review} --participant bob --message "Which tone?" --key tone'),
      ok('handoff-request-input {file} {review} --participant bob --message "How long?"', { length: (o) => o.key }),
      refused('conflict', 'handoff-complete {file} {review} --participant bob --result-text "Too soon"'),
    );

    // The task, for its owner and assignee only; the handoff, for any reader.
    await twins.together(
      ok('task {file} {reviewTask} --participant alice'),
      refused('not_found', 'task {file} {reviewTask} --participant carol'),
      ok('handoff {file} {review} --participant alice'),
      refused('not_found', 'handoff {file} ho_made_up'),
    );

    // The owner answers, then the assignee completes: a result, the stored outcome again, an error.
    await twins.run(
      refused('forbidden', 'task-answer {file} {reviewTask} --participant bob --key tone --answer x'),
      // By the handoff: with two questions open the key says which, and a key not open is refused.
      refused('invalid_input', 'handoff-answer {file} {review} --participant alice --answer Warm'),
      refused('invalid_input', 'handoff-answer {file} {review} --participant alice --key in_nope --answer Warm'),
      refused('forbidden', 'handoff-answer {file} {review} --participant bob --answer Warm'),
      ok('handoff-answer {file} {review} --participant alice --key tone --answer Warm'),
      ok('task-answer {file} {reviewTask} --participant alice --key {length} --answer "Two pages"'),
      refused('conflict', 'handoff-answer {file} {review} --participant alice --answer "Too late"'),
      refused('forbidden', 'handoff-complete {file} {review} --participant carol --result-text x'),
      usage('handoff-complete {file} {review} --participant bob'),
      refused('too_large', 'handoff-complete {file} {review} --participant bob --result-file {dir}/big-result.json'),
      ok('handoff-complete {file} {review} --participant bob --result-file {dir}/result.json'),
      ok('handoff-complete {file} {review} --participant bob --result-text again'),
      ok('handoff-complete {file} {links} --participant bob --error-message "The site is down"'),
    );

    // carol has no session at all: acting as a participant is read, write and approve on either path.
    await twins.run(
      refused('conflict', 'handoff-approve {file} {typos} --participant alice'),
      refused('not_found', 'handoff-approve {file} {review} --participant nobody'),
      ok('handoff-approve {file} {review} --participant carol --note Thanks'),
      ok(`handoff-reject {file} ${ready} --participant bob --note "Missed the second section"`),
      refused('conflict', 'handoff-reject {file} {review} --participant alice'),
    );

    // Cancel: the owner only; a finished task stays as it was; a task one may not see is unknown.
    await twins.run(
      refused('forbidden', 'task-cancel {file} {typosTask} --participant carol'),
      ok('task-cancel {file} {typosTask} --participant alice'),
      ok('task-cancel {file} {typosTask} --participant alice'),
      refused('not_found', `task-cancel {file} ${waiting} --participant bob`),
      // Names the direct path takes and a header could not carry as they are.
      refused('not_found', `task-cancel {file} ${waiting} --participant ""`),
      refused('not_found', `task-cancel {file} ${waiting} --participant zoë`),
      ok('handoffs {file} --limit 2', { page2: (o) => o.next_cursor }),
    );

    // Pages and events; a limit of 0 is the engine's to refuse.
    await twins.together(
      ok('handoffs {file} --cursor {page2}'),
      plain('handoffs {file} --limit 1'),
      refused('invalid_input', 'handoffs {file} --limit 0'),
      ok('handoff-events {file} {review}'),
      refused('invalid_input', 'handoff-events {file} {review} --limit 0'),
    );

    // A handoff id a URL cannot carry: the served twin refuses it before sending.
    await twins.run(
      notSendable('not_found', 'handoff-accept {file} .. --participant bob', 'handoff_id'),
      notSendable('invalid_input', 'handoff-reject {file} "" --participant alice', 'handoff_id'),
    );

    expect(twins.records(twins.served)).toEqual(twins.records(twins.direct));
  });

  test('proposals, the artifact and history', SLOW, async () => {
    const { early } = made;
    // Propose: full text or a diff; bad bases, a diff that does not apply, the size limit and beyond.
    await twins.run(
      ok('propose {file} --participant bob --base 1 --content-file {dir}/second.md --summary "A second line"', {
        second: (o) => o.proposal.proposal_id,
      }),
      ok('propose {file} --participant carol --base 1 --diff-file {dir}/change.diff --summary "A change"', {
        byDiff: (o) => o.proposal.proposal_id,
      }),
      refused(
        'invalid_input',
        'propose {file} --participant bob --base 0 --content-file {dir}/second.md --summary "A change"',
      ),
      refused(
        'invalid_input',
        'propose {file} --participant bob --base 9 --content-file {dir}/second.md --summary "A change"',
      ),
      usage('propose {file} --participant bob --base 1 --summary "A change"'),
      // A proposal says what it changes, as a commit message does.
      usage('propose {file} --participant bob --base 1 --content-file {dir}/second.md'),
      refused(
        'invalid_input',
        'propose {file} --participant bob --base 1 --content-file {dir}/second.md --summary "   "',
      ),
      refused(
        'invalid_input',
        'propose {file} --participant bob --base 1 --diff-file {dir}/stray.diff --summary "A change"',
      ),
      refused(
        'not_found',
        'propose {file} --participant nobody --base 1 --content-file {dir}/second.md --summary "A change"',
      ),
      ok('propose {file} --participant bob --base 1 --content-file {dir}/largest.md --summary "A change"', {
        largest: (o) => o.proposal.proposal_id,
      }),
      refused(
        'too_large',
        'propose {file} --participant bob --base 1 --content-file {dir}/over.md --summary "A change"',
      ),
      // More than a request body may hold: the room process does not read such a body.
      {
        ...refused(
          'too_large',
          'propose {file} --participant bob --base 1 --content-file {dir}/far-over.md --summary "A change"',
        ),
        served: { code: 'too_large', message: /^the request body is larger than 1048576 bytes$/ },
      },
    );

    await twins.together(
      ok('proposal {file} {second}'),
      plain('proposal {file} {byDiff}'),
      refused('not_found', 'proposal {file} pr_made_up'),
      ok('proposals {file} --limit 2'),
      refused('invalid_input', 'proposals {file} --limit 0'),
      refused('not_found', 'artifact {file} --participant nobody'),
    );

    // Decide: the author withdraws; an approver accepts (the file is written) or rejects; a stale base.
    await twins.run(
      refused('forbidden', 'proposal-withdraw {file} {byDiff} --participant bob'),
      ok('proposal-withdraw {file} {byDiff} --participant carol --note "Not needed"'),
      refused('conflict', 'proposal-withdraw {file} {byDiff} --participant carol'),
      // bob has no session with approve: acting as a participant is read, write and approve on either path.
      ok('proposal-approve {file} {second} --participant bob --note "Looks right"'),
      refused('conflict', `proposal-approve {file} ${early} --participant alice`),
      refused('conflict', 'proposal-approve {file} {second} --participant alice'),
      ok(`proposal-reject {file} ${early} --participant carol --note Stale`),
      refused('conflict', `proposal-reject {file} ${early} --participant carol`),
      notSendable('not_found', 'proposal-approve {file} .. --participant alice', 'proposal_id'),
    );
    expect(bytesOf(twins.served).toString()).toBe('# Notes\n\nFirst line.\nSecond line.\n');
    expect(bytesOf(twins.direct)).toEqual(bytesOf(twins.served));

    await twins.together(plain('history {file} --limit 1'), refused('invalid_input', 'history {file} --limit 0'));

    // An outside edit: the room process records it as it happens; with none running, a reading
    // command shows it unrecorded, and the next state change records it. Then both agree again.
    const edited = '# Notes\n\nEdited outside.\n';
    for (const twin of [twins.direct, twins.served]) {
      // As an editor saves: a whole new file renamed over the old, never seen half written.
      writeFileSync(`${twin.file}.saving`, edited);
      renameSync(`${twin.file}.saving`, twin.file);
    }
    const artifactOf = async (file: string) => okJson<ArtifactReadOutput>(await ce(['artifact', file, '--json']));
    await expect
      .poll(async () => (await artifactOf(twins.served.file)).revision.number, { timeout: 30_000, interval: 100 })
      .toBe(3);
    expect(await artifactOf(twins.served.file)).toMatchObject({
      revision: { number: 3, source: 'external' },
      content: edited,
      unrecorded_edit: false,
    });
    expect(await artifactOf(twins.direct.file)).toMatchObject({
      revision: { number: 2, source: 'proposal' },
      content: edited,
      unrecorded_edit: true,
    });
    await twins.run(
      // Revision 2's own text changes nothing: refused as noise.
      refused(
        'invalid_input',
        'propose {file} --participant bob --base 2 --content-file {dir}/second.md --summary "A change"',
      ),
      ok('propose {file} --participant bob --base 2 --diff-file {dir}/change.diff --summary "A change"', {
        late: (o) => o.proposal.proposal_id,
      }),
      // The outside edit changed the line the proposal changes: a conflict naming them.
      refused('conflict', 'proposal-approve {file} {late} --participant alice'),
    );
    await twins.together(ok('artifact {file}'), ok('history {file}'));

    expect(twins.records(twins.served)).toEqual(twins.records(twins.direct));
  });

  test('participants, sessions, the active-task limit', SLOW, async () => {
    // Administration, as the local operator; one command run with the file named from its own directory.
    await twins.run(
      ok('participant add {file} erin'),
      refused('conflict', 'participant add {file} erin'),
      refused('invalid_input', 'participant add {file} "no one"'),
      ok('participant add {file} dave'),
      { ...ok('participant add {file} frank'), inDir: true },
      ok('participant remove {file} erin'),
      refused('not_found', 'participant remove {file} nobody'),
      refused('invalid_input', 'participant remove {file} "no one"'),
      ok('session create {file} --participant bob --caps read,write --expires-in 30d', {
        bobSession: (o) => o.session.session_id,
      }),
      ok('session create {file} --participant carol --caps read,write,approve,admin'),
      refused('not_found', 'session create {file} --participant nobody --caps read'),
      refused('invalid_input', 'session create {file} --participant bob --caps read,read'),
      ok('session revoke {file} {bobSession}'),
      refused('conflict', 'session revoke {file} {bobSession}'),
      refused('not_found', 'session revoke {file} se_made_up'),
    );

    await twins.together(
      ok('participant list {file} --all'),
      refused('not_found', 'participant list {dir}/other.md'),
      ok('session list {file}'),
      refused('invalid_input', 'session list {file} --participant "no one"'),
      ok('whoami {file}'),
      ok('whoami {file} --participant alice'),
      refused('not_found', 'whoami {file} --participant nobody'),
      ok('settings {file}'),
      refused('not_found', 'settings {dir}/other.md'),
    );

    // The room's settings: a whole list replaced, a value that is no host name refused.
    await twins.run(
      ok(
        'settings-update {file} --allow-host rooms.example.net,proxy.internal:8443 --allow-origin https://app.example',
      ),
      refused('invalid_input', 'settings-update {file} --allow-host https://rooms.example.net/'),
      usage('settings-update {file}'),
      ok('settings-update {file} --allow-host ""'),
    );

    // The room's most: 32 active tasks. The 33rd is refused, naming the limit; there is room again once one is
    // cancelled.
    const toFill = 32 - activeTasks();
    await twins.run(
      ...Array.from({ length: toFill }, (_, i) =>
        ok(
          `handoff-create {file} --participant alice --summary "Task ${i}"`,
          i === 0 ? { first: (o) => o.handoff.task_id } : undefined,
        ),
      ),
    );
    expect(activeTasks()).toBe(32);
    await twins.run(
      refused('limit_reached', 'handoff-create {file} --participant alice --summary "One too many"'),
      ok('task-cancel {file} {first} --participant alice'),
      ok('handoff-create {file} --participant alice --summary "Room again"'),
      ok('init {file}'),
    );

    // A name or session id a URL cannot carry: the served twin refuses it before sending.
    await twins.run(
      notSendable('invalid_input', 'participant remove {file} ..', 'name'),
      notSendable('invalid_input', 'participant remove {file} ""', 'name'),
      notSendable('not_found', 'session revoke {file} ..', 'session_id'),
    );

    expect(twins.records(twins.served)).toEqual(twins.records(twins.direct));
  });
});

// After the cases above: the room process stops cleanly (exit 0, nothing on its stderr).
test('the room process stops cleanly after every case', async () => {
  await twins.stop();
});

// After the cases above: a new operation without its cases fails here.
test('every operation command of the table has a case that succeeds and one that is refused', () => {
  const commands = (Object.values(operations) as Operation[]).map((o) => o.cli.command).sort();
  const covered = (command: string) => {
    const seen = coverage.get(command) ?? { ok: 0, refused: 0 };
    return { succeeds: seen.ok > 0, refused: seen.refused > 0 };
  };
  expect(Object.fromEntries(commands.map((c) => [c, covered(c)]))).toEqual(
    Object.fromEntries(commands.map((c) => [c, { succeeds: true, refused: true }])),
  );
});
