// Limits of the handoff design note that are not a property of one input
// (summary, constraints and result sizes live in schemas/).

/** Tasks in working or input_required, per room. */
export const MAX_ACTIVE_TASKS = 32;
/**
 * Open proposals of one participant. Each holds a whole text (up to
 * 512 KiB) and is read by every page that opens the room: without a bound,
 * one writer's 200 proposals made each page load read 200 MB.
 */
export const MAX_OPEN_PROPOSALS = 32;
/** Newest events kept in the sidecar ring. */
export const EVENT_RING_SIZE = 2000;
/**
 * Events the ring may hold beyond EVENT_RING_SIZE before a commit prunes it
 * back: one prune for a couple of hundred events, not one a commit. Each
 * prune rewrites the rows of the handoffs whose events it drops, and the
 * pages they sit on; pruned at every commit, a served room made 6 to 7 %
 * fewer durable writes a second (BENCHMARKS.md).
 */
export const EVENT_RING_SLACK = 200;
/** A task's time to live: 24 hours. */
export const TASK_TTL_MS = 24 * 60 * 60 * 1000;
/** How often a client should poll tasks/get. */
export const TASK_POLL_INTERVAL_MS = 5000;
/** The task record's schema version. */
export const TASK_SCHEMA_VERSION = 1;
/** The only operation a task records. */
export const TASK_OPERATION = 'handoff.execute';
/** JSON-RPC code of the error an expired task carries (as the SDKs' request timeout). */
export const TASK_EXPIRED_CODE = -32001;
/** Progress reports of one task are committed at most this often: a chatty worker cannot flood the event ring. */
export const PROGRESS_INTERVAL_MS = 1000;
/** How deep an input's objects and arrays may nest: the one limit of every JSON the room takes. */
export { MAX_JSON_DEPTH as MAX_INPUT_DEPTH } from '../outside-json.js';
