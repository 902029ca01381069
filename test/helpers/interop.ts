// What the interop tests share, whichever transport carries the official
// client (HTTP, or stdio through ce bridge): tool calls that must succeed,
// the listen filter and acknowledgement of ext-tasks, and the whole handoff
// the room is for, driven from its owner, assignee and approver.
import type { CallToolResult, Client, JSONRPCMessage, SubscriptionFilter } from '@modelcontextprotocol/client';
import {
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  UpdateTaskResultV2Schema,
  contributeTaskFilterV2,
  readAcceptedTaskIdsV2,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { expect } from 'vitest';
import type { HandoffTaskOutput } from '../../generated/types.js';
import { resultOf, type RawDispatcher } from './mcp-clients.js';

export const HANDOFF_ID_META = 'commonroom/handoff_id';

/** A tool call that must succeed; its structuredContent, which its first text block repeats as JSON. */
export async function call<T = any>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(
    result.isError ?? false,
    `${name} refused: ${JSON.stringify(result.structuredContent ?? result.content)}`,
  ).toBe(false);
  expect(result.structuredContent, `${name} carries its object in structuredContent`).toBeDefined();
  const text = result.content.find((block) => block.type === 'text');
  expect(text && 'text' in text ? JSON.parse(text.text) : undefined).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

/** The assignee's own CallToolResult. */
export const bobsResult = (text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent: { verdict: 'ok', notes: [text] },
});

/**
 * The listen filter for task ids (and more). contributeTaskFilterV2 builds
 * the listen params ({notifications: {taskIds}}); Client.listen takes the inner filter.
 */
export const taskFilter = (taskIds: string[], more: SubscriptionFilter = {}): SubscriptionFilter =>
  ({ ...more, ...contributeTaskFilterV2({}, taskIds).notifications }) as SubscriptionFilter;

/**
 * The task ids a listen's acknowledgement honoured, read from the raw frame
 * (the Client's honoredFilter drops keys its core schema does not know, taskIds among them).
 */
export function acknowledgedTaskIds(inbound: JSONRPCMessage[]): string[] | undefined {
  const ack = inbound.find(
    (m): m is Extract<JSONRPCMessage, { method: string }> =>
      'method' in m && m.method === 'notifications/subscriptions/acknowledged',
  );
  return ack ? [...readAcceptedTaskIdsV2(ack.params)] : undefined;
}

export interface HandoffCast {
  /** The owner (alice), on a raw request path that declares the Tasks extension. */
  owner: RawDispatcher;
  /** The assignee, bob. */
  assignee: Client;
  /** Who approves the result, and that participant's name. */
  approver: Client;
  approverName: string;
}

/**
 * A whole handoff: the owner creates it as a task, the assignee accepts and
 * asks for input, the owner answers with tasks/update, the assignee
 * completes, the owner polls the task to completed (the result the
 * assignee's own), the approver approves. Returns what a test may check more of.
 */
export async function wholeHandoff({ owner, assignee, approver, approverName }: HandoffCast) {
  // The owner creates through the Tasks extension path: a CreateTaskResult.
  const createdResult = resultOf(
    await owner.request('tools/call', {
      name: 'handoff_create',
      arguments: { summary: 'Check the numbers in section 2', assignee: 'bob' },
    }),
  );
  const created = CreateTaskResultV2Schema.parse(createdResult);
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  const taskId = created.taskId;
  const handoffId = (createdResult._meta as Record<string, unknown> | undefined)?.[HANDOFF_ID_META] as string;
  expect(handoffId).toEqual(expect.any(String));

  // The assignee accepts (the task stays working) and asks the owner for input.
  const accepted = await call<HandoffTaskOutput>(assignee, 'handoff_accept', { handoff_id: handoffId });
  expect(accepted.handoff).toMatchObject({ status: 'accepted', assignee: 'bob', task_id: taskId });
  expect(accepted.task).toMatchObject({ taskId, status: 'working' });
  const asked = await call<{ key: string; task: { status: string } }>(assignee, 'handoff_request_input', {
    handoff_id: handoffId,
    message: 'Which year should the totals cover?',
  });
  expect(asked.task.status).toBe('input_required');

  // The owner sees the request in tasks/get and answers with tasks/update.
  const waiting = GetTaskResultV2Schema.parse(resultOf(await owner.request('tasks/get', { taskId })));
  if (waiting.status !== 'input_required') throw new Error(`expected input_required, got ${waiting.status}`);
  expect(waiting.inputRequests[asked.key]).toMatchObject({
    method: 'elicitation/create',
    params: { mode: 'form', message: 'Which year should the totals cover?' },
  });
  const updated = resultOf(
    await owner.request('tasks/update', {
      taskId,
      inputResponses: { [asked.key]: { action: 'accept', content: { answer: '2025' } } },
    }),
  );
  expect(UpdateTaskResultV2Schema.parse(updated)).toMatchObject({ resultType: 'complete' });

  // The assignee reads the answer with handoff_get; the task is working again.
  const seen = await call<HandoffTaskOutput>(assignee, 'handoff_get', { handoff_id: handoffId });
  expect(seen.handoff.inputs).toEqual([
    expect.objectContaining({
      key: asked.key,
      response: { action: 'accept', content: { answer: '2025' } },
      answered_by: 'alice',
    }),
  ]);
  expect(seen.task).toMatchObject({ status: 'working' });

  // The assignee completes with a CallToolResult; the owner polls tasks/get to completed: that result.
  const result = bobsResult('Totals checked for 2025.');
  const completed = await call(assignee, 'handoff_complete', { handoff_id: handoffId, result });
  expect(completed).toMatchObject({ handoff: { status: 'result_ready' }, already_completed: false });
  const done = GetTaskResultV2Schema.parse(resultOf(await owner.request('tasks/get', { taskId })));
  if (done.status !== 'completed') throw new Error(`expected completed, got ${done.status}`);
  expect(done.result).toMatchObject({ ...result, resultType: 'complete' });

  // The approver decides; the decision is on the handoff.
  const approved = await call(approver, 'handoff_approve', { handoff_id: handoffId, note: 'Looks right' });
  expect(approved.handoff).toMatchObject({
    status: 'approved',
    decision: expect.objectContaining({ decision: 'approved', by: approverName, note: 'Looks right' }),
  });
  return { taskId, handoffId, done };
}
