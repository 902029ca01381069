// Crash rounds against the real room process: `ce serve FILE --port 0 --json`
// runs while a scenario's load sends requests over MCP and REST, is killed
// with SIGKILL after a random delay, and is started again on the same
// sidecar, round after round. What the harness checks every round:
//
// - every request of the load got an answer the room may give (no 5xx but
//   a 503 `unavailable`, no malformed body), and none was lost while the
//   room still ran;
// - after the kill: the sidecar passes integrity_check and
//   foreign_key_check, its event ring is contiguous, the dead process's lock
//   row is still there but no longer counts as held, and its runtime file
//   names no running room; then the scenario checks what is stored
//   (checkStored);
// - after the restart: the new process holds the lock (taken over from the
//   killed one) and says so in its runtime file; then the scenario checks
//   the room's answers (checkServed).
//
// After the last round the room is started once more, checked, stopped with
// SIGTERM, and the sidecar checked again with the lock released. The kill
// moments and the load's random stream come from one seed (CRASH_SEED to
// replay), named in the error when a round fails. A scenario may start each
// `ce serve` with more node flags and environment (a preloaded fault).
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { Capability } from '../../generated/types.js';
import {
  addParticipant,
  createSession,
  LOCAL_OPERATOR,
  openRoom,
  syncArtifact,
  type Room,
} from './engine.js';
import { readRuntimeFile, runtimeFilePath } from '../../src/http/runtime-file.js';
import { readLockHolder } from '../../src/store/writer-lock.js';
import { ceServe, type CeServeOptions, type ServedRoom } from './ce-serve.js';
import { Ledger, roomClient, type RoomClient } from './recording-client.js';
import { tempDir } from './room.js';
import { between, deriveSeed, seededRandom, seedFromEnv, type Random } from './seeded-random.js';

export const CRASH_SEED_VARIABLE = 'CRASH_SEED';

/** The load of one round: the room is up, and will be killed a random moment later. */
export interface LoadContext {
  /** 1-based. */
  round: number;
  /** The round's own stream, independent of the kill moment. */
  random: Random;
  /** One recording client per participant, against this round's room process. */
  clients: Record<string, RoomClient>;
  /** True once SIGKILL has been sent. */
  readonly killed: boolean;
}

export interface KilledRound {
  round: number;
  /** The process killed. */
  pid: number;
  killAfterMs: number;
  /** Every request of the round's load and its outcome. */
  ledger: Ledger;
}

export interface CrashScenario {
  /** More setup with the engine, before the first start; participants and their sessions exist already. */
  prepare?(room: Room): void;
  /**
   * Sends requests until the room dies (every request after the kill is
   * lost), and resolves once every request it sent has settled.
   */
  load(context: LoadContext): Promise<void>;
  /**
   * After each kill, before the restart: the sidecar as the kill left it,
   * open read-only. Once more after the final clean stop (`after` says which).
   */
  checkStored(reader: Room, round: KilledRound, after: 'killed' | 'stopped'): void;
  /** After each restart, before the next load: the room's answers, through clients that record nothing. */
  checkServed(clients: Record<string, RoomClient>, round: KilledRound): Promise<void>;
}

export interface CrashRoundsOptions {
  scenario: CrashScenario;
  /** Participants, each with one session of these capabilities. */
  participants: Record<string, [Capability, ...Capability[]]>;
  rounds: number;
  /** Drawn per round from the seed: how long the load runs before the kill. */
  killAfterMs: { min: number; max: number };
  /** Defaults to CRASH_SEED, or a fresh one. */
  seed?: number;
  /** The markdown file at the start. */
  content?: string;
  /** How each `ce serve` is started; `start` counts from 1 (the first round) to rounds + 1 (the last restart). */
  serve?(start: ServeStart): CeServeOptions;
}

export interface ServeStart {
  start: number;
  /** Drawn from the crash seed for this start. */
  seed: number;
  artifact: string;
}

/** Streams drawn from the seed, per round. */
const KILL_STREAM = 1;
const LOAD_STREAM = 2;
const SERVE_STREAM = 3;

/** How long the load may take to notice the room is gone. */
const SETTLE_TIMEOUT_MS = 30_000;

/**
 * Runs the rounds, then starts the room once more, checks it as after every
 * restart and stops it with SIGTERM. Returns what each round killed and
 * recorded.
 */
export async function runCrashRounds(options: CrashRoundsOptions): Promise<KilledRound[]> {
  const seed = options.seed ?? seedFromEnv(CRASH_SEED_VARIABLE);
  const dir = tempDir();
  const artifact = path.join(dir, 'room.md');
  writeFileSync(artifact, options.content ?? '# Crash room\n');
  const tokens = prepareRoom(artifact, options.participants, options.scenario.prepare);
  const clientsOf = (served: ServedRoom, ledger?: Ledger) =>
    Object.fromEntries(Object.entries(tokens).map(([name, token]) => [name, roomClient(served, name, token, ledger)]));
  const startRoom = (start: number) =>
    startTakingOver(artifact, options.serve?.({ start, seed: deriveSeed(seed, start, SERVE_STREAM), artifact }));

  const killed: KilledRound[] = [];
  let served: ServedRoom | null = null;
  let round = 0;
  try {
    for (round = 1; round <= options.rounds; round++) {
      served = await startRoom(round);
      if (killed.length > 0) await options.scenario.checkServed(clientsOf(served), killed.at(-1)!);

      const killAfterMs = between(
        seededRandom(deriveSeed(seed, round, KILL_STREAM)),
        options.killAfterMs.min,
        options.killAfterMs.max,
      );
      const ledger = new Ledger();
      const loading = options.scenario
        .load({
          round,
          random: seededRandom(deriveSeed(seed, round, LOAD_STREAM)),
          clients: clientsOf(served, ledger),
          get killed() {
            return ledger.killed;
          },
        })
        .then(
          () => null,
          (error: unknown) => error,
        );
      await sleep(killAfterMs);
      ledger.killed = true;
      const pid = await kill(served);
      served = null;
      const failure = await settled(loading);
      if (failure) throw failure;
      expectAnswersTheRoomMayGive(ledger);

      const report: KilledRound = { round, pid, killAfterMs, ledger };
      checkSidecar(artifact, 'killed', report, options.scenario);
      killed.push(report);
    }

    // The last restart: checked like the others, then a clean stop, and the sidecar once more.
    round = options.rounds + 1;
    served = await startRoom(round);
    if (killed.length > 0) await options.scenario.checkServed(clientsOf(served), killed.at(-1)!);
    expect(await served.stop(), served.stderr()).toBe(0);
    served = null;
    if (killed.length > 0) checkSidecar(artifact, 'stopped', killed.at(-1)!, options.scenario);
    return killed;
  } catch (error) {
    const where = round > options.rounds ? 'the restart after the last round' : `round ${round} of ${options.rounds}`;
    const replay = `crash seed ${seed} (${where}); replay with ${CRASH_SEED_VARIABLE}=${seed}`;
    console.error(replay);
    if (error instanceof Error) error.message = `${error.message}\n${replay}`;
    throw error;
  } finally {
    if (served) {
      served.kill();
      await served.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Participants and one session each, made with the engine while no room process runs; their tokens. */
function prepareRoom(
  artifact: string,
  participants: CrashRoundsOptions['participants'],
  prepare: CrashScenario['prepare'],
): Record<string, string> {
  const room = openRoom(artifact, { command: 'crash-harness' });
  try {
    syncArtifact(room);
    const tokens: Record<string, string> = {};
    for (const [name, capabilities] of Object.entries(participants)) {
      addParticipant(room, LOCAL_OPERATOR, { name });
      tokens[name] = createSession(room, LOCAL_OPERATOR, { participant: name, capabilities }).token;
    }
    prepare?.(room);
    return tokens;
  } finally {
    room.close();
  }
}

/** Starts `ce serve`, which must take the lock (over from the killed process, if any) and announce itself. */
async function startTakingOver(artifact: string, serveOptions?: CeServeOptions): Promise<ServedRoom> {
  const served = await ceServe(artifact, serveOptions);
  try {
    expect(served.pid).toBe(served.child.pid);
    const reader = openRoom(artifact, { mode: 'read' });
    try {
      const holder = { pid: served.pid, command: `ce serve ${artifact}` };
      expect(reader.store.db.prepare('SELECT pid, command FROM writer_lock').all()).toEqual([holder]);
      expect(readLockHolder(reader.store.db)).toMatchObject(holder);
    } finally {
      reader.close();
    }
    expect(readRuntimeFile(artifact)).toMatchObject({ pid: served.pid, mcp_url: served.mcpUrl });
    return served;
  } catch (error) {
    served.kill();
    await served.exited;
    throw error;
  }
}

/** SIGKILL, and wait until the process is reaped (a zombie would still look like the holder); its pid. */
async function kill(served: ServedRoom): Promise<number> {
  served.kill();
  await served.exited;
  expect(served.child.signalCode, `ce serve ended by itself; stderr:\n${served.stderr()}`).toBe('SIGKILL');
  return served.pid;
}

async function settled(loading: Promise<unknown>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Error>((resolve) => {
    timer = setTimeout(
      () => resolve(new Error(`the load did not settle ${SETTLE_TIMEOUT_MS} ms after the kill`)),
      SETTLE_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([loading, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** No answer the room should never give (a 5xx, a malformed body), and no connection dropped while it ran. */
function expectAnswersTheRoomMayGive(ledger: Ledger): void {
  const wrong = ledger.entries.filter(
    (entry) => entry.outcome.kind === 'unexpected' || (entry.outcome.kind === 'lost' && !entry.afterKill),
  );
  expect(wrong, 'requests answered wrongly, or lost while the room ran').toEqual([]);
}

/**
 * The sidecar, read-only, with no room process: as the kill left it, or as
 * the final clean stop did. Then the scenario's own checks.
 */
function checkSidecar(artifact: string, after: 'killed' | 'stopped', round: KilledRound, scenario: CrashScenario) {
  const reader = openRoom(artifact, { mode: 'read' });
  try {
    const db = reader.store.db;
    expect(db.pragma('integrity_check'), `after round ${round.round}`).toEqual([{ integrity_check: 'ok' }]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    if (after === 'killed') {
      // The dead holder's row stays until the next writer takes it over; it no longer counts.
      expect(db.prepare('SELECT pid FROM writer_lock').all()).toEqual([{ pid: round.pid }]);
      expect(readLockHolder(db)).toBeNull();
      // Its runtime file may remain, but names no running room: ce would take the lock itself.
      expect(readRuntimeFile(artifact)).toBeNull();
    } else {
      expect(db.prepare('SELECT pid FROM writer_lock').all()).toEqual([]);
      expect(existsSync(runtimeFilePath(artifact))).toBe(false);
    }
    // Event ids strictly increase and the ring keeps a contiguous newest run of them.
    const events = reader.store.eventStats();
    if (events.n > 0) expect(events.n).toBe(events.newest! - events.oldest! + 1);
    scenario.checkStored(reader, round, after);
  } finally {
    reader.close();
  }
}
