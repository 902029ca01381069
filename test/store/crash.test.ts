// Crash test: a writer process is killed with SIGKILL at an arbitrary moment
// while it runs handoffs through their life. Everything it acknowledged (the
// engine function returned, then it printed a line) must survive intact, the
// sidecar must pass integrity_check, and the dead writer's lock must be taken
// over by the next writer.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_RING_SIZE, EVENT_RING_SLACK } from '../../src/engine/limits.js';
import { openRoom, type Room } from '../helpers/engine.js';
import type { EventRow, HandoffRow, TaskRow } from '../../src/store/rows.js';
import { migrations } from '../../src/store/migrations.js';
import { readLockHolder, type LockHolder } from '../../src/store/writer-lock.js';
import { tempDir } from '../helpers/room.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/create-handoffs-forever.ts', import.meta.url));

/** Lines the child must have printed before it is killed. */
const MIN_LINES = 200;
const CHILD_TIMEOUT_MS = 90_000;

type Plan = 'complete' | 'cancel' | 'fail' | 'cancel-accepted';

/** Each plan's operations in order, with the state a handoff is in after each. */
interface Step {
  op: string;
  event: string;
  handoff: HandoffRow['status'];
  task: TaskRow['status'];
}
const PLAN_STEPS: Record<Plan, Step[]> = {
  complete: [
    { op: 'create', event: 'handoff.created', handoff: 'open', task: 'working' },
    { op: 'accept', event: 'handoff.accepted', handoff: 'accepted', task: 'working' },
    { op: 'complete', event: 'handoff.result_ready', handoff: 'result_ready', task: 'completed' },
    { op: 'approve', event: 'handoff.approved', handoff: 'approved', task: 'completed' },
  ],
  cancel: [
    { op: 'create', event: 'handoff.created', handoff: 'open', task: 'working' },
    { op: 'cancel', event: 'handoff.cancelled', handoff: 'cancelled', task: 'cancelled' },
  ],
  fail: [
    { op: 'create', event: 'handoff.created', handoff: 'open', task: 'working' },
    { op: 'accept', event: 'handoff.accepted', handoff: 'accepted', task: 'working' },
    { op: 'fail', event: 'task.failed', handoff: 'cancelled', task: 'failed' },
  ],
  'cancel-accepted': [
    { op: 'create', event: 'handoff.created', handoff: 'open', task: 'working' },
    { op: 'accept', event: 'handoff.accepted', handoff: 'accepted', task: 'working' },
    { op: 'cancel', event: 'handoff.cancelled', handoff: 'cancelled', task: 'cancelled' },
  ],
};

interface CreateLine {
  op: 'create';
  seq: number;
  plan: Plan;
  handoff_id: string;
  task_id: string;
  summary: string;
  constraints: string | null;
  owner: string;
  assignee: string | null;
}
type Line =
  | { op: 'ready'; pid: number }
  | CreateLine
  | { op: 'accept' | 'approve' | 'cancel'; handoff_id: string }
  | { op: 'complete'; handoff_id: string; text: string }
  | { op: 'fail'; handoff_id: string; message: string };

/** What the child acknowledged about one handoff. */
interface Acknowledged {
  create: CreateLine;
  ops: string[];
  resultText?: string;
  failMessage?: string;
}

interface RunResult {
  pid: number;
  lines: Line[];
  /** The lock row while the child was alive, as a reader saw it. */
  holderWhileAlive: LockHolder | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

const children = new Set<ChildProcess>();
const dirs: string[] = [];

afterEach(async () => {
  // A child left behind by a failed test is killed and reaped before its directory goes.
  await Promise.all(
    [...children].map(async (child) => {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = closed(child);
        child.kill('SIGKILL');
        await gone;
      }
    }),
  );
  children.clear();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Resolves once the child has exited, been reaped and its stdio has closed. */
function closed(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
}

/**
 * Runs the fixture until it has printed `minLines` complete lines, then
 * SIGKILLs it a random moment later, and waits until it is gone (reaped: a
 * zombie would still look like a live holder).
 */
async function runAndKill(artifact: string, label: string, minLines: number): Promise<RunResult> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, artifact, label], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const done = closed(child);

  let buffered = '';
  const lines: Line[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (stderr += chunk));

  // Kill once the count passes a random threshold, after a random pause:
  // the moment is arbitrary relative to the child's commits.
  const threshold = minLines + Math.floor(Math.random() * 60);
  let killScheduled = false;
  let holderWhileAlive: LockHolder | null = null;
  const reachedThreshold = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`child printed only ${lines.length} lines in ${CHILD_TIMEOUT_MS} ms; stderr:\n${stderr}`)),
      CHILD_TIMEOUT_MS,
    );
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      try {
        buffered += chunk;
        let newline: number;
        while ((newline = buffered.indexOf('\n')) !== -1) {
          const text = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          lines.push(JSON.parse(text) as Line);
        }
        if (!killScheduled && lines.length >= threshold) {
          killScheduled = true;
          clearTimeout(timer);
          // While it still runs, a reader sees the child as the lock holder.
          const reader = openRoom(artifact, { mode: 'read' });
          try {
            holderWhileAlive = readLockHolder(reader.store.db);
          } finally {
            reader.close();
          }
          setTimeout(
            () => {
              child.kill('SIGKILL');
              resolve();
            },
            Math.floor(Math.random() * 25),
          );
        }
      } catch (error) {
        killScheduled = true;
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(error);
      }
    });
    void done.then(({ code, signal }) => {
      if (!killScheduled) {
        clearTimeout(timer);
        reject(
          new Error(
            `child exited early (code ${code}, signal ${signal}) after ${lines.length} lines; stderr:\n${stderr}`,
          ),
        );
      }
    });
  });
  await reachedThreshold;
  // 'close': the child is reaped (a zombie would still look like a live
  // holder) and everything it wrote to the pipe has been read. What is left
  // in `buffered` is a line cut by the kill: not acknowledged. (Lines are far
  // below PIPE_BUF, so in practice none is cut.)
  const { signal } = await done;
  children.delete(child);

  const first = lines[0];
  if (!first || first.op !== 'ready') throw new Error(`the child's first line is not ready: ${JSON.stringify(first)}`);
  // node --import tsx runs the fixture in the spawned process itself: its pid is the lock holder's.
  expect(first.pid).toBe(child.pid);
  return { pid: first.pid, lines, holderWhileAlive, signal, stderr };
}

/** Folds the child's lines into what it acknowledged per handoff, in creation order. */
function acknowledge(lines: Line[], into: Map<string, Acknowledged>): void {
  for (const line of lines) {
    if (line.op === 'ready') continue;
    if (line.op === 'create') {
      expect(into.has(line.handoff_id), `handoff ${line.handoff_id} created twice`).toBe(false);
      into.set(line.handoff_id, { create: line, ops: ['create'] });
      continue;
    }
    const ack = into.get(line.handoff_id);
    expect(ack, `${line.op} of a handoff never created: ${line.handoff_id}`).toBeDefined();
    ack!.ops.push(line.op);
    if (line.op === 'complete') ack!.resultText = line.text;
    if (line.op === 'fail') ack!.failMessage = line.message;
  }
  // Every acknowledged sequence is a prefix of its plan.
  for (const ack of into.values()) {
    const planned = PLAN_STEPS[ack.create.plan].map((s) => s.op);
    expect(ack.ops, `ops of ${ack.create.handoff_id}`).toEqual(planned.slice(0, ack.ops.length));
  }
}

/** How far along its plan a stored handoff is: the index of the last step applied. */
function storedStage(plan: Plan, handoff: HandoffRow, task: TaskRow | undefined): number {
  const steps = PLAN_STEPS[plan];
  const index = steps.findIndex(
    (step, i) =>
      step.handoff === handoff.status &&
      step.task === task?.status &&
      // open and accepted differ by accepted_at too; cancel before and after accept likewise.
      (i === 0 ? handoff.accepted_at === null : plan === 'cancel' || handoff.accepted_at !== null),
  );
  return index;
}

function checkRoom(room: Room, acknowledged: Map<string, Acknowledged>): { unacknowledgedOps: number } {
  const db = room.store.db;
  expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
  expect(db.pragma('foreign_key_check')).toEqual([]);

  const handoffs = db.prepare('SELECT * FROM handoffs').all() as HandoffRow[];
  const byId = new Map(handoffs.map((h) => [h.id, h]));
  let unacknowledgedOps = 0;

  for (const [id, ack] of acknowledged) {
    const stored = byId.get(id);
    expect(stored, `acknowledged handoff ${id} (${ack.create.summary}) is missing`).toBeDefined();
    const handoff = stored!;
    const task = room.store.getTask(handoff.task_id);
    expect(task, `task ${handoff.task_id} of ${id}`).toBeDefined();

    expect(handoff.task_id).toBe(ack.create.task_id);
    expect(handoff.summary).toBe(ack.create.summary);
    expect(handoff.constraints).toBe(ack.create.constraints);
    expect(handoff.owner).toBe(ack.create.owner);
    expect(task!.owner).toBe(ack.create.owner);
    expect(task!.handoff_id).toBe(id);

    const stage = storedStage(ack.create.plan, handoff, task);
    expect(
      stage,
      `${id} is in no state of plan ${ack.create.plan}: ${handoff.status}/${task!.status}`,
    ).toBeGreaterThanOrEqual(0);
    // At least as far along as acknowledged; beyond that only by what committed unprinted.
    expect(
      stage + 1,
      `${id} (${ack.create.plan}) lost acknowledged operations ${ack.ops.join(',')}`,
    ).toBeGreaterThanOrEqual(ack.ops.length);
    unacknowledgedOps += stage + 1 - ack.ops.length;

    // The fields the applied steps wrote.
    const applied = PLAN_STEPS[ack.create.plan].slice(0, stage + 1).map((s) => s.op);
    const assignee = applied.includes('accept') ? 'bob' : ack.create.assignee;
    expect(handoff.assignee).toBe(assignee);
    expect(task!.assignee).toBe(applied.includes('accept') ? 'bob' : null);
    if (applied.includes('complete')) {
      const result = JSON.parse(handoff.result_json!);
      expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^result of /) }]);
      if (ack.resultText !== undefined) expect(result.content[0].text).toBe(ack.resultText);
      expect(JSON.parse(task!.result_json!)).toEqual(result);
      expect(handoff.completed_at).not.toBeNull();
    }
    if (applied.includes('approve')) {
      expect(JSON.parse(handoff.decision_json!)).toMatchObject({ decision: 'approved', by: 'alice' });
    }
    if (applied.includes('fail')) {
      const error = JSON.parse(handoff.error_json!);
      if (ack.failMessage !== undefined) expect(error.message).toBe(ack.failMessage);
      expect(JSON.parse(task!.error_json!)).toEqual(error);
      expect(handoff.cancelled_at).not.toBeNull();
    }
    if (applied.includes('cancel')) expect(handoff.cancelled_at).not.toBeNull();

    // Each applied step committed with its event, in order (unless the ring dropped some).
    const events = db.prepare('SELECT * FROM events WHERE handoff_id = ? ORDER BY id').all(id) as EventRow[];
    const expectedTypes = PLAN_STEPS[ack.create.plan].slice(0, stage + 1).map((s) => s.event);
    const types = events.map((e) => e.type);
    if (handoff.events_pruned_through === 0) expect(types).toEqual(expectedTypes);
    else expect(expectedTypes.slice(expectedTypes.length - types.length)).toEqual(types);
  }

  // A handoff the child never acknowledged can only be the one whose
  // creation committed just before the kill.
  const unacknowledged = handoffs.filter((h) => !acknowledged.has(h.id));
  for (const handoff of unacknowledged) {
    expect(handoff.status).toBe('open');
    expect(handoff.owner).toBe('alice');
    expect(room.store.getTask(handoff.task_id)?.status).toBe('working');
    unacknowledgedOps += 1;
  }
  return { unacknowledgedOps };
}

describe('a writer killed with SIGKILL', () => {
  it(
    'loses nothing it acknowledged, leaves an intact sidecar, and its lock is taken over',
    { timeout: 240_000 },
    async () => {
      const dir = tempDir();
      dirs.push(dir);
      const artifact = path.join(dir, 'room.md');
      writeFileSync(artifact, '# Crash room\n');

      const acknowledged = new Map<string, Acknowledged>();
      // Two writers die in turn; the second takes over the first one's lock.
      const labels = ['first', 'second'];
      for (const [runs, label] of labels.map((label, i) => [i + 1, label] as const)) {
        const run = await runAndKill(artifact, label, MIN_LINES);
        expect(run.signal, run.stderr).toBe('SIGKILL');
        expect(run.lines.length).toBeGreaterThanOrEqual(MIN_LINES);
        expect(run.holderWhileAlive).toMatchObject({ pid: run.pid, command: 'crash-fixture' });
        acknowledge(run.lines, acknowledged);

        // The dead writer's row is still there, but it no longer holds the lock.
        const reader = openRoom(artifact, { mode: 'read' });
        try {
          const row = reader.store.db.prepare('SELECT pid, command FROM writer_lock WHERE id = 1').get();
          expect(row).toEqual({ pid: run.pid, command: 'crash-fixture' });
          expect(readLockHolder(reader.store.db)).toBeNull();
          const { unacknowledgedOps } = checkRoom(reader, acknowledged);
          // The child prints synchronously after each commit: per run, at most
          // the operation in flight at the kill committed without being printed.
          expect(unacknowledgedOps).toBeLessThanOrEqual(runs);
        } finally {
          reader.close();
        }
      }
      expect(acknowledged.size).toBeGreaterThan(0);

      // This process now opens the room for writing: the lock is free again.
      const room = openRoom(artifact, { command: 'crash-test' });
      try {
        expect(room.sidecar.writable).toBe(true);
        const holder = room.store.db.prepare('SELECT * FROM writer_lock WHERE id = 1').get() as LockHolder;
        expect(holder).toMatchObject({ pid: process.pid, command: 'crash-test' });
        expect(readLockHolder(room.store.db)).toMatchObject({ pid: process.pid, command: 'crash-test' });

        const { unacknowledgedOps } = checkRoom(room, acknowledged);
        // Each run may have committed one operation it did not print.
        expect(unacknowledgedOps).toBeLessThanOrEqual(labels.length);

        // Events are consistent with the ring: ids strictly increase, at most its size and slack kept.
        const stats = room.store.eventStats();
        expect(stats.n).toBeLessThanOrEqual(EVENT_RING_SIZE + EVENT_RING_SLACK);
        expect(stats.n).toBe(stats.newest! - stats.oldest! + 1);
        expect(room.store.db.prepare('SELECT version FROM schema_migrations ORDER BY version').all()).toEqual(
          migrations.map(({ version }) => ({ version })),
        );
      } finally {
        room.close();
      }
    },
  );
});
