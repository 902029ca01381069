// `ce serve` killed with SIGKILL while participants create and cancel
// handoffs over MCP and REST at once, round after round on one sidecar.
// After each kill: every acknowledged create is stored with its summary and
// owner, every acknowledged cancel left its task and handoff cancelled, a
// create refused at the active-task limit wrote nothing, and a request lost
// in flight committed whole or not at all. After each restart the room
// answers the same through both doors. (The rounds, the lock and the
// integrity checks are the harness's: test/helpers/crash-harness.ts.)
import { expect, test } from 'vitest';
import type { Room } from '../helpers/engine.js';
import { MAX_ACTIVE_TASKS } from '../../src/engine/limits.js';
import type { EventRow, HandoffRow, TaskRow } from '../../src/store/rows.js';
import { runCrashRounds, type CrashScenario, type KilledRound, type LoadContext } from '../helpers/crash-harness.js';
import type { Door, Outcome, RoomClient, Wire } from '../helpers/recording-client.js';
import { pick, seededRandom, type Random } from '../helpers/seeded-random.js';

const ROUNDS = 20;
const PARTICIPANTS = ['alice', 'bob', 'carol'] as const;
const WORKERS_PER_PARTICIPANT = 2;
/** The share of a participant's moves that cancel one of its working tasks (when it has one). */
const CANCEL_SHARE = 0.3;

/** One create the load sent, and what is known of it. */
interface PlannedHandoff {
  owner: string;
  /** Unique in the room: it finds the handoff when the create's answer was lost. */
  summary: string;
  idempotencyKey: string;
  round: number;
  createdThrough: Door;
  create: Outcome['kind'];
  /** Whether the sidecar holds it; unknown after a lost create until the sidecar is read. */
  exists?: boolean;
  handoffId?: string;
  taskId?: string;
  /** Whether its task is cancelled; unknown while a cancel is in flight or after it was lost, until read. */
  cancelled?: boolean;
  cancel?: { through: Door; round: number; outcome: Outcome['kind'] };
}

/** What the load asked for, and the working tasks each owner may still cancel. */
class HandoffModel {
  readonly planned = new Map<string, PlannedHandoff>();
  private readonly cancellable = new Map<string, Set<PlannedHandoff>>();

  add(handoff: PlannedHandoff): void {
    this.planned.set(handoff.summary, handoff);
  }

  working(owner: string): Set<PlannedHandoff> {
    let set = this.cancellable.get(owner);
    if (!set) this.cancellable.set(owner, (set = new Set()));
    return set;
  }
}

const META_HANDOFF = 'commonroom/handoff_id';

async function create(
  model: HandoffModel,
  client: RoomClient,
  round: number,
  label: string,
  random: Random,
): Promise<Outcome> {
  const owner = client.participant;
  const summary = `${owner} r${round}-${label}: proofread part ${label} — ünïcödé ✓`;
  const idempotencyKey = `${owner}-r${round}-${label}`;
  const through: Door = random() < 0.5 ? 'mcp' : 'rest';
  const planned: PlannedHandoff = { owner, summary, idempotencyKey, round, createdThrough: through, create: 'lost' };
  model.add(planned);
  const input = { summary, idempotency_key: idempotencyKey };
  const expected = { summary, owner, status: 'open', idempotency_key: idempotencyKey, assignee: null };

  let outcome: Outcome;
  let ids: { handoffId: string; taskId: string } | undefined;
  if (through === 'rest') {
    outcome = await client.rest('POST', '/handoffs', input);
    if (outcome.kind === 'acknowledged') {
      expect(outcome.status).toBe(201);
      expect(outcome.body).toMatchObject({ handoff: expected, task: { status: 'working' }, replayed: false });
      ids = { handoffId: outcome.body.handoff.handoff_id, taskId: outcome.body.handoff.task_id };
    }
    if (outcome.kind === 'refused') expect({ status: outcome.status, code: outcome.code }).toEqual(LIMIT_REACHED_REST);
  } else {
    // With the Tasks extension the answer is a task handle; without it, the handoff.
    const tasks = random() < 0.5;
    outcome = await client.mcp('tools/call', { name: 'handoff_create', arguments: input }, { tasks });
    if (outcome.kind === 'acknowledged' && tasks) {
      expect(outcome.body).toMatchObject({
        resultType: 'task',
        status: 'working',
        _meta: { [META_HANDOFF]: expect.any(String) },
      });
      ids = { handoffId: outcome.body._meta[META_HANDOFF], taskId: outcome.body.taskId };
    } else if (outcome.kind === 'acknowledged') {
      const created: Wire = outcome.body.structuredContent;
      expect(created).toMatchObject({ handoff: expected, task: { status: 'working' }, replayed: false });
      ids = { handoffId: created.handoff.handoff_id, taskId: created.handoff.task_id };
    }
    if (outcome.kind === 'refused') expect({ status: outcome.status, code: outcome.code }).toEqual(LIMIT_REACHED_MCP);
  }

  planned.create = outcome.kind;
  if (outcome.kind === 'acknowledged') {
    Object.assign(planned, { exists: true, cancelled: false, ...ids });
    model.working(owner).add(planned);
  }
  if (outcome.kind === 'refused') planned.exists = false;
  return outcome;
}

/** The room's answer to a create at the active-task limit, through each door. */
const LIMIT_REACHED_REST = { status: 429, code: 'limit_reached' };
const LIMIT_REACHED_MCP = { status: 200, code: 'limit_reached' };

async function cancel(
  model: HandoffModel,
  client: RoomClient,
  round: number,
  planned: PlannedHandoff,
  random: Random,
): Promise<Outcome> {
  model.working(planned.owner).delete(planned);
  const through: Door = random() < 0.5 ? 'mcp' : 'rest';
  planned.cancelled = undefined;
  planned.cancel = { through, round, outcome: 'lost' };

  let outcome: Outcome;
  if (through === 'rest') {
    outcome = await client.rest('POST', '/task/cancel', { task_id: planned.taskId });
    if (outcome.kind === 'acknowledged') {
      expect(outcome.body).toMatchObject({ task: { taskId: planned.taskId, status: 'cancelled' }, cancelled: true });
    }
  } else {
    outcome = await client.mcp('tasks/cancel', { taskId: planned.taskId }, { tasks: true });
    if (outcome.kind === 'acknowledged') expect(outcome.body).toMatchObject({ resultType: 'complete' });
  }
  // The owner cancels its own working task: the room has no reason to refuse.
  expect(outcome, `cancel of ${planned.summary}`).not.toMatchObject({ kind: 'refused' });
  planned.cancel.outcome = outcome.kind;
  if (outcome.kind === 'acknowledged') planned.cancelled = true;
  return outcome;
}

/** One participant's requests, one at a time, until the room is gone. */
async function work(model: HandoffModel, context: LoadContext, client: RoomClient, worker: number, random: Random) {
  let atLimit = false;
  for (let n = 0; !context.killed; n++) {
    const mine = [...model.working(client.participant)];
    // At the limit, a cancel makes room; otherwise mostly creates, so the room fills up to it.
    const outcome: Outcome =
      mine.length > 0 && (atLimit || random() < CANCEL_SHARE)
        ? await cancel(model, client, context.round, pick(random, mine), random)
        : await create(model, client, context.round, `${worker}.${n}`, random);
    if (outcome.kind === 'lost') return;
    atLimit = outcome.kind === 'refused';
  }
}

function checkStored(model: HandoffModel, reader: Room) {
  const db = reader.store.db;
  const rows = db.prepare('SELECT * FROM handoffs').all() as HandoffRow[];
  const tasks = new Map((db.prepare('SELECT * FROM tasks').all() as TaskRow[]).map((task) => [task.id, task]));
  const eventsOf = db.prepare('SELECT type FROM events WHERE handoff_id = ? ORDER BY id');

  const bySummary = new Map<string, HandoffRow>();
  for (const row of rows) {
    expect(bySummary.has(row.summary), `two handoffs say ${row.summary}`).toBe(false);
    expect(model.planned.has(row.summary), `handoff ${row.id} (${row.summary}) was never asked for`).toBe(true);
    bySummary.set(row.summary, row);
  }

  for (const planned of model.planned.values()) {
    const row = bySummary.get(planned.summary);
    const what =
      `${planned.summary}: created through ${planned.createdThrough} (${planned.create})` +
      (planned.cancel ? `, cancelled through ${planned.cancel.through} (${planned.cancel.outcome})` : '');
    if (planned.exists === false) {
      expect(row, `${what} must not be stored`).toBeUndefined();
      continue;
    }
    if (planned.exists === true) expect(row, `${what} is lost`).toBeDefined();
    if (!row) {
      planned.exists = false; // a lost create that never committed: it must stay absent
      continue;
    }
    expect(row, what).toMatchObject({ owner: planned.owner, idempotency_key: planned.idempotencyKey, assignee: null });
    if (planned.handoffId !== undefined) {
      expect({ id: row.id, task_id: row.task_id }, what).toEqual({ id: planned.handoffId, task_id: planned.taskId });
    }
    const task = tasks.get(row.task_id);
    expect(task, `the task of ${what}`).toMatchObject({ handoff_id: row.id, owner: planned.owner });
    const state = `${row.status}/${task!.status}`;
    if (planned.cancelled === true) {
      expect(state, what).toBe('cancelled/cancelled');
      expect(task!.status_message).toBe(`cancelled by ${planned.owner}`);
    } else if (planned.cancelled === false) {
      expect(state, what).toBe('open/working');
    } else {
      expect(['open/working', 'cancelled/cancelled'], what).toContain(state);
    }
    expect(row.cancelled_at === null, what).toBe(state === 'open/working');
    // One event per change, committed with it (unless the ring has let them go).
    if (row.events_pruned_through === 0) {
      const types = (eventsOf.all(row.id) as Pick<EventRow, 'type'>[]).map((event) => event.type);
      expect(types, what).toEqual(
        state === 'open/working' ? ['handoff.created'] : ['handoff.created', 'handoff.cancelled'],
      );
    }

    // What the kill left open is settled now: from here on the sidecar must keep it.
    Object.assign(planned, {
      exists: true,
      handoffId: row.id,
      taskId: row.task_id,
      cancelled: state === 'cancelled/cancelled',
    });
    if (!planned.cancelled) model.working(planned.owner).add(planned);
  }

  const active = [...tasks.values()].filter((task) => task.status === 'working' || task.status === 'input_required');
  expect(active.length).toBeLessThanOrEqual(MAX_ACTIVE_TASKS);
}

/** The restarted room tells each handoff the killed round created or cancelled as the sidecar has it. */
async function checkServed(model: HandoffModel, clients: Record<string, RoomClient>, round: KilledRound) {
  const touched = [...model.planned.values()].filter(
    (planned) => planned.exists && (planned.round === round.round || planned.cancel?.round === round.round),
  );
  for (const [index, planned] of touched.entries()) {
    const client = clients[planned.owner]!;
    const status = planned.cancelled ? 'cancelled' : 'working';
    const handoff = {
      handoff_id: planned.handoffId,
      summary: planned.summary,
      status: planned.cancelled ? 'cancelled' : 'open',
    };
    if (index % 2 === 0) {
      const read = await client.rest('GET', `/handoffs/${planned.handoffId}`);
      expect(read, planned.summary).toMatchObject({
        kind: 'acknowledged',
        body: { handoff, task: { taskId: planned.taskId, status } },
      });
    } else {
      const read = await client.mcp('tools/call', {
        name: 'handoff_get',
        arguments: { handoff_id: planned.handoffId },
      });
      expect(read, planned.summary).toMatchObject({ kind: 'acknowledged', body: { structuredContent: { handoff } } });
      const task = await client.mcp('tasks/get', { taskId: planned.taskId }, { tasks: true });
      expect(task, planned.summary).toMatchObject({ kind: 'acknowledged', body: { taskId: planned.taskId, status } });
    }
  }

  // The idempotency key outlives the crash: the same create again returns the original and writes nothing.
  const replayed = touched
    .filter((planned) => planned.round === round.round && planned.create === 'acknowledged')
    .at(-1);
  if (replayed) {
    const client = clients[replayed.owner]!;
    const input = { summary: replayed.summary, idempotency_key: replayed.idempotencyKey };
    const expected = { replayed: true, handoff: { handoff_id: replayed.handoffId, task_id: replayed.taskId } };
    if (replayed.createdThrough === 'mcp') {
      const again = await client.rest('POST', '/handoffs', input);
      expect(again).toMatchObject({ kind: 'acknowledged', body: expected });
    } else {
      const again = await client.mcp('tools/call', { name: 'handoff_create', arguments: input });
      expect(again).toMatchObject({ kind: 'acknowledged', body: { structuredContent: expected } });
    }
  }
}

function handoffScenario(model: HandoffModel): CrashScenario {
  return {
    async load(context) {
      // Each worker draws from its own stream, taken in a fixed order.
      const workers = PARTICIPANTS.flatMap((name) =>
        Array.from({ length: WORKERS_PER_PARTICIPANT }, (_, worker) => ({
          client: context.clients[name]!,
          worker,
          random: seededRandom(Math.floor(context.random() * 2 ** 32)),
        })),
      );
      await Promise.all(workers.map(({ client, worker, random }) => work(model, context, client, worker, random)));
    },
    checkStored: (reader) => checkStored(model, reader),
    checkServed: (clients, round) => checkServed(model, clients, round),
  };
}

test(
  `ce serve killed with SIGKILL ${ROUNDS} times under concurrent MCP and REST creates and cancels keeps every acknowledged write`,
  { timeout: 240_000 },
  async () => {
    const model = new HandoffModel();
    const rounds = await runCrashRounds({
      scenario: handoffScenario(model),
      participants: Object.fromEntries(PARTICIPANTS.map((name) => [name, ['read', 'write']])),
      rounds: ROUNDS,
      killAfterMs: { min: 30, max: 300 },
    });

    // The load did what it is for: writes acknowledged and lost through both doors, and the limit reached.
    const totals: Record<string, Partial<Record<Outcome['kind'], number>>> = {};
    for (const { ledger } of rounds) {
      for (const [request, counts] of Object.entries(ledger.counts())) {
        for (const [kind, n] of Object.entries(counts)) {
          const into = (totals[request] ??= {});
          into[kind as Outcome['kind']] = (into[kind as Outcome['kind']] ?? 0) + n;
        }
      }
    }
    for (const request of ['tools/call handoff_create', 'POST /handoffs', 'tasks/cancel', 'POST /task/cancel']) {
      expect(totals[request]?.acknowledged, request).toBeGreaterThan(0);
    }
    const refused = (totals['tools/call handoff_create']?.refused ?? 0) + (totals['POST /handoffs']?.refused ?? 0);
    expect(refused, 'creates refused at the active-task limit').toBeGreaterThan(0);
    const lost = Object.values(totals).reduce((sum, counts) => sum + (counts.lost ?? 0), 0);
    expect(lost, 'requests in flight at a kill').toBeGreaterThan(0);
  },
);
