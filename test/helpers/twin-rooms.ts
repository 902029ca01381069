// Twin rooms: two copies of one room in the same state, one served by a real
// `ce serve` and one not. Each case runs the same `ce` command on both, and
// the two answers (exit code, stdout, stderr) must be the same once what each
// room made at random or at its own moment is replaced by what it stands
// for: ids, tokens, correlation ids, cursors, times, the twin's directory.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'vitest';
import { operations, type Operation } from '../../generated/operations.js';
import { openRoom } from './engine.js';
import { ceServe, type ServedRoom } from './ce-serve.js';
import { dumpDatabase, tempDir } from './room.js';
import { ce, ceHere, words, type CeRun } from './run-ce.js';

/** What a case expects of the direct path: success, a refusal by its code, or a usage error. */
export type Outcome = 'ok' | 'usage' | string;

export interface Case {
  /** The words after `ce`; `{file}`, `{dir}` and `{name}` of a saved value are each twin's own. */
  args: string[];
  expect: Outcome;
  /** Plain output instead of --json. */
  plain?: boolean;
  /** Run in the twin's directory, `{file}` being `notes.md`. */
  inDir?: boolean;
  /** Values of the --json answer that later cases name, each twin its own. */
  save?: Record<string, (output: any) => string>;
  /** A documented difference: the served path's refusal, by code and message, where the direct path answers `expect`. */
  served?: { code: string; message: RegExp };
}

export const ok = (line: string, save?: Case['save']): Case => ({ args: words(line), expect: 'ok', save });
export const plain = (line: string): Case => ({ args: words(line), expect: 'ok', plain: true });
export const refused = (code: string, line: string): Case => ({ args: words(line), expect: code });
export const usage = (line: string): Case => ({ args: words(line), expect: 'usage' });

/** Each command of the operation table, and how many of its cases succeed and are refused by the room. */
export const coverage = new Map<string, { ok: number; refused: number }>();

const OPERATION_OF = new Map<string, Operation>(
  (Object.values(operations) as Operation[]).map((o) => [o.cli.command, o]),
);

/** `participant add` for `['participant', 'add', ...]`, `handoffs` for `['handoffs', ...]`. */
export function commandOf(args: string[]): string {
  const two = `${args[0]} ${args[1]}`;
  return OPERATION_OF.has(two) ? two : args[0]!;
}

const ISO_TIME = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
// Not within another id: a random id may hold "-cr_" or "-ho_" itself.
const TOKEN = /(?<![\w-])cr_[A-Za-z0-9_-]+/g;
const ID = /(?<![\w-])(ho|tk|pr|se|in)_[A-Za-z0-9_-]+/g;
const CURSOR_FIELD = /("next_cursor": ")([^"]+)(")/g;
const CURSOR_FLAG = /(--cursor )(\S+)/g;
/** A character repeated at length (a text at a size limit), shortened so a failure can be read. */
const LONG_RUN = /(.)\1{99,}/g;

/**
 * Replaces what a room made at random by a placeholder numbered in order of
 * first appearance (`<ho 3>`): both twins run the same cases in the same
 * order, so the same record gets the same placeholder on both, and two
 * records never share one. Times become `<time>`.
 */
class Normaliser {
  private readonly seen = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  constructor(private readonly dir: string) {}

  private placeholder(kind: string, value: string): string {
    let name = this.seen.get(value);
    if (name === undefined) {
      const n = (this.counts.get(kind) ?? 0) + 1;
      this.counts.set(kind, n);
      name = `<${kind} ${n}>`;
      this.seen.set(value, name);
    }
    return name;
  }

  text(text: string): string {
    return text
      .replaceAll(this.dir, '<dir>')
      .replace(CURSOR_FIELD, (_, before: string, cursor: string, after: string) =>
        [before, this.placeholder('cursor', cursor), after].join(''),
      )
      .replace(CURSOR_FLAG, (_, flag: string, cursor: string) => flag + this.placeholder('cursor', cursor))
      .replace(TOKEN, (token) => this.placeholder('token', token))
      .replace(ID, (id, kind: string) => this.placeholder(kind, id))
      .replace(UUID, (uuid) => this.placeholder('uuid', uuid))
      .replace(ISO_TIME, '<time>')
      .replace(LONG_RUN, (run) => `<${run[0]} × ${run.length}>`);
  }
}

export interface Twin {
  readonly dir: string;
  readonly file: string;
  readonly saved: Map<string, string>;
  readonly normaliser: Normaliser;
}

export interface TwinRooms {
  direct: Twin;
  served: Twin;
  room: ServedRoom;
  /** Runs cases one after the other: a state change takes the direct twin's writer's lock. */
  run(...cases: Case[]): Promise<void>;
  /** Runs reading cases all at once: they never take the lock. */
  together(...cases: Case[]): Promise<void>;
  /** Every record of each sidecar but the writer's lock, normalised (moments and token hashes too). */
  records(twin: Twin): unknown;
  /** Stops the room process: exit 0, nothing on its stderr. */
  stop(): Promise<void>;
}

/**
 * Two copies of the room `prepare` makes (with the engine, in this process,
 * on `notes.md` in a fresh directory), the second served by `ce serve`. When
 * the test ends (its own hook: tests run concurrently) the room process is
 * killed and the directories removed. `inputs` are files written into each
 * twin's directory.
 */
export async function twinRooms(
  { expect, onTestFinished }: Pick<TestContext, 'expect' | 'onTestFinished'>,
  prepare: (file: string) => void,
  inputs: Record<string, string> = {},
): Promise<TwinRooms> {
  const top = tempDir();
  const origin = path.join(top, 'origin', 'notes.md');
  mkdirSync(path.dirname(origin));
  prepare(origin);
  const [direct, served] = ['direct', 'served'].map((name): Twin => {
    const dir = path.join(top, name);
    mkdirSync(dir);
    const file = path.join(dir, 'notes.md');
    for (const suffix of ['', '.commonroom.db', '.commonroom.db-wal', '.commonroom.db-shm']) {
      if (existsSync(`${origin}${suffix}`)) copyFileSync(`${origin}${suffix}`, `${file}${suffix}`);
    }
    for (const [input, text] of Object.entries(inputs)) writeFileSync(path.join(dir, input), text);
    return { dir, file, saved: new Map(), normaliser: new Normaliser(dir) };
  }) as [Twin, Twin];
  const room = await ceServe(served.file);
  onTestFinished(async () => {
    room.kill();
    await room.exited;
    rmSync(top, { recursive: true, force: true });
  });

  const start = (c: Case): Promise<[CeRun, CeRun]> => {
    // In this process, but for a case run from the twin's own directory: ce's sources, not a node start each.
    const runOn = (twin: Twin) => (c.inDir ? ce(filled(c, twin), { cwd: twin.dir }) : ceHere(filled(c, twin)));
    return Promise.all([runOn(direct), runOn(served)]);
  };

  function check(c: Case, [onDirect, onServed]: [CeRun, CeRun]): void {
    const shown = `ce ${argsOf(c).join(' ')}`;
    const said = [normalised(onDirect, direct), normalised(onServed, served)];
    // Soft: one run lists every difference.
    expect.soft(outcomeOf(onDirect), shown).toBe(c.expect);
    if (c.served) {
      expect.soft(outcomeOf(onServed), `${shown} (served)`).toBe(c.served.code);
      expect.soft(messageOf(onServed), `${shown} (served)`).toMatch(c.served.message);
    } else {
      expect.soft(said[1], `${shown}: the served twin answers as the direct one`).toEqual(said[0]);
    }
    const command = commandOf(c.args);
    // A usage error is ce's own; a refusal is the room's (exit 1).
    if (OPERATION_OF.has(command) && c.expect !== 'usage') {
      const seen = coverage.get(command) ?? { ok: 0, refused: 0 };
      seen[c.expect === 'ok' ? 'ok' : 'refused']++;
      coverage.set(command, seen);
    }
    if (c.save && onDirect.code === 0 && onServed.code === 0) {
      for (const [name, pick] of Object.entries(c.save)) {
        direct.saved.set(name, pick(JSON.parse(onDirect.stdout)));
        served.saved.set(name, pick(JSON.parse(onServed.stdout)));
      }
    }
  }

  return {
    direct,
    served,
    room,
    async run(...cases) {
      for (const c of cases) check(c, await start(c));
    },
    async together(...cases) {
      for (const c of cases) expect(OPERATION_OF.get(commandOf(c.args))?.changes, c.args.join(' ')).toBe(false);
      const runs = await Promise.all(cases.map(start));
      // Checked in the order given, so both twins number their placeholders alike.
      cases.forEach((c, i) => check(c, runs[i]!));
    },
    records: (twin) => recordsOf(twin),
    async stop() {
      expect(await room.stop()).toBe(0);
      expect(room.stderr()).toBe('');
    },
  };
}

const argsOf = (c: Case): string[] => [...c.args, ...(c.plain ? [] : ['--json'])];

/** The case's words as this twin has them. */
function filled(c: Case, twin: Twin): string[] {
  return argsOf(c).map((arg) =>
    arg.replace(/\{(\w+)\}/g, (whole, name: string) => {
      if (name === 'file') return c.inDir ? 'notes.md' : twin.file;
      if (name === 'dir') return twin.dir;
      const value = twin.saved.get(name);
      if (value === undefined) throw new Error(`no value saved as ${name} for ${whole}`);
      return value;
    }),
  );
}

const normalised = (run: CeRun, twin: Twin) => ({
  code: run.code,
  stdout: twin.normaliser.text(run.stdout),
  stderr: twin.normaliser.text(run.stderr),
});

const messageOf = (run: CeRun): string => {
  try {
    return (JSON.parse(run.stderr) as { error: { message: string } }).error.message;
  } catch {
    return run.stderr;
  }
};

/** `ok`, `usage` (exit 2), the code of a refusal (exit 1), or what else happened. */
function outcomeOf(run: CeRun): Outcome {
  if (run.code === 0 && run.stderr === '') return 'ok';
  if (run.code === 2 && run.stdout === '') return 'usage';
  if (run.code === 1 && run.stdout === '') {
    try {
      return (JSON.parse(run.stderr) as { error: { code: string } }).error.code;
    } catch {
      return `exit 1 with ${run.stderr}`;
    }
  }
  return `exit ${run.code} with stdout ${run.stdout.slice(0, 200)} and stderr ${run.stderr}`;
}

/** The sidecar's records, read-only, each moment (`at`, `*_at`) and token hash replaced. */
function recordsOf(twin: Twin): unknown {
  const room = openRoom(twin.file, { mode: 'read' });
  try {
    const { writer_lock: _lock, ...tables } = dumpDatabase(room);
    const blurred = Object.fromEntries(
      Object.entries(tables).map(([table, rows]) => [
        table,
        rows.map((row) =>
          Object.fromEntries(
            Object.entries(row as Record<string, unknown>).map(([column, value]) => [
              column,
              column === 'token_hash' ? '<hash>' : /(^|_)at$/.test(column) && value !== null ? '<moment>' : value,
            ]),
          ),
        ),
      ]),
    );
    return JSON.parse(twin.normaliser.text(JSON.stringify(blurred)));
  } finally {
    room.close();
  }
}

/** The twin's file, byte for byte. */
export const bytesOf = (twin: Twin): Buffer => readFileSync(twin.file);
