// Every result a client can receive from each tool, without and with the
// Tasks extension declared on the call: the immediate answer (a success or a
// refusal with isError) and, for a tool that answers with a task handle, what
// tasks/get gives for that task in each way it can end. Each is checked
// against the official schemas and against the outputSchema tools/list
// declares for the tool, so a client that validates (the SDK, the Inspector)
// accepts every one of them.
import type { ValidateFunction } from 'ajv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { taskTools, toolCatalog, toolOperations } from '../../generated/mcp.js';
import { operations } from '../../generated/operations.js';
import type { DomainErrorCode } from '../../generated/types.js';
import * as validators from '../../generated/validators.js';
import { limits, sweepExpiredTasks } from '../helpers/engine.js';
import { callTool, META_HANDOFF, taskRpc, textResult, type Who, type Wire } from '../helpers/mcp-wire.js';
import { expectOfficial, expectValidAgainst } from '../helpers/mcp-schemas.js';
import { rpc, startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;

beforeEach(async () => {
  s = await startTestServer();
});

afterEach(async () => {
  await s.stop();
});

/** The kinds of result each tool gives in a mode: what the test must have seen. */
function expectedKinds(name: string, tasks: boolean): string[] {
  if (!tasks || !(taskTools as readonly string[]).includes(name)) return ['refusal', 'success'];
  return [
    'refusal',
    // A replayed idempotency_key whose task row is gone answers at once.
    'success',
    'task cancelled',
    'task completed',
    'task completed with isError',
    'task expired',
    'task failed',
    'task handle',
  ];
}

describe.each([
  ['without the Tasks extension', false],
  ['with the Tasks extension', true],
])('every tool result %s', (_mode, tasks) => {
  it("conforms to the official schemas and the tool's declared outputSchema", async () => {
    const listed = await rpc(s.http.mcpUrl, 'tools/list', {}, { token: s.tokens.alice });
    const tools = new Map<string, Wire>(listed.body.result.tools.map((tool: Wire) => [tool.name, tool]));
    const seen = new Map<string, Set<string>>();
    const saw = (name: string, kind: string) => seen.set(name, (seen.get(name) ?? new Set()).add(kind));

    /** A CallToolResult against the official schema and what tools/list declares for the tool. */
    const expectConforming = (name: string, result: Wire, label: string) => {
      expectOfficial('core', 'CallToolResult', result, label);
      expect(result.resultType, label).toBe('complete');
      const { outputSchema } = tools.get(name);
      if (outputSchema) {
        expect(result.structuredContent, `${label} has structuredContent`).toBeDefined();
        expectValidAgainst(outputSchema, result.structuredContent, label);
      } else {
        // Undeclared, but still the operation's documented output, or ToolError when refused.
        const output = operations[toolOperations[name as keyof typeof toolOperations]].output;
        const validate = (
          result.isError ? validators.validateToolError : validators[`validate${output}` as keyof typeof validators]
        ) as ValidateFunction;
        expect(validate(result.structuredContent) ? [] : validate.errors, label).toEqual([]);
      }
      // The same answer as text, for clients that read only content.
      if (result.isError) expect(result.content[0].text, label).toBe(result.structuredContent.error.message);
      else expect(JSON.parse(result.content[0].text), label).toEqual(result.structuredContent);
    };

    /** The whole JSON-RPC response to one tools/call, made as this mode makes it. */
    const call = async (who: Who, name: string, args: Record<string, unknown>): Promise<Wire> => {
      const r = await callTool(s, who, name, args, { tasks });
      expect(r.status, `${name} by ${who}: ${r.text}`).toBe(200);
      expectOfficial('core', 'JSONRPCResultResponse', r.body, name);
      return r.body;
    };

    const succeed = async (who: Who, name: string, args: Record<string, unknown>): Promise<Wire> => {
      const response = await call(who, name, args);
      const result = response.result;
      if (result.resultType === 'task') {
        expect(tasks && (taskTools as readonly string[]).includes(name), `${name} answered a task handle`).toBe(true);
        expectOfficial('tasks', 'CreateTaskResult', result, `${name} task handle`);
        saw(name, 'task handle');
        return result;
      }
      expect(result.isError, `${name} by ${who}: ${JSON.stringify(result)}`).not.toBe(true);
      expectConforming(name, result, `${name} success`);
      expectOfficial('core', 'CallToolResultResponse', response, `${name} success`);
      saw(name, 'success');
      return result;
    };

    const refuse = async (who: Who, name: string, args: Record<string, unknown>, code: DomainErrorCode) => {
      const response = await call(who, name, args);
      const result = response.result;
      expect(result.isError, `${name} by ${who} should be refused: ${JSON.stringify(result)}`).toBe(true);
      expect(result.structuredContent.error.code, name).toBe(code);
      expectConforming(name, result, `${name} refusal (${code})`);
      expectOfficial('core', 'CallToolResultResponse', response, `${name} refusal`);
      saw(name, 'refusal');
    };

    /** handoff_create: the handoff and task ids, from the task handle or the immediate result. */
    const create = async (summary: string, extra: Record<string, unknown> = {}) => {
      const result = await succeed('alice', 'handoff_create', { summary, assignee: 'bob', ...extra });
      return result.resultType === 'task'
        ? { handoffId: result._meta[META_HANDOFF] as string, taskId: result.taskId as string }
        : {
            handoffId: result.structuredContent.handoff.handoff_id as string,
            taskId: result.structuredContent.handoff.task_id as string,
          };
    };

    /** tasks/get of a task made by handoff_create: the official shape for its status; returns the task. */
    const taskOutcome = async (taskId: string, status: string, official: string, kind: string): Promise<Wire> => {
      const r = await taskRpc(s, 'alice', 'tasks/get', { taskId });
      expectOfficial('tasks', 'GetTaskResult', r.body.result, kind);
      const { resultType: _r, _meta: _m, ...task } = r.body.result;
      expect(task.status, kind).toBe(status);
      expectOfficial('tasks', official, task, kind);
      if (task.result !== undefined) {
        // The assignee's own CallToolResult: it must conform to an outputSchema, were one declared.
        expectOfficial('core', 'CallToolResult', task.result, kind);
        const { outputSchema } = tools.get('handoff_create');
        if (outputSchema) expectValidAgainst(outputSchema, task.result.structuredContent, kind);
      }
      saw('handoff_create', kind);
      return task;
    };

    // A handoff through input and a structured result, then approved.
    const first = await create('Outline the guide', { idempotency_key: 'outline' });
    await refuse('carol', 'handoff_create', { summary: 'No write' }, 'forbidden');
    // Asked before the arguments are checked: the reader is not sent to mend what it may not send.
    await refuse('carol', 'handoff_create', { summary: '', colour: 'red' }, 'forbidden');
    await succeed('bob', 'handoff_accept', { handoff_id: first.handoffId });
    await refuse('bob', 'handoff_accept', { handoff_id: first.handoffId }, 'conflict');
    await succeed('bob', 'handoff_request_input', { handoff_id: first.handoffId, key: 'depth', message: 'How deep?' });
    await refuse('alice', 'handoff_request_input', { handoff_id: first.handoffId, message: 'Me?' }, 'forbidden');
    await taskRpc(s, 'alice', 'tasks/update', {
      taskId: first.taskId,
      inputResponses: { depth: { action: 'accept', content: { answer: 'shallow' } } },
    });
    // Answered by the handoff: the one open question, its key implied.
    await succeed('bob', 'handoff_request_input', { handoff_id: first.handoffId, message: 'How wide?' });
    await refuse(
      'bob',
      'handoff_answer',
      { handoff_id: first.handoffId, response: { action: 'decline' } },
      'forbidden',
    );
    await refuse(
      'alice',
      'handoff_answer',
      { handoff_id: first.handoffId, key: 'in_nope', response: { action: 'decline' } },
      'invalid_input',
    );
    await succeed('alice', 'handoff_answer', {
      handoff_id: first.handoffId,
      response: { action: 'accept', content: { answer: 'wide' } },
    });
    await succeed('bob', 'handoff_progress', { handoff_id: first.handoffId, message: 'Two of three sections' });
    await refuse('alice', 'handoff_progress', { handoff_id: first.handoffId, message: 'Mine?' }, 'forbidden');
    await succeed('bob', 'handoff_get', { handoff_id: first.handoffId });
    await succeed('bob', 'handoff_get', { task_id: first.taskId });
    await refuse('bob', 'handoff_get', { handoff_id: 'ho_none' }, 'not_found');
    const structured = {
      content: [{ type: 'text', text: 'Three sections' }],
      structuredContent: { sections: ['why', 'how', 'what'] },
    };
    await refuse('alice', 'handoff_complete', { handoff_id: first.handoffId, result: structured }, 'forbidden');
    await succeed('bob', 'handoff_complete', { handoff_id: first.handoffId, result: structured });
    if (tasks) {
      // The assignee's own result, as given: the room does not reshape it.
      const done = await taskOutcome(first.taskId, 'completed', 'CompletedTask', 'task completed');
      expect(done.result).toEqual({ ...structured, resultType: 'complete' });
    }
    await succeed('alice', 'handoff_events', { handoff_id: first.handoffId });
    await refuse('alice', 'handoff_events', { handoff_id: 'ho_none' }, 'not_found');
    await refuse('bob', 'handoff_approve', { handoff_id: first.handoffId }, 'forbidden');
    await succeed('dave', 'handoff_approve', { handoff_id: first.handoffId, note: 'Fine' });

    // A result that is itself a tool error, then rejected.
    const second = await create('Check the figures');
    await succeed('bob', 'handoff_accept', { handoff_id: second.handoffId });
    const toolError = { content: [{ type: 'text', text: 'The figures do not add up' }], isError: true };
    await succeed('bob', 'handoff_complete', { handoff_id: second.handoffId, result: toolError });
    if (tasks) {
      const done = await taskOutcome(second.taskId, 'completed', 'CompletedTask', 'task completed with isError');
      expect(done.result).toEqual({ ...toolError, resultType: 'complete' });
    }
    await refuse('bob', 'handoff_reject', { handoff_id: second.handoffId }, 'forbidden');
    await succeed('dave', 'handoff_reject', { handoff_id: second.handoffId, note: 'Not yet' });

    // Work that failed, and work cancelled by its owner.
    const third = await create('Translate the intro');
    await succeed('bob', 'handoff_accept', { handoff_id: third.handoffId });
    await succeed('bob', 'handoff_complete', {
      handoff_id: third.handoffId,
      error: { code: -32000, message: 'no translator available' },
    });
    if (tasks) {
      const failed = await taskOutcome(third.taskId, 'failed', 'FailedTask', 'task failed');
      expect(failed).not.toHaveProperty('result');
      expect(failed.error).toEqual({ code: -32000, message: 'no translator available' });
    }
    const fourth = await create('Never mind');
    await taskRpc(s, 'alice', 'tasks/cancel', { taskId: fourth.taskId });
    if (tasks) {
      const cancelled = await taskOutcome(fourth.taskId, 'cancelled', 'CancelledTask', 'task cancelled');
      expect(cancelled).not.toHaveProperty('result');
    }

    // Proposals: accepted, rejected (stale), withdrawn.
    const p1 = (
      await succeed('alice', 'workspace_propose', {
        base_revision: 1,
        content: '# The test room\n\nMore.\n',
        summary: 'A change',
      })
    ).structuredContent.proposal.proposal_id;
    await refuse(
      'carol',
      'workspace_propose',
      { base_revision: 1, content: '# Mine\n', summary: 'A change' },
      'forbidden',
    );
    const p2 = (
      await succeed('bob', 'workspace_propose', { base_revision: 1, content: '# Other\n', summary: 'A change' })
    ).structuredContent.proposal.proposal_id;
    await succeed('alice', 'proposal_get', { proposal_id: p1 });
    await refuse('alice', 'proposal_get', { proposal_id: 'pr_none' }, 'not_found');
    const accepted = await succeed('dave', 'proposal_approve', { proposal_id: p1 });
    // A stale base, and both changed the first line: a conflict, naming the current revision in its details.
    await refuse('dave', 'proposal_approve', { proposal_id: p2 }, 'conflict');
    await refuse('bob', 'proposal_reject', { proposal_id: p2 }, 'forbidden');
    await succeed('dave', 'proposal_reject', { proposal_id: p2, note: 'Stale' });
    const p3 = (
      await succeed('alice', 'workspace_propose', {
        base_revision: accepted.structuredContent.revision.number,
        diff: '--- a/room.md\n+++ b/room.md\n@@ -1,3 +1,3 @@\n # The test room\n \n-More.\n+Even more.\n',
        summary: 'A change',
      })
    ).structuredContent.proposal.proposal_id;
    await refuse('dave', 'proposal_withdraw', { proposal_id: p3 }, 'forbidden');
    await succeed('alice', 'proposal_withdraw', { proposal_id: p3 });
    await succeed('carol', 'workspace_history', {});
    await refuse('carol', 'workspace_history', { limit: 0 }, 'invalid_input');
    await succeed('carol', 'workspace_read', {});
    await refuse('carol', 'workspace_read', { revision: 1 }, 'invalid_input');
    await succeed('carol', 'session_get', {});
    await refuse('carol', 'session_get', { participant: 'alice' }, 'invalid_input');
    await succeed('carol', 'handoff_list', { status: 'result_ready' });
    await refuse('carol', 'handoff_list', { status: 'maybe' }, 'invalid_input');
    await succeed('carol', 'proposal_list', { status: 'accepted' });
    await refuse('carol', 'proposal_list', { cursor: 'not-a-cursor' }, 'invalid_input');

    // Administration: a session with admin.
    await succeed('carol', 'participant_list', { include_removed: true });
    await refuse('carol', 'participant_list', { include_removed: 'yes' }, 'invalid_input');
    await refuse('carol', 'participant_add', { name: 'erin' }, 'forbidden');
    await succeed('admin', 'participant_add', { name: 'erin' });
    await succeed('admin', 'session_list', { participant: 'erin' });
    await refuse('carol', 'session_list', {}, 'forbidden');
    const made = await succeed('admin', 'session_create', { participant: 'erin', capabilities: ['read'] });
    await refuse('admin', 'session_create', { participant: 'nobody', capabilities: ['read'] }, 'not_found');
    await succeed('admin', 'session_revoke', { session_id: made.structuredContent.session.session_id });
    await refuse('admin', 'session_revoke', { session_id: made.structuredContent.session.session_id }, 'conflict');
    await succeed('admin', 'participant_remove', { name: 'erin' });
    await refuse('admin', 'participant_remove', { name: 'erin' }, 'not_found');

    // Work left open past its TTL fails as expired; a TTL later the finished
    // task rows are gone, and replaying the first create answers at once.
    const fifth = await create('Forgotten');
    s.clock.advance(limits.TASK_TTL_MS + 1);
    sweepExpiredTasks(s.room);
    if (tasks) {
      const expired = await taskOutcome(fifth.taskId, 'failed', 'FailedTask', 'task expired');
      expect(expired.error).toMatchObject({ message: 'task expired' });
    }
    s.clock.advance(limits.TASK_TTL_MS + 1);
    sweepExpiredTasks(s.room);
    const replayed = await succeed('alice', 'handoff_create', {
      summary: 'Outline the guide',
      assignee: 'bob',
      idempotency_key: 'outline',
    });
    expect(replayed.structuredContent).toMatchObject({
      replayed: true,
      task: null,
      handoff: { handoff_id: first.handoffId },
    });

    for (const { name } of toolCatalog) {
      expect([...(seen.get(name) ?? [])].sort(), `the results seen from ${name}`).toEqual(expectedKinds(name, tasks));
    }
  });
});

describe('a session naming another participant', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await startTestServer();
  });
  afterEach(() => s.stop());

  it('is refused before anything runs, where MCP ran it as the session’s own participant', async () => {
    const asBob = await rpc(
      s.http.mcpUrl,
      'tools/call',
      { name: 'handoff_create', arguments: { summary: 'Who made this?' } },
      { token: s.tokens.alice, headers: { 'commonroom-participant': 'bob' } },
    );
    // A JSON-RPC error, as the room's other refusals of who calls are (-32003 forbidden).
    expect(asBob.body.error).toMatchObject({
      code: -32003,
      message: `Commonroom-Participant names "bob", but this session is alice's: only the operator token acts as another participant`,
    });
    const listed = await rpc(
      s.http.mcpUrl,
      'tools/call',
      { name: 'handoff_list', arguments: {} },
      { token: s.tokens.alice },
    );
    expect(listed.body.result.structuredContent.handoffs).toEqual([]);
    const own = await rpc(
      s.http.mcpUrl,
      'tools/call',
      { name: 'handoff_list', arguments: {} },
      { token: s.tokens.alice, headers: { 'commonroom-participant': 'alice' } },
    );
    expect(own.body.result.isError).not.toBe(true);
  });
});
