// ce serve's request log (src/http/middleware/request-log.ts) on pino: on
// stderr, since stdout holds ce serve --json's one line; JSON lines, or
// pino-pretty's lines for a person (the default when stderr is a terminal).
// JSON lines are written 4 KiB at a time (a sync write per request cost the
// cheapest routes a fifth of their rate); the rest is written when the room
// stops, so only a SIGKILL can lose the last few lines.
import { InvalidArgumentError, type Command } from 'commander';
import type { RequestLogger } from '../http/middleware/request-log.js';

const LEVELS = ['silent', 'error', 'warn', 'info', 'debug'] as const;
const FORMATS = ['json', 'pretty'] as const;

export interface LogOptions {
  logLevel: (typeof LEVELS)[number];
  logFormat?: (typeof FORMATS)[number];
}

const oneOf =
  <T extends string>(flag: string, choices: readonly T[]) =>
  (text: string): T => {
    if (!(choices as readonly string[]).includes(text)) {
      throw new InvalidArgumentError(`${flag} must be one of ${choices.join(', ')} (got ${JSON.stringify(text)})`);
    }
    return text as T;
  };

export const logFlags = (command: Command): Command =>
  command
    .option(
      '--log-level <level>',
      `${LEVELS.join(', ')}: a line per request at info`,
      oneOf('--log-level', LEVELS),
      'info',
    )
    .option(
      '--log-format <format>',
      'json (a JSON line each), or pretty (for a person; the default on a terminal)',
      oneOf('--log-format', FORMATS),
    );

/** The room's logger for these flags; none at all when silent. pino is loaded only here: ce's other commands never need it. */
export async function roomLogger({ logLevel, logFormat }: LogOptions): Promise<RequestLogger | undefined> {
  if (logLevel === 'silent') return undefined;
  const { default: pino } = await import('pino');
  const format = logFormat ?? (process.stderr.isTTY ? 'pretty' : 'json');
  const stream =
    format === 'pretty'
      ? (await import('pino-pretty')).default({ destination: 2, sync: true, colorize: process.stderr.isTTY === true })
      : pino.destination({ dest: 2, sync: false, minLength: 4096 });
  const logger = pino({ level: logLevel, timestamp: pino.stdTimeFunctions.isoTime }, stream);
  return { info: (fields, message) => logger.info(fields, message) };
}
