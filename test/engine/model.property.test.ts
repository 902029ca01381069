// Model-based property test: random sequences of engine operations by several
// participants, with sessions that lack write, approve or read, run against a
// small model of the handoff design note. After every step the engine must
// agree with the model's prediction (success, no-op or the refusal code) and
// the room must satisfy the lifecycle, limit, event and visibility invariants.
import fc from 'fast-check';
import type { Statement } from 'better-sqlite3';
import { afterAll, expect, test } from 'vitest';
import type {
  Caller,
  Capability,
  DetailedTask,
  DomainErrorCode,
  EventType,
  HandoffCompleteInput,
  HandoffCompleteOutput,
  HandoffCreateInput,
  HandoffCreateOutput,
  HandoffOutput,
  HandoffRequestInputOutput,
  HandoffStatus,
  HandoffTaskOutput,
  InputResponse,
  TaskCancelOutput,
  TaskStatus,
  TaskUpdateOutput,
} from '../../generated/types.js';
import {
  acceptHandoff,
  answerTaskInput,
  approveHandoff,
  cancelTask,
  completeHandoff,
  createHandoff,
  DomainError,
  getHandoff,
  getTask,
  limits,
  rejectHandoff,
  requestHandoffInput,
  sweepExpiredTasks,
  type Room,
  type SweepReport,
} from '../helpers/engine.js';
import type { EventRow } from '../../src/store/rows.js';
import { caller, dumpDatabase, makeRoom, type TestRoom } from '../helpers/room.js';

const TTL = limits.TASK_TTL_MS;
const MAX_ACTIVE = limits.MAX_ACTIVE_TASKS;
const NUM_RUNS = 80;
const MAX_COMMANDS = 60;

// ---------------------------------------------------------------------------
// Who acts

/** Sessions: the same participant may hold sessions with different capabilities. */
const SESSIONS = {
  alice: caller('alice', ['read', 'write', 'approve']),
  bob: caller('bob', ['read', 'write']),
  carol: caller('carol', ['read', 'approve']), // an approver without write
  carolW: caller('carol', ['read', 'write']), // carol's working session
  dave: caller('dave', ['write']), // writes but cannot read
  bobRO: caller('bob', ['read']), // bob's read-only session
} satisfies Record<string, Caller>;
type SessionName = keyof typeof SESSIONS;
const SESSION_NAMES = Object.keys(SESSIONS) as SessionName[];
const PARTICIPANTS = ['alice', 'bob', 'carol', 'dave'];
const WRITER: Record<string, SessionName> = { alice: 'alice', bob: 'bob', carol: 'carolW', dave: 'dave' };
const READER: Record<string, SessionName> = { alice: 'alice', bob: 'bob', carol: 'carol', dave: 'dave' };
const APPROVERS: SessionName[] = ['alice', 'carol'];

const can = (session: SessionName, capability: Capability): boolean =>
  SESSIONS[session].capabilities.includes(capability);

/** Well-formed ids that were never handed out. */
const BOGUS_HANDOFF = 'ho_AAAAAAAAAAAAAAAAAAAAAA';
const BOGUS_TASK = 'tk_AAAAAAAAAAAAAAAAAAAAAA';

// ---------------------------------------------------------------------------
// The model

interface MTask {
  id: string;
  status: TaskStatus;
  /** The task's assignee: recorded when the handoff is accepted. */
  assignee: string | null;
  createdAt: number;
  lastUpdatedAt: number;
  /** The row was deleted one TTL after its last update. */
  deleted: boolean;
  /** Input keys in request order → answered. */
  inputs: Map<string, boolean>;
}

interface MHandoff {
  id: string;
  owner: string;
  assignee: string | null;
  accepted: boolean;
  completed: boolean;
  status: HandoffStatus;
  idem: string | null;
  task: MTask;
}

interface Model {
  handoffs: MHandoff[];
  now: number;
}

const isActive = (s: TaskStatus): boolean => s === 'working' || s === 'input_required';
const isTerminal = (s: TaskStatus): boolean => !isActive(s);
const activeCount = (m: Model): number => m.handoffs.filter((h) => !h.task.deleted && isActive(h.task.status)).length;
const visibleTo = (h: MHandoff, participant: string): boolean =>
  !h.task.deleted && (h.owner === participant || h.task.assignee === participant);
const outstanding = (h: MHandoff): string[] => [...h.task.inputs].filter(([, answered]) => !answered).map(([k]) => k);

// ---------------------------------------------------------------------------
// The real room and what has been observed of it

interface Observed {
  handoffs: Map<string, HandoffStatus>;
  tasks: Map<string, TaskStatus>;
}

class Real {
  readonly room: Room;
  lastEventId: number;
  observed: Observed = { handoffs: new Map(), tasks: new Map() };
  readonly q: {
    handoffs: Statement;
    tasks: Statement;
    eventsAfter: Statement;
    eventCount: Statement;
    activeCount: Statement;
  };

  constructor(readonly t: TestRoom) {
    this.room = t.room;
    const db = t.room.store.db;
    this.q = {
      handoffs: db.prepare('SELECT id, status, owner, assignee FROM handoffs'),
      tasks: db.prepare('SELECT id, status, owner, assignee, created_at, last_updated_at FROM tasks'),
      eventsAfter: db.prepare('SELECT * FROM events WHERE id > ? ORDER BY id'),
      eventCount: db.prepare('SELECT count(*) AS n, coalesce(max(id), 0) AS newest FROM events'),
      activeCount: db.prepare(`SELECT count(*) AS n FROM tasks WHERE status IN ('working', 'input_required')`),
    };
    this.lastEventId = (this.q.eventCount.get() as { newest: number }).newest;
  }

  eventCount(): number {
    return (this.q.eventCount.get() as { n: number }).n;
  }
}

// ---------------------------------------------------------------------------
// Predicting, running and judging one operation

interface ExpectedEvent {
  type: EventType;
  actor: string | null;
  handoff_id: string;
  task_id: string | null;
}

interface Refusal {
  kind: 'refuse';
  code: DomainErrorCode;
  message?: string;
}

/** What the model says an operation will do. */
type Prediction<T> =
  | Refusal
  /** Succeeds and changes nothing: a replay, a no-op or a read. */
  | { kind: 'noop'; check: (value: T) => void }
  /** Succeeds, writes exactly these events, and the model moves with `apply`. */
  | { kind: 'change'; events: (value: T) => ExpectedEvent[]; apply: (value: T) => void };

const refuse = (code: DomainErrorCode, message?: string): Refusal =>
  message === undefined ? { kind: 'refuse', code } : { kind: 'refuse', code, message };

type Outcome = 'ok' | 'noop' | DomainErrorCode;
const coverage = new Map<string, number>();
const tally = (op: string, outcome: Outcome): void => {
  const key = `${op}:${outcome}`;
  coverage.set(key, (coverage.get(key) ?? 0) + 1);
};

const describeError = (e: unknown): string =>
  e instanceof DomainError
    ? `DomainError ${e.code}: ${e.message}`
    : e instanceof Error
      ? (e.stack ?? e.message)
      : String(e);

/** The whole database as it was (stringified first: this runs on most steps). */
function expectUnchanged(r: Real, before: Record<string, unknown[]> | null, message: string): void {
  const after = dumpDatabase(r.room);
  if (JSON.stringify(after) !== JSON.stringify(before)) expect(after, message).toEqual(before);
}

const eventKey = (e: ExpectedEvent): string => JSON.stringify([e.type, e.actor, e.handoff_id, e.task_id]);

/**
 * Runs the operation and checks the engine agrees with the prediction: the
 * refusal code, or success; exactly one event per state change and none
 * otherwise; and a database unchanged by refusals and no-ops.
 */
function perform<T>(
  r: Real,
  op: string,
  name: string,
  prediction: Prediction<T>,
  operation: () => T,
): { value?: T; error?: DomainError } {
  // The full dump is only needed when nothing may change.
  const before = prediction.kind === 'change' ? null : dumpDatabase(r.room);
  const countBefore = r.eventCount();
  let value: T | undefined;
  let error: unknown;
  let threw = false;
  try {
    value = operation();
  } catch (e) {
    error = e;
    threw = true;
  }
  if (threw && !(error instanceof DomainError)) {
    throw new Error(`${name}: the engine threw something other than a DomainError: ${describeError(error)}`);
  }

  // Event ids strictly increase: every new row has an id above every earlier
  // one, and no row appeared below the newest id seen before.
  const events = r.q.eventsAfter.all(r.lastEventId) as EventRow[];
  expect(r.eventCount() - countBefore, `${name}: events were written below the newest id`).toBe(events.length);
  let previous = r.lastEventId;
  for (const event of events) {
    expect(event.id, `${name}: event ids strictly increase`).toBeGreaterThan(previous);
    expect(event.at, `${name}: event time is the room clock`).toBe(r.t.clock.now());
    previous = event.id;
  }
  r.lastEventId = previous;

  if (prediction.kind === 'refuse') {
    const { code, message } = prediction;
    expect(
      threw,
      `${name}: expected refusal ${code}${message ? ` (${message})` : ''}, got ${JSON.stringify(value)}`,
    ).toBe(true);
    const refusal = error as DomainError;
    expect(`${refusal.code}: ${refusal.message}`, `${name}: refusal`).toMatch(new RegExp(`^${code}: `));
    if (message !== undefined) expect(refusal.message, `${name}: refusal message`).toBe(message);
    expect(events, `${name}: a refused operation writes no event`).toEqual([]);
    expectUnchanged(r, before, `${name}: a refused operation changes nothing`);
    tally(op, code);
    return { error: refusal };
  }

  expect(threw, `${name}: expected success, got ${describeError(error)}`).toBe(false);
  const result = value as T;
  if (prediction.kind === 'noop') {
    expect(events, `${name}: a replay, no-op or read writes no event`).toEqual([]);
    expectUnchanged(r, before, `${name}: a replay, no-op or read changes nothing`);
    prediction.check(result);
    tally(op, 'noop');
  } else {
    const got = events.map((e) => ({ type: e.type, actor: e.actor, handoff_id: e.handoff_id!, task_id: e.task_id }));
    expect(got.map(eventKey).sort(), `${name}: one event per state change`).toEqual(
      prediction.events(result).map(eventKey).sort(),
    );
    prediction.apply(result);
    tally(op, 'ok');
  }
  return { value: result };
}

// ---------------------------------------------------------------------------
// Invariants checked after every step

const HANDOFF_STATUSES: HandoffStatus[] = ['open', 'accepted', 'result_ready', 'approved', 'rejected', 'cancelled'];
const TASK_STATUSES: TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
const HANDOFF_MOVES = new Set([
  'open>accepted',
  'open>cancelled',
  'accepted>result_ready',
  'accepted>cancelled',
  'result_ready>approved',
  'result_ready>rejected',
]);
const TASK_MOVES = new Set([
  'working>input_required',
  'input_required>working',
  'working>completed',
  'working>failed',
  'working>cancelled',
  'input_required>cancelled',
]);
/** What the expiry sweep may do, and all it may do. */
const SWEEP_HANDOFF_MOVES = new Set(['open>cancelled', 'accepted>cancelled']);
const SWEEP_TASK_MOVES = new Set(['working>failed', 'input_required>failed']);

function checkInvariants(m: Model, r: Real, label: string, sweep: boolean): void {
  const handoffRows = r.q.handoffs.all() as {
    id: string;
    status: HandoffStatus;
    owner: string;
    assignee: string | null;
  }[];
  const taskRows = r.q.tasks.all() as {
    id: string;
    status: TaskStatus;
    owner: string;
    assignee: string | null;
    last_updated_at: number;
  }[];
  // Checked in plain code and asserted once: this runs after every step.
  const violations: string[] = [];
  const next: Observed = { handoffs: new Map(), tasks: new Map() };

  for (const row of handoffRows) {
    if (!HANDOFF_STATUSES.includes(row.status)) violations.push(`handoff ${row.id} has status ${row.status}`);
    const before = r.observed.handoffs.get(row.id);
    if (before === undefined) {
      if (row.status !== 'open') violations.push(`new handoff ${row.id} is ${row.status}, not open`);
      if (sweep) violations.push(`the sweep created handoff ${row.id}`);
    } else if (before !== row.status) {
      const move = `${before}>${row.status}`;
      if (!(sweep ? SWEEP_HANDOFF_MOVES : HANDOFF_MOVES).has(move)) {
        violations.push(`handoff ${row.id} moved ${move}${sweep ? ' in the sweep' : ''}`);
      }
    }
    next.handoffs.set(row.id, row.status);
  }
  for (const id of r.observed.handoffs.keys()) {
    if (!next.handoffs.has(id)) violations.push(`handoff ${id} disappeared`);
  }

  for (const row of taskRows) {
    if (!TASK_STATUSES.includes(row.status)) violations.push(`task ${row.id} has status ${row.status}`);
    const before = r.observed.tasks.get(row.id);
    if (before === undefined) {
      if (row.status !== 'working') violations.push(`new task ${row.id} is ${row.status}, not working`);
      if (sweep) violations.push(`the sweep created task ${row.id}`);
    } else if (before !== row.status) {
      const move = `${before}>${row.status}`;
      if (!(sweep ? SWEEP_TASK_MOVES : TASK_MOVES).has(move)) {
        violations.push(`task ${row.id} moved ${move}${sweep ? ' in the sweep' : ''}`);
      }
    }
    next.tasks.set(row.id, row.status);
  }
  for (const [id, status] of r.observed.tasks) {
    if (next.tasks.has(id)) continue;
    if (!sweep) violations.push(`task ${id} (${status}) disappeared outside the sweep`);
    if (!isTerminal(status)) violations.push(`task ${id} was deleted while ${status}`);
  }
  r.observed = next;

  const active = (r.q.activeCount.get() as { n: number }).n;
  if (active > MAX_ACTIVE) violations.push(`${active} active tasks, more than ${MAX_ACTIVE}`);
  if (active !== activeCount(m)) violations.push(`${active} active tasks, the model has ${activeCount(m)}`);

  // The room is what the model says it is.
  if (handoffRows.length !== m.handoffs.length) {
    violations.push(`${handoffRows.length} handoffs, the model has ${m.handoffs.length}`);
  }
  const rowsById = new Map(handoffRows.map((row) => [row.id, row]));
  const tasksById = new Map(taskRows.map((row) => [row.id, row]));
  let liveTasks = 0;
  for (const h of m.handoffs) {
    const row = rowsById.get(h.id);
    const want = { status: h.status, owner: h.owner, assignee: h.assignee };
    const got = row ? { status: row.status, owner: row.owner, assignee: row.assignee } : undefined;
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      violations.push(`handoff ${h.id} is ${JSON.stringify(got)}, the model has ${JSON.stringify(want)}`);
    }
    const task = tasksById.get(h.task.id);
    if (h.task.deleted) {
      if (task) violations.push(`task ${h.task.id} should have been deleted`);
      continue;
    }
    liveTasks++;
    const wantTask = {
      status: h.task.status,
      owner: h.owner,
      assignee: h.task.assignee,
      last_updated_at: h.task.lastUpdatedAt,
    };
    const gotTask = task
      ? { status: task.status, owner: task.owner, assignee: task.assignee, last_updated_at: task.last_updated_at }
      : undefined;
    if (JSON.stringify(gotTask) !== JSON.stringify(wantTask)) {
      violations.push(`task ${h.task.id} is ${JSON.stringify(gotTask)}, the model has ${JSON.stringify(wantTask)}`);
    }
  }
  if (taskRows.length !== liveTasks) violations.push(`${taskRows.length} task rows, the model has ${liveTasks}`);
  if (violations.length > 0) expect(violations, `after ${label}`).toEqual([]);
}

/** The task view agrees with the model. */
function checkTaskView(label: string, view: DetailedTask | null, h: MHandoff): void {
  expect(view, `${label}: the task is returned`).not.toBeNull();
  if (view === null) return;
  expect(view.taskId, `${label}: taskId`).toBe(h.task.id);
  expect(view.status, `${label}: task status`).toBe(h.task.status);
  if (view.status === 'input_required') {
    expect(Object.keys(view.inputRequests).sort(), `${label}: outstanding input requests`).toEqual(
      outstanding(h).sort(),
    );
  }
}

// ---------------------------------------------------------------------------
// Commands

type SRef = SessionName | 'natural';
type HRef = { bogus: true } | { bogus: false; i: number; smart: boolean };

type Spec =
  | { op: 'create'; who: SessionName; assignee: string | null; idem: string | null; invalid: boolean }
  | { op: 'burst'; who: SessionName; n: number; assignee: string | null }
  | { op: 'accept'; who: SRef; h: HRef }
  | { op: 'requestHandoffInput'; who: SRef; h: HRef; key: string | null }
  | { op: 'answer'; who: SRef; h: HRef; pick: boolean[]; extras: string[] }
  | { op: 'complete'; who: SRef; h: HRef; error: boolean }
  | { op: 'approve' | 'reject'; who: SRef; h: HRef }
  | { op: 'cancel'; who: SRef; h: HRef }
  | { op: 'getTask'; who: SRef; h: HRef }
  | { op: 'getHandoff'; who: SRef; h: HRef; byTask: boolean }
  | { op: 'tick'; ms: number };

/**
 * A handoff created so far (or none: a made-up id). A smart pick prefers one
 * the operation can apply to, so that runs get past the first states.
 */
function pickHandoff(m: Model, ref: HRef, fits: (h: MHandoff) => boolean): MHandoff | null {
  if (ref.bogus || m.handoffs.length === 0) return null;
  const fitting = ref.smart ? m.handoffs.filter(fits) : [];
  const pool = fitting.length > 0 ? fitting : m.handoffs;
  return pool[ref.i % pool.length]!;
}

const pickIndex = (ref: HRef): number => (ref.bogus ? 0 : ref.i);
const resolve = (who: SRef, natural: () => SessionName): SessionName => (who === 'natural' ? natural() : who);

function label(op: string, session: SessionName, h: MHandoff | null, extra = ''): string {
  const which = h === null ? 'bogus' : `#${h.id.slice(3, 9)}`;
  return `${op}(${session}, ${which}${extra ? `, ${extra}` : ''})`;
}

const RESULT = { content: [{ type: 'text' as const, text: 'done' }] };
const FAILURE = { code: -32000, message: 'could not do it' };
const RESPONSE: InputResponse = { action: 'accept', content: { answer: 'yes' } };

function runCreate(
  m: Model,
  r: Real,
  who: SessionName,
  assignee: string | null,
  idem: string | null,
  invalid: boolean,
): void {
  const session = SESSIONS[who];
  const p = session.participant;
  const input: HandoffCreateInput = {
    summary: invalid ? '' : `work item ${m.handoffs.length + 1}`,
    ...(assignee !== null ? { assignee } : {}),
    ...(idem !== null ? { idempotency_key: idem } : {}),
  };
  const name = `create(${who}, assignee=${assignee}, idem=${idem}${invalid ? ', empty summary' : ''})`;
  perform(r, 'create', name, predict(), () => createHandoff(r.room, session, input));

  function predict(): Prediction<HandoffCreateOutput> {
    // Who may act is asked before the input is checked.
    if (!can(who, 'write')) return refuse('forbidden');
    if (invalid) return refuse('invalid_input');
    const original = idem === null ? undefined : m.handoffs.find((h) => h.owner === p && h.idem === idem);
    if (original) {
      return {
        kind: 'noop',
        check(out) {
          expect(out.replayed, `${name}: replayed`).toBe(true);
          expect(out.handoff, `${name}: the original handoff`).toMatchObject({
            handoff_id: original.id,
            status: original.status,
          });
          if (original.task.deleted) expect(out.task, `${name}: the original task row is gone`).toBeNull();
          else checkTaskView(name, out.task, original);
        },
      };
    }
    if (assignee !== null && !PARTICIPANTS.includes(assignee)) return refuse('invalid_input');
    if (activeCount(m) >= MAX_ACTIVE) return refuse('limit_reached');
    return {
      kind: 'change',
      events: (out) => [
        { type: 'handoff.created', actor: p, handoff_id: out.handoff.handoff_id, task_id: out.handoff.task_id },
      ],
      apply(out) {
        expect(out.replayed).toBe(false);
        expect(out.handoff).toMatchObject({ status: 'open', owner: p, assignee, idempotency_key: idem });
        const h: MHandoff = {
          id: out.handoff.handoff_id,
          owner: p,
          assignee,
          accepted: false,
          completed: false,
          status: 'open',
          idem,
          task: {
            id: out.handoff.task_id,
            status: 'working',
            assignee: null,
            createdAt: m.now,
            lastUpdatedAt: m.now,
            deleted: false,
            inputs: new Map(),
          },
        };
        m.handoffs.push(h);
        checkTaskView(name, out.task, h);
      },
    };
  }
}

function runAccept(m: Model, r: Real, spec: Extract<Spec, { op: 'accept' }>): void {
  const h = pickHandoff(m, spec.h, (x) => x.status === 'open');
  const who = resolve(spec.who, () =>
    h?.assignee ? WRITER[h.assignee]! : WRITER[PARTICIPANTS[pickIndex(spec.h) % PARTICIPANTS.length]!]!,
  );
  const session = SESSIONS[who];
  const p = session.participant;
  const name = label('accept', who, h);
  const id = h?.id ?? BOGUS_HANDOFF;
  perform(r, 'accept', name, predict(), () => acceptHandoff(r.room, session, { handoff_id: id }));

  function predict(): Prediction<HandoffTaskOutput> {
    if (!can(who, 'write')) return refuse('forbidden');
    if (!h) return refuse('not_found', `unknown handoff ${id}`);
    if (h.status !== 'open') return refuse('conflict');
    if (h.assignee !== null && h.assignee !== p) return refuse('forbidden');
    return {
      kind: 'change',
      events: () => [{ type: 'handoff.accepted', actor: p, handoff_id: h.id, task_id: h.task.id }],
      apply(out) {
        h.status = 'accepted';
        h.accepted = true;
        h.assignee = p;
        // The task stays working and records who is assigned.
        h.task.assignee = p;
        h.task.lastUpdatedAt = m.now;
        expect(out.handoff).toMatchObject({ status: 'accepted', assignee: p });
        checkTaskView(name, out.task, h);
      },
    };
  }
}

function runRequestInput(m: Model, r: Real, spec: Extract<Spec, { op: 'requestHandoffInput' }>): void {
  const h = pickHandoff(m, spec.h, (x) => x.status === 'accepted');
  const who = resolve(spec.who, () => (h?.assignee ? WRITER[h.assignee]! : 'bob'));
  const session = SESSIONS[who];
  const p = session.participant;
  const name = label('requestHandoffInput', who, h, `key=${spec.key}`);
  const id = h?.id ?? BOGUS_HANDOFF;
  const input = { handoff_id: id, message: 'which section?', ...(spec.key !== null ? { key: spec.key } : {}) };
  perform(r, 'requestHandoffInput', name, predict(), () => requestHandoffInput(r.room, session, input));

  function predict(): Prediction<HandoffRequestInputOutput> {
    if (!can(who, 'write')) return refuse('forbidden');
    if (!h) return refuse('not_found', `unknown handoff ${id}`);
    if (h.assignee !== p || !h.accepted) return refuse('forbidden');
    if (h.status !== 'accepted') return refuse('conflict');
    if (h.task.deleted || !isActive(h.task.status)) return refuse('conflict');
    if (spec.key !== null && h.task.inputs.has(spec.key)) return refuse('conflict');
    return {
      kind: 'change',
      events: () => [{ type: 'task.input_required', actor: p, handoff_id: h.id, task_id: h.task.id }],
      apply(out) {
        if (spec.key !== null) expect(out.key, `${name}: the requested key`).toBe(spec.key);
        expect(h.task.inputs.has(out.key), `${name}: a key unused for this task`).toBe(false);
        h.task.inputs.set(out.key, false);
        h.task.status = 'input_required';
        h.task.lastUpdatedAt = m.now;
        checkTaskView(name, out.task, h);
      },
    };
  }
}

function runAnswer(m: Model, r: Real, spec: Extract<Spec, { op: 'answer' }>): void {
  const h = pickHandoff(m, spec.h, (x) => !x.task.deleted && x.task.status === 'input_required');
  const who = resolve(spec.who, () => (h ? WRITER[h.owner]! : 'alice'));
  const session = SESSIONS[who];
  const p = session.participant;
  // Some of the outstanding keys, and perhaps unknown or already answered ones.
  const keys = h ? outstanding(h).filter((_, i) => spec.pick[i % spec.pick.length]) : [];
  const responses = Object.fromEntries([...keys, ...spec.extras].map((k) => [k, RESPONSE]));
  const name = label('answer', who, h, `keys=${Object.keys(responses).join('|') || '-'}`);
  const taskId = h?.task.id ?? BOGUS_TASK;
  perform(r, 'answer', name, predict(), () =>
    answerTaskInput(r.room, session, { task_id: taskId, input_responses: responses }),
  );

  function predict(): Prediction<TaskUpdateOutput> {
    if (!can(who, 'write')) return refuse('forbidden');
    if (!h || !visibleTo(h, p)) return refuse('not_found', 'unknown task');
    if (h.owner !== p) return refuse('forbidden');
    const answered =
      h.task.status === 'input_required' ? Object.keys(responses).filter((k) => h.task.inputs.get(k) === false) : [];
    if (answered.length === 0) {
      return {
        kind: 'noop',
        check(out) {
          expect(out.answered, `${name}: nothing answered`).toEqual([]);
          checkTaskView(name, out.task, h);
        },
      };
    }
    return {
      kind: 'change',
      events: () => [{ type: 'task.input_received', actor: p, handoff_id: h.id, task_id: h.task.id }],
      apply(out) {
        expect([...out.answered].sort(), `${name}: answered keys`).toEqual([...answered].sort());
        for (const k of answered) h.task.inputs.set(k, true);
        if (outstanding(h).length === 0) h.task.status = 'working';
        h.task.lastUpdatedAt = m.now;
        checkTaskView(name, out.task, h);
      },
    };
  }
}

function runComplete(m: Model, r: Real, spec: Extract<Spec, { op: 'complete' }>): void {
  const h = pickHandoff(m, spec.h, (x) => x.status === 'accepted' && x.task.status === 'working');
  const who = resolve(spec.who, () => (h?.assignee ? WRITER[h.assignee]! : 'bob'));
  const session = SESSIONS[who];
  const p = session.participant;
  const name = label('complete', who, h, spec.error ? 'error' : 'result');
  const id = h?.id ?? BOGUS_HANDOFF;
  const input: HandoffCompleteInput = spec.error
    ? { handoff_id: id, error: FAILURE }
    : { handoff_id: id, result: RESULT };
  perform(r, 'complete', name, predict(), () => completeHandoff(r.room, session, input));

  function predict(): Prediction<HandoffCompleteOutput> {
    if (!can(who, 'write')) return refuse('forbidden');
    if (!h) return refuse('not_found', `unknown handoff ${id}`);
    if (h.assignee !== p || !h.accepted) return refuse('forbidden');
    if (h.completed) {
      // A second completion does not replace the first.
      return {
        kind: 'noop',
        check(out) {
          expect(out.already_completed, `${name}: already completed`).toBe(true);
          expect(out.handoff.status).toBe(h.status);
          if (visibleTo(h, p)) checkTaskView(name, out.task, h);
          else expect(out.task).toBeNull();
        },
      };
    }
    if (h.status !== 'accepted') return refuse('conflict');
    if (h.task.deleted || h.task.status !== 'working') return refuse('conflict');
    return {
      kind: 'change',
      events: () => [
        { type: spec.error ? 'task.failed' : 'handoff.result_ready', actor: p, handoff_id: h.id, task_id: h.task.id },
      ],
      apply(out) {
        expect(out.already_completed).toBe(false);
        h.completed = true;
        h.status = spec.error ? 'cancelled' : 'result_ready';
        h.task.status = spec.error ? 'failed' : 'completed';
        h.task.lastUpdatedAt = m.now;
        expect(out.handoff.status).toBe(h.status);
        checkTaskView(name, out.task, h);
      },
    };
  }
}

function runDecide(m: Model, r: Real, spec: Extract<Spec, { op: 'approve' | 'reject' }>): void {
  const h = pickHandoff(m, spec.h, (x) => x.status === 'result_ready');
  const who = resolve(spec.who, () => APPROVERS[pickIndex(spec.h) % APPROVERS.length]!);
  const session = SESSIONS[who];
  const name = label(spec.op, who, h);
  const id = h?.id ?? BOGUS_HANDOFF;
  const decide = spec.op === 'approve' ? approveHandoff : rejectHandoff;
  perform(r, spec.op, name, predict(), () => decide(r.room, session, { handoff_id: id, note: 'looked at it' }));

  function predict(): Prediction<HandoffOutput> {
    if (!can(who, 'approve')) return refuse('forbidden');
    if (!h) return refuse('not_found', `unknown handoff ${id}`);
    if (h.status !== 'result_ready') return refuse('conflict');
    const status = spec.op === 'approve' ? 'approved' : 'rejected';
    return {
      kind: 'change',
      events: () => [{ type: `handoff.${status}`, actor: session.participant, handoff_id: h.id, task_id: null }],
      apply(out) {
        // The decision is on the handoff; the task is not rewritten.
        h.status = status;
        expect(out.handoff.status).toBe(status);
        expect(out.handoff.decision).toMatchObject({ decision: status, by: session.participant });
      },
    };
  }
}

function runCancel(m: Model, r: Real, spec: Extract<Spec, { op: 'cancel' }>): void {
  const h = pickHandoff(m, spec.h, (x) => !x.task.deleted && isActive(x.task.status));
  const who = resolve(spec.who, () => (h ? WRITER[h.owner]! : 'alice'));
  const session = SESSIONS[who];
  const p = session.participant;
  const name = label('cancel', who, h);
  const taskId = h?.task.id ?? BOGUS_TASK;
  perform(r, 'cancel', name, predict(), () => cancelTask(r.room, session, { task_id: taskId }));

  function predict(): Prediction<TaskCancelOutput> {
    if (!can(who, 'write')) return refuse('forbidden');
    if (!h || !visibleTo(h, p)) return refuse('not_found', 'unknown task');
    if (h.owner !== p) return refuse('forbidden');
    if (isTerminal(h.task.status)) {
      return {
        kind: 'noop',
        check(out) {
          expect(out.cancelled, `${name}: a terminal task stays as it was`).toBe(false);
          checkTaskView(name, out.task, h);
        },
      };
    }
    return {
      kind: 'change',
      events: () => [{ type: 'handoff.cancelled', actor: p, handoff_id: h.id, task_id: h.task.id }],
      apply(out) {
        expect(out.cancelled).toBe(true);
        h.task.status = 'cancelled';
        h.task.lastUpdatedAt = m.now;
        if (h.status === 'open' || h.status === 'accepted') h.status = 'cancelled';
        checkTaskView(name, out.task, h);
      },
    };
  }
}

function catchError(operation: () => unknown): DomainError {
  try {
    operation();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

function runGetTask(m: Model, r: Real, spec: Extract<Spec, { op: 'getTask' }>): void {
  const h = pickHandoff(m, spec.h, () => true);
  const who = resolve(spec.who, () => {
    if (!h) return 'alice';
    const holder = pickIndex(spec.h) % 2 === 0 || !h.task.assignee ? h.owner : h.task.assignee;
    return READER[holder]!;
  });
  const session = SESSIONS[who];
  const name = label('getTask', who, h);
  const taskId = h?.task.id ?? BOGUS_TASK;
  const hidden = !h || !visibleTo(h, session.participant);
  const prediction: Prediction<DetailedTask> = !can(who, 'read')
    ? refuse('forbidden')
    : hidden
      ? refuse('not_found', 'unknown task')
      : { kind: 'noop', check: (task) => checkTaskView(name, task, h) };
  const { error } = perform(r, 'getTask', name, prediction, () => getTask(r.room, session, { task_id: taskId }));
  if (error && can(who, 'read')) {
    // Not readable answers exactly as a made-up id does.
    const madeUp = catchError(() => getTask(r.room, session, { task_id: BOGUS_TASK }));
    expect(error.toJSON(), `${name}: the same answer as a made-up id`).toEqual(madeUp.toJSON());
    expect(error.toJSON()).toEqual({ code: 'not_found', message: 'unknown task' });
  }
}

function runGetHandoff(m: Model, r: Real, spec: Extract<Spec, { op: 'getHandoff' }>): void {
  const h = pickHandoff(m, spec.h, () => true);
  const who = resolve(spec.who, () => (h ? READER[h.owner]! : 'alice'));
  const session = SESSIONS[who];
  const name = label('getHandoff', who, h, spec.byTask ? 'by task' : 'by id');
  const ref = spec.byTask ? { task_id: h?.task.id ?? BOGUS_TASK } : { handoff_id: h?.id ?? BOGUS_HANDOFF };
  const prediction: Prediction<HandoffTaskOutput> = !can(who, 'read')
    ? refuse('forbidden')
    : !h
      ? refuse('not_found', spec.byTask ? `no handoff has task ${BOGUS_TASK}` : `unknown handoff ${BOGUS_HANDOFF}`)
      : {
          kind: 'noop',
          check(out) {
            expect(out.handoff).toMatchObject({
              handoff_id: h.id,
              status: h.status,
              owner: h.owner,
              assignee: h.assignee,
            });
            if (visibleTo(h, session.participant)) checkTaskView(name, out.task, h);
            else expect(out.task, `${name}: the task is not readable by ${session.participant}`).toBeNull();
          },
        };
  perform(r, 'getHandoff', name, prediction, () => getHandoff(r.room, session, ref));
}

function runTick(m: Model, r: Real, ms: number): void {
  r.t.clock.advance(ms);
  m.now += ms;
  const now = m.now;
  const name = `sweep(+${ms}ms)`;
  // A non-terminal task one TTL after creation fails; a terminal row goes one
  // TTL after its last update.
  const expiring = m.handoffs.filter(
    (h) => !h.task.deleted && isActive(h.task.status) && h.task.createdAt + TTL <= now,
  );
  const deleting = m.handoffs.filter(
    (h) => !h.task.deleted && isTerminal(h.task.status) && h.task.lastUpdatedAt + TTL <= now,
  );
  const checkReport = (report: SweepReport): void => {
    expect([...report.expired].sort(), `${name}: expired tasks`).toEqual(expiring.map((h) => h.task.id).sort());
    expect(report.deleted, `${name}: deleted task rows`).toBe(deleting.length);
  };
  const prediction: Prediction<SweepReport> =
    expiring.length === 0 && deleting.length === 0
      ? { kind: 'noop', check: checkReport }
      : {
          kind: 'change',
          // One task.expired per expired task; deleting a row is housekeeping, not an event.
          events: () =>
            expiring.map((h) => ({ type: 'task.expired', actor: null, handoff_id: h.id, task_id: h.task.id })),
          apply(report) {
            checkReport(report);
            for (const h of deleting) h.task.deleted = true;
            for (const h of expiring) {
              h.task.status = 'failed';
              h.task.lastUpdatedAt = now;
              if (h.status === 'open' || h.status === 'accepted') h.status = 'cancelled';
            }
          },
        };
  perform(r, 'sweep', name, prediction, () => sweepExpiredTasks(r.room));
}

class Step implements fc.Command<Model, Real> {
  constructor(readonly spec: Spec) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    const s = this.spec;
    switch (s.op) {
      case 'create':
        runCreate(m, r, s.who, s.assignee, s.idem, s.invalid);
        return checkInvariants(m, r, this.toString(), false);
      case 'burst':
        for (let i = 0; i < s.n; i++) {
          runCreate(m, r, s.who, s.assignee, null, false);
          checkInvariants(m, r, `${this.toString()} #${i + 1}`, false);
        }
        return;
      case 'accept':
        runAccept(m, r, s);
        break;
      case 'requestHandoffInput':
        runRequestInput(m, r, s);
        break;
      case 'answer':
        runAnswer(m, r, s);
        break;
      case 'complete':
        runComplete(m, r, s);
        break;
      case 'approve':
      case 'reject':
        runDecide(m, r, s);
        break;
      case 'cancel':
        runCancel(m, r, s);
        break;
      case 'getTask':
        runGetTask(m, r, s);
        break;
      case 'getHandoff':
        runGetHandoff(m, r, s);
        break;
      case 'tick':
        runTick(m, r, s.ms);
        return checkInvariants(m, r, this.toString(), true);
    }
    checkInvariants(m, r, this.toString(), false);
  }
  toString(): string {
    const { op, ...rest } = this.spec;
    return `${op}${JSON.stringify(rest)}`;
  }
}

// ---------------------------------------------------------------------------
// Arbitraries

const sessionArb = fc.constantFrom(...SESSION_NAMES);
/** Mostly the session the operation is meant for (the assignee, the owner, an approver), sometimes anyone. */
const whoArb: fc.Arbitrary<SRef> = fc.oneof(
  { weight: 4, arbitrary: fc.constant('natural' as const) },
  { weight: 1, arbitrary: sessionArb },
);
/** Mostly a handoff the operation applies to, sometimes any, now and then a made-up id. */
const handoffArb: fc.Arbitrary<HRef> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ bogus: true as const }) },
  {
    weight: 12,
    arbitrary: fc.record({
      bogus: fc.constant(false as const),
      i: fc.nat({ max: 1000 }),
      smart: fc.nat({ max: 3 }).map((n) => n > 0),
    }),
  },
);
const assigneeArb = fc.constantFrom<string | null>(null, null, 'alice', 'bob', 'carol', 'dave', 'zed');
const HOUR = 60 * 60 * 1000;
const msArb = fc.oneof(
  fc.integer({ min: 1, max: 6 * HOUR }),
  fc.constantFrom(12 * HOUR, TTL - 1, TTL, TTL + 1, 2 * TTL),
);

const step = <S extends Spec>(arb: fc.Arbitrary<S>): fc.Arbitrary<fc.Command<Model, Real>> =>
  arb.map((spec) => new Step(spec));

const weighted = (weight: number, arb: fc.Arbitrary<Spec>) => ({ weight, arbitrary: arb });
const createArb = fc.record({
  op: fc.constant('create' as const),
  who: sessionArb,
  assignee: assigneeArb,
  idem: fc.constantFrom<string | null>(null, null, 'idem-1', 'idem-2'),
  invalid: fc.nat({ max: 19 }).map((n) => n === 0),
});
const specArb: fc.Arbitrary<Spec> = fc.oneof(
  weighted(4, createArb),
  weighted(
    1,
    fc.record({
      op: fc.constant('burst' as const),
      who: fc.constantFrom<SessionName>('alice', 'bob', 'carolW'),
      n: fc.integer({ min: 5, max: 24 }),
      assignee: assigneeArb,
    }),
  ),
  weighted(6, fc.record({ op: fc.constant('accept' as const), who: whoArb, h: handoffArb })),
  weighted(
    3,
    fc.record({
      op: fc.constant('requestHandoffInput' as const),
      who: whoArb,
      h: handoffArb,
      key: fc.constantFrom<string | null>(null, 'k1', 'k2'),
    }),
  ),
  weighted(
    4,
    fc.record({
      op: fc.constant('answer' as const),
      who: whoArb,
      h: handoffArb,
      pick: fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }),
      extras: fc.subarray(['nope', 'k1', 'k2']),
    }),
  ),
  weighted(
    6,
    fc.record({
      op: fc.constant('complete' as const),
      who: whoArb,
      h: handoffArb,
      error: fc.nat({ max: 3 }).map((n) => n === 0),
    }),
  ),
  weighted(3, fc.record({ op: fc.constant('approve' as const), who: whoArb, h: handoffArb })),
  weighted(2, fc.record({ op: fc.constant('reject' as const), who: whoArb, h: handoffArb })),
  weighted(2, fc.record({ op: fc.constant('cancel' as const), who: whoArb, h: handoffArb })),
  weighted(3, fc.record({ op: fc.constant('getTask' as const), who: whoArb, h: handoffArb })),
  weighted(2, fc.record({ op: fc.constant('getHandoff' as const), who: whoArb, h: handoffArb, byTask: fc.boolean() })),
  weighted(2, fc.record({ op: fc.constant('tick' as const), ms: msArb })),
);
const commandArbs = [step(specArb)];
const preambleArb = fc.array(step(createArb), { minLength: 1, maxLength: 4 });

// ---------------------------------------------------------------------------

afterAll(() => {
  if (process.env.MODEL_STATS) {
    console.log(
      [...coverage]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, n]) => `${k} ${n}`)
        .join('\n'),
    );
  }
});

test('random operation sequences keep the lifecycle, limit, event and visibility rules', () => {
  fc.assert(
    fc.property(
      preambleArb,
      fc.commands(commandArbs, { maxCommands: MAX_COMMANDS, size: 'max' }),
      (preamble, commands) => {
        const t = makeRoom();
        try {
          const real = new Real(t);
          const model: Model = { handoffs: [], now: t.clock.now() };
          checkInvariants(model, real, 'start', false);
          // A few creations first, so that the random operations have handoffs to work on.
          for (const command of preamble) command.run(model, real);
          fc.modelRun(() => ({ model, real }), commands);
        } finally {
          t.close();
        }
      },
    ),
    { numRuns: NUM_RUNS },
  );
}, 60_000);
