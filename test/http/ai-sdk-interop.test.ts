// The AI SDK's MCP client (@ai-sdk/mcp), the one most TypeScript agent
// builders hand a model its tools with, against a room over Streamable HTTP
// with a bearer token; no model is needed. Every tool is executed with
// valid arguments and with arguments the room must refuse, through a whole
// handoff and two proposals. Each call's arguments are first checked against
// the schema the AI SDK would hand a model (the tool's inputSchema with its
// top-level properties and additionalProperties: false), so a schema that
// hides a parameter from a model cannot land.
import { createMCPClient, type MCPClient } from '@ai-sdk/mcp';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { toolCatalog } from '../../generated/mcp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
const clients: MCPClient[] = [];
type Tools = Awaited<ReturnType<MCPClient['tools']>>;
const toolsOf: Record<string, Tools> = {};

async function clientFor(who: keyof TestServer['tokens']): Promise<Tools> {
  const client = await createMCPClient({
    transport: { type: 'http', url: s.http.mcpUrl, headers: { Authorization: `Bearer ${s.tokens[who]}` } },
  });
  clients.push(client);
  return client.tools();
}

beforeAll(async () => {
  s = await startTestServer();
  for (const who of ['alice', 'bob', 'dave', 'admin'] as const) toolsOf[who] = await clientFor(who);
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await s.stop();
});

/** The JSON Schema the AI SDK hands a model for a tool (its jsonSchema wrapper). */
const modelSchema = (tools: Tools, name: string): Record<string, unknown> =>
  (tools[name]!.inputSchema as unknown as { jsonSchema: Record<string, unknown> }).jsonSchema;

const ajv = new Ajv2020({ strict: false, allErrors: true });

/**
 * Checks the arguments against the model-facing schema (it must admit valid
 * ones, and refuse what it can tell is wrong), then runs the tool as a
 * model's call would: the room judges either way.
 */
async function run(who: keyof typeof toolsOf, name: string, args: Record<string, unknown>, schemaAdmits = true) {
  const tools = toolsOf[who]!;
  const validate = ajv.compile(modelSchema(tools, name));
  expect(validate(args), `${name} ${JSON.stringify(args)}: ${ajv.errorsText(validate.errors)}`).toBe(schemaAdmits);
  const tool = tools[name]!;
  return (await tool.execute!(args, { toolCallId: `${name}-call`, messages: [], context: {} })) as {
    isError?: boolean;
    structuredContent?: any;
    content: { type: string; text?: string }[];
  };
}

async function ok(who: keyof typeof toolsOf, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await run(who, name, args);
  expect(result.isError ?? false, `${name}: ${JSON.stringify(result.structuredContent)}`).toBe(false);
  return result.structuredContent;
}

async function refused(
  who: keyof typeof toolsOf,
  name: string,
  args: Record<string, unknown>,
  code: string,
  schemaAdmits = true,
) {
  const result = await run(who, name, args, schemaAdmits);
  expect(result.isError, `${name} should be refused`).toBe(true);
  expect(result.structuredContent.error.code).toBe(code);
  return result.structuredContent.error.message as string;
}

describe('the tools the AI SDK builds', () => {
  test('are every tool of the room, each with every parameter at the top level', () => {
    expect(Object.keys(toolsOf.alice!).sort()).toEqual(toolCatalog.map((tool) => tool.name).sort());
    for (const tool of toolCatalog) {
      const schema = modelSchema(toolsOf.alice!, tool.name);
      expect(schema.additionalProperties, tool.name).toBe(false);
      expect(Object.keys(schema.properties as object).sort(), tool.name).toEqual(
        Object.keys((tool.inputSchema as { properties?: object }).properties ?? {}).sort(),
      );
    }
  });

  test('a refused combination is still refused by the room: both content and diff, neither result nor error', async () => {
    const { artifact } = { artifact: await ok('alice', 'workspace_read', {}) };
    const both = await run(
      'alice',
      'workspace_propose',
      { base_revision: artifact.revision.number, content: '# New\n', diff: '', summary: 'both' },
      false,
    );
    expect(both.isError).toBe(true);
    expect(both.structuredContent.error.message).toBe('input takes one of content or diff, not both');
    const created = await ok('alice', 'handoff_create', { summary: 'Nothing to give back', assignee: 'bob' });
    await ok('bob', 'handoff_accept', { handoff_id: created.handoff.handoff_id });
    const neither = await refused(
      'bob',
      'handoff_complete',
      { handoff_id: created.handoff.handoff_id },
      'invalid_input',
      false,
    );
    expect(neither).toBe('input needs one of result or error');
    await ok('bob', 'handoff_complete', {
      handoff_id: created.handoff.handoff_id,
      error: { code: -32603, message: 'could not do it' },
    });
  });
});

test('a whole handoff through the AI SDK: create, accept, progress, input, complete, approve, and refusals on the way', async () => {
  const created = await ok('alice', 'handoff_create', {
    summary: 'Check the totals in section 2',
    assignee: 'bob',
    artifacts: [{ uri: 'workspace:///room.md', title: 'The room' }],
    idempotency_key: 'ai-sdk-1',
  });
  const handoffId = created.handoff.handoff_id as string;
  const taskId = created.handoff.task_id as string;
  expect(await refused('alice', 'handoff_create', { summary: '' }, 'invalid_input', false)).toMatch(/summary/);
  expect(await refused('dave', 'handoff_accept', { handoff_id: handoffId }, 'forbidden')).toMatch(/write/);

  expect((await ok('bob', 'handoff_accept', { handoff_id: handoffId })).handoff.status).toBe('accepted');
  expect(await refused('alice', 'handoff_accept', { handoff_id: handoffId }, 'conflict')).toMatch(/accepted/);
  await ok('bob', 'handoff_progress', { handoff_id: handoffId, message: 'halfway', progress: 1, total: 2 });
  const asked = await ok('bob', 'handoff_request_input', { handoff_id: handoffId, message: 'Which year?' });
  expect(asked.task.status).toBe('input_required');

  // The owner reads the handoff by its task id, and its events.
  const byTask = await ok('alice', 'handoff_get', { task_id: taskId });
  expect(byTask.handoff.handoff_id).toBe(handoffId);
  expect(await refused('alice', 'handoff_get', {}, 'invalid_input', false)).toBe(
    'input needs one of handoff_id or task_id',
  );
  const events = await ok('alice', 'handoff_events', { handoff_id: handoffId, after: 0, limit: 10 });
  expect(events.events.map((e: { type: string }) => e.type)).toEqual(
    expect.arrayContaining(['handoff.created', 'handoff.accepted', 'task.input_required']),
  );
  expect((await ok('alice', 'handoff_list', { limit: 5 })).handoffs.length).toBeGreaterThan(0);

  const result = { content: [{ type: 'text', text: 'Totals checked.' }], structuredContent: { verdict: 'ok' } };
  expect(await refused('bob', 'handoff_complete', { handoff_id: handoffId, result }, 'conflict')).toMatch(
    /is waiting for input; it can complete once the owner has answered$/,
  );
  // The owner's answer travels by tasks/update, which is no tool: the room's REST twin here.
  const answered = await fetch(`${s.http.baseUrl}/workspace/task/input-responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.tokens.alice}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      task_id: taskId,
      input_responses: { [asked.key]: { action: 'accept', content: { answer: '2025' } } },
    }),
  });
  expect(answered.status).toBe(200);
  const completed = await ok('bob', 'handoff_complete', { handoff_id: handoffId, result });
  expect(completed.handoff.status).toBe('result_ready');

  expect(await refused('bob', 'handoff_approve', { handoff_id: handoffId }, 'forbidden')).toMatch(/approve/);
  const approved = await ok('dave', 'handoff_approve', { handoff_id: handoffId, note: 'Good' });
  expect(approved.handoff.decision).toMatchObject({ decision: 'approved', by: 'dave', note: 'Good' });
  const another = await ok('alice', 'handoff_create', { summary: 'To be rejected', assignee: 'bob' });
  await ok('bob', 'handoff_accept', { handoff_id: another.handoff.handoff_id });
  await ok('bob', 'handoff_complete', { handoff_id: another.handoff.handoff_id, result });
  expect((await ok('dave', 'handoff_reject', { handoff_id: another.handoff.handoff_id })).handoff.status).toBe(
    'rejected',
  );
});

test('proposals through the AI SDK: by content and by diff, approved, rejected, withdrawn, and the history', async () => {
  const read = await ok('alice', 'workspace_read', {});
  const base = read.revision.number as number;
  const byContent = await ok('alice', 'workspace_propose', {
    base_revision: base,
    content: `${read.content}\nA line by content.\n`,
    summary: 'Add a line',
  });
  expect(
    await refused('alice', 'proposal_approve', { proposal_id: byContent.proposal.proposal_id }, 'forbidden'),
  ).toMatch(/approve/);
  const accepted = await ok('dave', 'proposal_approve', { proposal_id: byContent.proposal.proposal_id, note: 'Yes' });
  expect(accepted.proposal.status).toBe('accepted');

  const now = await ok('alice', 'workspace_read', {});
  const lines = (now.content as string).split('\n').length;
  const diff = `--- a\n+++ b\n@@ -${lines - 1},1 +${lines - 1},2 @@\n ${(now.content as string).split('\n').at(-2)}\n+A line by diff.\n`;
  const byDiff = await ok('alice', 'workspace_propose', {
    base_revision: now.revision.number,
    diff,
    summary: 'By diff',
  });
  expect((await ok('alice', 'proposal_get', { proposal_id: byDiff.proposal.proposal_id })).proposal.status).toBe(
    'open',
  );
  expect((await ok('dave', 'proposal_approve', { proposal_id: byDiff.proposal.proposal_id })).proposal.status).toBe(
    'accepted',
  );
  expect((await ok('alice', 'workspace_read', {})).content).toContain('A line by diff.');

  const later = await ok('alice', 'workspace_read', {});
  const toReject = await ok('alice', 'workspace_propose', {
    base_revision: later.revision.number,
    content: '# Replaced\n',
    summary: 'Replace it all',
  });
  expect((await ok('dave', 'proposal_reject', { proposal_id: toReject.proposal.proposal_id })).proposal.status).toBe(
    'rejected',
  );
  const toWithdraw = await ok('alice', 'workspace_propose', {
    base_revision: later.revision.number,
    content: '# Withdrawn\n',
    summary: 'Never mind',
  });
  expect(
    (await ok('alice', 'proposal_withdraw', { proposal_id: toWithdraw.proposal.proposal_id })).proposal.status,
  ).toBe('withdrawn');
  expect(await refused('alice', 'proposal_get', { proposal_id: 'pr_nope' }, 'not_found')).toMatch(/pr_nope/);
  expect((await ok('alice', 'proposal_list', { status: 'accepted', limit: 10 })).proposals.length).toBe(2);
  expect((await ok('alice', 'workspace_history', { after: 0, limit: 50 })).entries.length).toBeGreaterThan(2);
});

test('who am I, and the administration tools, through the AI SDK', async () => {
  expect((await ok('alice', 'session_get', {})).participant).toBe('alice');
  expect((await ok('admin', 'participant_list', {})).participants.map((p: { name: string }) => p.name)).toContain(
    'bob',
  );
  await ok('admin', 'participant_add', { name: 'erin' });
  const created = await ok('admin', 'session_create', {
    participant: 'erin',
    capabilities: ['read'],
    expires_in_seconds: 60,
  });
  expect(created.token).toMatch(/^cr_/);
  expect((await ok('admin', 'session_list', { participant: 'erin' })).sessions).toHaveLength(1);
  expect(
    (await ok('admin', 'session_revoke', { session_id: created.session.session_id })).session.revoked_at,
  ).not.toBeNull();
  expect((await ok('admin', 'participant_remove', { name: 'erin' })).participant.removed_at).not.toBeNull();
  expect(await refused('alice', 'participant_add', { name: 'mallory' }, 'forbidden')).toMatch(/admin/);
});
