// What ce serve does when its disk refuses it: says so in the log when
// commits begin to fail and when they succeed again (a full disk answers
// each write 507, which the request lines alone left at info, unseen at
// --log-level warn), and stops the process after a failed fsync.
import type { Room } from '../engine/index.js';
import type { RoomLogger } from '../http/observe/request-log.js';
import type { RoomServer } from '../http/server.js';

/** The exit code of a room that stopped because its disk failed a write. */
export const EXIT_DISK_FAILED = 70;
/** How long answers already decided (the failure, to those that waited) have to leave before the process ends. */
const LAST_WORDS_MS = 500;

export function watchTheDisk(room: Room, http: RoomServer, logger: RoomLogger): void {
  const verdicts = room.commits.verdicts;
  verdicts.onHealthChange((failure) => {
    if (failure === null) logger.info({}, 'the disk takes the room’s writes again');
    // A failed fsync says its own line, as the room stops (below).
    else if (!verdicts.broken) {
      logger.warn({}, `the disk refused a commit (${failure}); writes are refused until one succeeds, reads go on`);
    }
  });
  stopOnFatalDiskError(room, http, logger);
}

/**
 * After a failed fsync the kernel may have dropped what it was to write:
 * the process cannot trust what it would read back (PostgreSQL's rule since
 * 2018). Every waiting answer already carries the failure and every write is
 * refused; the room says so in one line, stops taking requests, lets the
 * answers leave, and exits non-zero, so that a supervisor starts it again
 * and the new process reads only what is on disk.
 */
function stopOnFatalDiskError(room: Room, http: RoomServer, logger: RoomLogger): void {
  room.commits.verdicts.onFatal((error) => {
    logger.error(
      { exit: EXIT_DISK_FAILED },
      `${error.message}; the room stops (exit ${EXIT_DISK_FAILED}) so that a restart reads only what is on disk`,
    );
    http.server.close(); // no new connections; the answers on their way leave first
    setTimeout(() => {
      const exit = () => process.exit(EXIT_DISK_FAILED);
      // Streams get their last word and the runtime file goes; a close that hangs does not hold the exit.
      void http.close().then(exit, exit);
      setTimeout(exit, LAST_WORDS_MS * 4).unref();
    }, LAST_WORDS_MS);
  });
}
