// What both benches of ce serve do each round: a load run against an
// origin, a read rate that must be all 2xx, one MCP request, two runs in
// alternating order, and the clean-up after a write run.
import type { LoadConfig, LoadResult, LoadScenario } from './load-worker.js';
import { mcpPost, toolCall } from './mcp.js';
import { program, runToEnd } from './processes.js';
import type { BenchRoom } from './rooms.js';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const READ_CONNECTIONS = 10;
export const WRITE_CONNECTIONS = 16;

export const load = (origin: string, scenario: LoadScenario, connections = READ_CONNECTIONS, seconds = SECONDS) =>
  runToEnd<LoadResult>('load', [
    program('load-worker'),
    JSON.stringify({ origin, seconds, connections, scenario } satisfies LoadConfig),
  ]);

/** A read load that must be answered with 2xx only: a refused request measures nothing. */
export async function readRate(
  origin: string,
  scenario: LoadScenario,
  what: string,
  seconds = SECONDS,
): Promise<number> {
  const result = await load(origin, scenario, READ_CONNECTIONS, seconds);
  if (result.non2xx > 0 || result.errors > 0 || result.total === 0) {
    throw new Error(`${what}: ${result.non2xx} non-2xx answers, ${result.errors} errors of ${result.total}`);
  }
  return result.perSecond;
}

export async function rpc(origin: string, request: { headers: Record<string, string>; body: string }): Promise<any> {
  const response = await fetch(`${origin}/mcp`, { method: 'POST', headers: request.headers, body: request.body });
  const body = (await response.json()) as any;
  if (response.status !== 200 || body.error || body.result?.isError) {
    throw new Error(`MCP request refused (${response.status}): ${JSON.stringify(body)}`);
  }
  return body.result;
}

export const originOf = (url: string): string => new URL(url).origin;

/** Runs both, the first one first in even rounds and the second first in odd ones: drift favours neither. */
export async function inTurn<A, B>(round: number, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
  if (round % 2 === 0) {
    const first = await a();
    return [first, await b()];
  }
  const second = await b();
  return [await a(), second];
}
/** Cancels alice's open handoffs a write round left between create and cancel (at most 32 may be active). */
export async function cancelLeftovers(origin: string, room: BenchRoom): Promise<void> {
  for (;;) {
    const { structuredContent } = await rpc(
      origin,
      toolCall(room.alice, 'handoff_list', { status: 'open', limit: 100 }),
    );
    const open = (structuredContent.handoffs as { task_id: string }[]).filter((h) => h.task_id !== room.taskId);
    if (open.length === 0) return;
    for (const handoff of open) {
      await rpc(
        origin,
        mcpPost('tasks/cancel', { taskId: handoff.task_id }, { token: room.alice, name: handoff.task_id, tasks: true }),
      );
    }
  }
}
