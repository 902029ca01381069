// The whole suite's room logs, gathered for one check at its end (see
// test/global-setup.ts): every room a test serves logs at info, as JSON
// lines, into a file of CE_TEST_LOGS, and no minted token (a session's cr_…
// or the operator's op_…) may appear in any of them.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { pinoRoomLogger } from '../../src/cli/pino-room-logger.js';
import type { RoomLogger } from '../../src/http/observe/request-log.js';

/** What a minted token looks like: its prefix and 32 random bytes in base64url. */
export const MINTED_TOKEN = /\b(?:cr|op)_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/;

const logDir = (): string | null => process.env.CE_TEST_LOGS ?? null;

/** Appends `text` to this process's file of the suite's logs. */
export function keepSuiteLog(text: string): void {
  const dir = logDir();
  if (dir !== null && text !== '') appendFileSync(path.join(dir, `${process.pid}.log`), text);
}

/** A logger for an in-process room, as ce serve makes it: pino's JSON lines, here into the suite's logs. */
export function suiteLogger(): RoomLogger | undefined {
  const dir = logDir();
  if (dir === null) return undefined;
  const logger = pino(
    { level: 'info', timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ dest: path.join(dir, `${process.pid}.log`), sync: true, append: true }),
  );
  return pinoRoomLogger(logger);
}
