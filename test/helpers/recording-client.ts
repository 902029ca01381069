// A participant's client for a served room, over both doors (MCP and REST),
// that says what became of each request: acknowledged (a success whose
// answer was fully received), refused (a refusal fully received: the room
// wrote nothing; a 4xx, or a 503 `unavailable` when it could not write the
// file), lost (no complete answer: it may or may not have
// committed) or unexpected (an answer the room should never give). With a
// ledger, every outcome is recorded there, marked with whether the room had
// already been killed when it settled.
import { rpcRequest } from './server.js';

/** A JSON value as read from the wire. */
export type Wire = any;

export type Door = 'mcp' | 'rest';

export type Outcome =
  /** MCP: the JSON-RPC `result`; REST: the body. */
  | { kind: 'acknowledged'; status: number; body: Wire }
  /** The room's error code (MCP: `structuredContent.error.code` or `error.data.code`; REST: the problem's `code`). */
  | { kind: 'refused'; status: number; code: string; body: Wire }
  | { kind: 'lost'; error: string }
  | { kind: 'unexpected'; status: number; text: string };

export interface LedgerEntry {
  participant: string;
  door: Door;
  /** `tools/call handoff_create`, `POST /handoffs`, `GET /handoffs/{id}`... */
  request: string;
  outcome: Outcome;
  /** The room had been sent SIGKILL when the outcome settled. */
  afterKill: boolean;
}

/** The outcomes of one round's requests. */
export class Ledger {
  readonly entries: LedgerEntry[] = [];
  /** Set when the room is sent SIGKILL. */
  killed = false;

  record(entry: Omit<LedgerEntry, 'afterKill'>): void {
    this.entries.push({ ...entry, afterKill: this.killed });
  }

  /** Per request, how many of each outcome: `{"POST /handoffs": {acknowledged: 12, lost: 1}}`. */
  counts(): Record<string, Partial<Record<Outcome['kind'], number>>> {
    const counts: Record<string, Partial<Record<Outcome['kind'], number>>> = {};
    for (const { request, outcome } of this.entries) {
      const forRequest = (counts[request] ??= {});
      forRequest[outcome.kind] = (forRequest[outcome.kind] ?? 0) + 1;
    }
    return counts;
  }
}

export interface RoomUrls {
  mcpUrl: string;
  restUrl: string;
}

export interface RoomClient {
  readonly participant: string;
  /** One MCP request; `tasks` declares the Tasks extension (tasks/* need it). */
  mcp(method: string, params?: Record<string, unknown>, options?: { tasks?: boolean }): Promise<Outcome>;
  /** One REST request; `path` is under /workspace. */
  rest(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Outcome>;
}

/** Long enough for a loaded machine; a request that outlives it counts as lost. */
const REQUEST_TIMEOUT_MS = 20_000;

export function roomClient(urls: RoomUrls, participant: string, token: string, ledger?: Ledger): RoomClient {
  let nextId = 1;
  const settle = (door: Door, request: string, outcome: Outcome): Outcome => {
    ledger?.record({ participant, door, request, outcome });
    return outcome;
  };
  return {
    participant,
    async mcp(method, params = {}, options = {}) {
      const { url, init } = rpcRequest(urls.mcpUrl, method, params, {
        token,
        tasks: options.tasks ?? false,
        id: nextId++,
      });
      const request = method === 'tools/call' ? `${method} ${String(params.name)}` : method;
      const answer = await send(url, init);
      return settle('mcp', request, 'lost' in answer ? { kind: 'lost', error: answer.lost } : mcpOutcome(answer));
    },
    async rest(method, path, body) {
      const init: RequestInit = {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      };
      const request = `${method} ${path.split('?')[0]!.replace(/\/[a-z]{2}_[\w-]{8,}/g, '/{id}')}`;
      const answer = await send(`${urls.restUrl}${path}`, init);
      return settle('rest', request, 'lost' in answer ? { kind: 'lost', error: answer.lost } : restOutcome(answer));
    },
  };
}

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** The whole answer, or why there is none: a refused connection, a reset, a body cut short. */
async function send(url: string, init: RequestInit): Promise<Answer | { lost: string }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    // The answer counts only once its body has arrived in full.
    const text = await response.text();
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', text };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { lost: cause?.code ?? cause?.message ?? String(error) };
  }
}

function parse(text: string): Wire {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function mcpOutcome(answer: Answer): Outcome {
  const body = parse(answer.text);
  const unexpected: Outcome = { kind: 'unexpected', status: answer.status, text: answer.text };
  if (typeof body !== 'object' || body === null || body.jsonrpc !== '2.0') return unexpected;
  // The 5xx that are refusals: the disk refused the change (data.reason says why), and nothing was kept.
  if (answer.status >= 500 && typeof body.error?.data?.reason !== 'string') return unexpected;
  if (answer.status === 200 && typeof body.result === 'object' && body.result !== null) {
    if (body.result.isError !== true) return { kind: 'acknowledged', status: 200, body: body.result };
    const code = body.result.structuredContent?.error?.code;
    return typeof code === 'string' ? { kind: 'refused', status: 200, code, body: body.result } : unexpected;
  }
  if (typeof body.error === 'object' && body.error !== null) {
    return { kind: 'refused', status: answer.status, code: body.error.data?.code ?? `${body.error.code}`, body };
  }
  return unexpected;
}

function restOutcome(answer: Answer): Outcome {
  const body = parse(answer.text);
  if (answer.status >= 200 && answer.status < 300 && /^application\/json\b/.test(answer.contentType)) {
    if (body !== undefined) return { kind: 'acknowledged', status: answer.status, body };
  }
  if (/^application\/problem\+json\b/.test(answer.contentType) && typeof body?.code === 'string') {
    // The 5xx that are refusals: the room could not write (503), or the disk is full (507), and wrote nothing.
    const refused =
      (answer.status >= 400 && answer.status < 500) ||
      (answer.status === 503 && body.code === 'unavailable') ||
      (answer.status === 507 && body.code === 'disk_full');
    if (refused) return { kind: 'refused', status: answer.status, code: body.code, body };
  }
  return { kind: 'unexpected', status: answer.status, text: answer.text };
}
