// How ce answers. A result goes to stdout: the engine's result object as one
// JSON document with --json, plain text for people otherwise. A failure goes
// to stderr as one line (or one JSON line with --json), and sets the exit code.
import { CommanderError } from 'commander';
import { isDomainError } from '../errors.js';
import { terminal } from './terminal.js';

export interface JsonOption {
  json?: boolean;
}

/** A failure of the command itself, not a refusal by the room (a port taken): its own code, exit 1. */
export class CommandFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CommandFailure';
  }
}

/** ce's exit codes (README, and docs/reference.md "The `ce` command line"): 0 done; 1 refused by the room (or an unexpected error); 2 a usage error; 3 the room not reached. */
const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

export function answer<T>(options: JsonOption, result: T, plain: (result: T) => string): void {
  const text = options.json ? JSON.stringify(result, null, 2) : plain(result);
  terminal().out(text.endsWith('\n') ? text : `${text}\n`);
}

/** Reports a failure on stderr and returns the exit code. Never a stack trace. */
export function reportFailure(error: unknown, json: boolean): number {
  if (error instanceof CommanderError) {
    // --help and --version end here with exit code 0; a missing subcommand
    // ends here after commander printed the help to stderr.
    if (error.exitCode === 0) return EXIT.ok;
    if (error.code !== 'commander.help') {
      // "option '--limit <n>' argument 'abc' is invalid. --limit must be ...": the parser's words name the flag.
      const message = error.message.replace(/^error: /, '').replace(/^option '[^']*' argument '.*' is invalid\. /s, '');
      fail(json, { code: 'usage', message });
    }
    return EXIT.usage;
  }
  if (isDomainError(error)) {
    fail(json, error.toJSON());
    // Nothing reached the room (nothing listens, no route, a certificate not trusted): not its refusal.
    return error.details?.reached === false ? EXIT.unreachable : EXIT.refused;
  }
  if (error instanceof CommandFailure) {
    fail(json, { code: error.code, message: error.message });
    return EXIT.refused;
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') {
    // A copy ce makes itself (ce backup, ce restore) on a full disk: the disk's refusal, not ce's surprise.
    fail(json, {
      code: 'disk_full',
      message: `the disk is full (${message}): the command did not finish; free some space and run it again`,
    });
    return EXIT.refused;
  }
  fail(json, { code: 'unexpected', message: `unexpected error: ${message}` });
  return EXIT.refused;
}

function fail(json: boolean, error: { code: string; message: string; details?: unknown }): void {
  const line = json
    ? JSON.stringify({ error: { ...error, message: oneLine(error.message) } })
    : `ce: ${oneLine(error.message)}`;
  terminal().err(`${line}\n`);
}

const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ').trim();

// Plain text helpers.

export const orDash = (value: string | number | null | undefined): string =>
  value === null || value === undefined || value === '' ? '-' : String(value);

/** The first line of a text, cut to `max` characters: a list shows a glimpse, `ce handoff` the whole. */
export function glimpse(text: string | null, max = 60): string {
  if (text === null) return '-';
  const first = text.split('\n', 1)[0]!;
  return first.length > max || first !== text ? `${first.slice(0, max - 1)}…` : first;
}

/** Rows under a header, each column as wide as its widest cell. */
export function columns(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  return all
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

/** One record as `key: value` lines; a multi-line value continues indented under its first line. */
export function fields(pairs: [string, string | number | null | undefined][]): string {
  const width = Math.max(...pairs.map(([key]) => key.length)) + 2;
  return pairs
    .map(
      ([key, value]) =>
        `${`${key}:`.padEnd(width)}${orDash(value)
          .split('\n')
          .join(`\n${' '.repeat(width)}`)}`,
    )
    .join('\n');
}
