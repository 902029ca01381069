// ce serve's log on pino: a line per request (src/http/observe/request-log.ts),
// per state change (change-log.ts) and per lifecycle step (start, migration,
// stop, a fail-stop), warnings included. On stderr, since stdout holds ce
// serve --json's one line; JSON lines, or pino-pretty's lines for a person
// (the default when stderr is a terminal). With --log-level silent only
// warnings and a fail-stop are said, as plain `ce:` lines.
import { InvalidArgumentError, type Command } from 'commander';
import type { RoomLogger } from '../http/observe/request-log.js';
import type { Destination } from './log-lines.js';

const LEVELS = ['silent', 'error', 'warn', 'info', 'debug'] as const;
const FORMATS = ['json', 'pretty'] as const;

export interface LogOptions {
  logLevel: (typeof LEVELS)[number];
  logFormat?: (typeof FORMATS)[number];
  metrics?: boolean;
}

/** --log-level silent: no log, but a warning or a fail-stop is still said, plainly. */
export const PLAIN_LOG: RoomLogger = {
  logsInfo: false,
  info: () => {},
  warn: (_fields, message) => process.stderr.write(`ce: ${message}\n`),
  error: (_fields, message) => process.stderr.write(`ce: ${message}\n`),
  infoLine: () => {},
};

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
      `${LEVELS.join(', ')}: a line per request and per change at info`,
      oneOf('--log-level', LEVELS),
      'info',
    )
    .option(
      '--log-format <format>',
      'json (a JSON line each), or pretty (for a person; the default on a terminal)',
      oneOf('--log-format', FORMATS),
    )
    .option('--metrics', 'serve Prometheus metrics at GET /metrics, to a session with admin (off: 404)');

/** The room's logger for these flags. pino is loaded only here: ce's other commands never need it. */
export async function serveLog({ logLevel, logFormat }: LogOptions): Promise<RoomLogger> {
  if (logLevel === 'silent') return PLAIN_LOG;
  // Loaded at once, not one after the other: a start waits for their files once.
  const [{ default: pino }, { pinoRoomLogger }, { batchedLines }] = await Promise.all([
    import('pino'),
    import('./pino-room-logger.js'),
    import('./log-lines.js'),
  ]);
  const format = logFormat ?? (process.stderr.isTTY ? 'pretty' : 'json');
  const stream =
    format === 'pretty'
      ? (await import('pino-pretty')).default({ destination: 2, sync: true, colorize: process.stderr.isTTY === true })
      : batchedLines(
          // In contentMode 'buffer' sonic-boom writes bytes, though its types name only strings.
          pino.destination({ dest: 2, sync: true, contentMode: 'buffer' }) as unknown as Destination,
        );
  // Time as pino writes it by default, milliseconds since 1970 (an ISO string cost a fifth of a line), and the
  // pid but not the host name, which the journal has.
  return pinoRoomLogger(pino({ level: logLevel, base: { pid: process.pid } }, stream));
}
