// The room's logger (RoomLogger) on a pino logger, for ce serve and the
// test suite's in-process rooms. Imported only once a log is wanted:
// loading pino costs every other ce command its start-up time.
import pino, { type Logger } from 'pino';
import type { RoomLogger } from '../http/observe/request-log.js';

export function pinoRoomLogger(logger: Logger): RoomLogger {
  // pino's own pieces of a line (its level, its time, its bindings, its stream; pino.symbols is its API for
  // this), so that infoLine's lines are pino's lines. Read once: the room never changes the logger's bindings,
  // and looking them up on the logger for every line cost a seventh of the line (measured alone).
  const own = logger as unknown as Record<symbol, any>;
  const { lsCacheSym, timeSym, chindingsSym, streamSym, endSym } = pino.symbols;
  const start: string = own[lsCacheSym][logger.levels.values.info!];
  const time: () => string = own[timeSym];
  const bindings: string = own[chindingsSym];
  const stream: { write(line: string): unknown } = own[streamSym];
  const end: string = own[endSym];
  let message = '';
  let tail = '';
  return {
    logsInfo: logger.isLevelEnabled('info'),
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
    error: (fields, message) => logger.error(fields, message),
    infoLine: (fieldsJson, lineMessage) => {
      if (lineMessage !== message) {
        message = lineMessage;
        tail = `,"msg":${JSON.stringify(message)}${end}`;
      }
      stream.write(`${start}${time()}${bindings},${fieldsJson}${tail}`);
    },
  };
}
