// What every answer of the room's node:http doors (POST /mcp, REST's
// operations) has around it, as the Koa app's first middlewares give its
// own: the headers every answer carries, its request id, and once it has
// answered, one report to the request log and the metrics.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestIdOf } from './middleware/request-id.js';
import { openAnswer } from './send.js';
import type { RequestObserver } from './observe/observe-requests.js';
import { requestStarted, secondsSince, type RequestFacts } from './observe/request-facts.js';

/**
 * Headers every answer carries, on both the node doors and Koa's: never
 * sniffed as another type, and never stored by a cache (answers hold tokens
 * and room content; the page's own files say otherwise for themselves).
 */
export const BASE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
};
const OPENING_HEADERS = Object.entries(BASE_HEADERS).flat();

/** A header's first value, '' when there is none (node gives a repeated header as an array). */
export const single = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? value[0]! : (value ?? '');

/** What a finished request was, once its status and its time are known. */
export type FactsOf = (outcome: { status: number; seconds: number }) => RequestFacts;

export interface Observer {
  /** Told of each request once it is answered: the request log and the metrics. */
  observe: RequestObserver | null;
  /** Where unexpected errors are logged in full (a failure to observe too). */
  log: (message: string) => void;
}

/** Answers `req` with `answer` (`what` names it in a log line), then tells the observer what it was. */
export function answerObserved(
  req: IncomingMessage,
  res: ServerResponse,
  { observe, log }: Observer,
  what: string,
  answer: () => Promise<FactsOf>,
): void {
  const started = requestStarted();
  const id = requestIdOf(single(req.headers['x-request-id']));
  openAnswer(res, [...OPENING_HEADERS, 'X-Request-Id', id]);
  void answer().then((factsOf) => {
    if (observe === null) return;
    try {
      observe(id, factsOf({ status: res.statusCode, seconds: secondsSince(started) }));
    } catch (error) {
      log(`ce: observing ${what} failed: ${String(error)}`);
    }
  });
}
