// Option values as the engine's input wants them. A value that cannot be
// what its flag takes (`--limit abc`) is a usage error naming the flag, exit 2;
// one of the right kind that the room refuses (`--limit 0`) is the engine's
// to name, exit 1.
import { InvalidArgumentError, type Command } from 'commander';

const shown = (text: string): string => JSON.stringify(text);

/** A whole number: `--limit 20`, `--after 12`. */
export const wholeNumber =
  (flag: string) =>
  (text: string): number => {
    if (!/^\d+$/.test(text)) throw new InvalidArgumentError(`${flag} must be a whole number (got ${shown(text)})`);
    return Number(text);
  };

/** A TCP port, 0 for any free one. */
export function portNumber(text: string): number {
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new InvalidArgumentError(
      `--port must be a port number from 0 to 65535, 0 for any free one (got ${shown(text)})`,
    );
  }
  return port;
}

const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** `90`, `90s`, `15m`, `12h` or `30d` as seconds. */
export function durationSeconds(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text);
  if (!match) {
    throw new InvalidArgumentError(
      `--expires-in must be a whole number of seconds, or N with s, m, h or d (15m, 12h, 30d) (got ${shown(text)})`,
    );
  }
  return Number(match[1]) * SECONDS[match[2] || 's']!;
}

/** `read,write` as `['read', 'write']`, each one of `known` (the schema's capabilities). */
export const capabilityList =
  (known: readonly string[]) =>
  (text: string): string[] => {
    const capabilities = list(text);
    const unknown = capabilities.find((capability) => !known.includes(capability));
    if (unknown !== undefined) {
      throw new InvalidArgumentError(`--caps: unknown capability ${shown(unknown)} (${known.join(', ')})`);
    }
    return capabilities;
  };

/** `a,b` as `['a', 'b']`. */
export const list = (text: string): string[] => text.split(',').map((item) => item.trim());

/** A subcommand with `--json`, which every command has. */
export const command = (parent: Command, name: string, description: string): Command =>
  parent.command(name).description(description).option('--json', 'print the result as one JSON document');

export const FILE_ARGUMENT = ['<file>', "the room's markdown file (its sidecar is <file>.commonroom.db)"] as const;
