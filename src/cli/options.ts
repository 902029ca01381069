// Option values as the engine's input wants them. Anything that does not
// parse is passed through as text, so the engine's validator refuses it and
// names the field ("limit must be integer").
import type { Command } from 'commander';

/** A number when the text is an integer; the text itself otherwise. */
export const integerOrText = (text: string): number | string => (/^-?\d+$/.test(text) ? Number(text) : text);

const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `90`, `90s`, `15m`, `12h` or `30d` as seconds; the text itself otherwise. */
export function durationSeconds(text: string): number | string {
  const match = /^(\d+)([smhd]?)$/.exec(text);
  return match ? Number(match[1]) * SECONDS[match[2] || 's']! : text;
}

/** `read,write` as `['read', 'write']`. */
export const list = (text: string): string[] => text.split(',').map((item) => item.trim());

/** A subcommand with `--json`, which every command has. */
export const command = (parent: Command, name: string, description: string): Command =>
  parent.command(name).description(description).option('--json', 'print the result as one JSON document');

export const FILE_ARGUMENT = ['<file>', "the room's markdown file (its sidecar is <file>.commonroom.db)"] as const;

/**
 * An engine input from a command's arguments and options, without the
 * options not given. Its type is asserted, not checked here: the engine
 * validates every input with the generated validators and names the field.
 */
export const engineInput = <T>(fields: Record<string, unknown>): T =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;
