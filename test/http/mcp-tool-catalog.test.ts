// What tools/list tells a host about each tool beyond its schemas: the
// annotations it reads to decide what needs a person's confirmation (and
// whether the hints are true to what the tools do), and the labels of the
// input fields a form shows.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolCatalog } from '../../generated/mcp.js';
import {
  acceptHandoff,
  completeHandoff,
  createHandoff,
  createSession,
  limits,
  LOCAL_OPERATOR,
  proposeChange,
  readArtifact,
  requestHandoffInput,
  type Room,
} from '../helpers/engine.js';
import { callTool, type Who, type Wire } from '../helpers/mcp-wire.js';
import { expectOfficial } from '../helpers/mcp-schemas.js';
import { caller, dumpDatabase } from '../helpers/room.js';
import { rpc, rpcRequest, startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let tools: Wire[];

beforeEach(async () => {
  s = await startTestServer();
  tools = (await rpc(s.http.mcpUrl, 'tools/list', {}, { token: s.tokens.alice })).body.result.tools;
});

afterEach(async () => {
  await s.stop();
});

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];

describe('the size of tools/list', () => {
  // Every parameter carries one line a model reads to fill it in (about 3 KB in all).
  it('is at most 28 KB in all, so an agent can afford to list the tools', async () => {
    const response = await fetch(
      s.http.mcpUrl,
      rpcRequest(s.http.mcpUrl, 'tools/list', {}, { token: s.tokens.alice }).init,
    );
    const bytes = Buffer.byteLength(await response.text(), 'utf8');
    expect(bytes).toBeLessThanOrEqual(28 * 1024);
    expect(tools.length).toBe(toolCatalog.length);
  });
});

describe('annotations', () => {
  it('every tool has a title and states all four hints; none reaches outside the room', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(toolCatalog.map((t) => t.name).sort());
    for (const tool of tools) {
      expect(tool.title, tool.name).toEqual(expect.stringMatching(/\S/));
      expectOfficial('core', 'ToolAnnotations', tool.annotations, `${tool.name} annotations`);
      expect(Object.keys(tool.annotations).sort(), tool.name).toEqual([...HINTS, 'title'].sort());
      expect(tool.annotations.title, tool.name).toBe(tool.title);
      for (const hint of HINTS) expect(typeof tool.annotations[hint], `${tool.name} ${hint}`).toBe('boolean');
      expect(tool.annotations.openWorldHint, tool.name).toBe(false);
      // A tool that changes nothing can destroy nothing, and repeating it changes nothing.
      if (tool.annotations.readOnlyHint) {
        expect(tool.annotations, tool.name).toMatchObject({ destructiveHint: false, idempotentHint: true });
      }
    }
  });

  /**
   * For each tool, a room where one call of it succeeds: who calls and with
   * what arguments. Setup goes through the engine; the calls go over MCP.
   */
  const scenarios: Record<
    string,
    (room: Room) => { who: Who; args: Record<string, unknown>; beforeRepeat?: () => void }
  > = {
    handoff_create: () => ({ who: 'alice', args: { summary: 'Write it up', assignee: 'bob' } }),
    handoff_accept: (room) => ({ who: 'bob', args: { handoff_id: openHandoff(room) } }),
    handoff_request_input: (room) => ({
      who: 'bob',
      args: { handoff_id: acceptedHandoff(room), message: 'How long?' },
    }),
    handoff_answer: (room) => {
      const id = acceptedHandoff(room);
      requestHandoffInput(room, caller('bob'), { handoff_id: id, message: 'How long?' });
      return { who: 'alice', args: { handoff_id: id, response: { action: 'accept', content: { answer: 'Short' } } } };
    },
    handoff_progress: (room) => ({
      who: 'bob',
      args: { handoff_id: acceptedHandoff(room), message: 'Half way', progress: 1, total: 2 },
      // A report within the second waits for the next commit; a second later it is one more event.
      beforeRepeat: () => s.clock.advance(limits.PROGRESS_INTERVAL_MS),
    }),
    handoff_complete: (room) => ({
      who: 'bob',
      args: { handoff_id: acceptedHandoff(room), result: { content: [{ type: 'text', text: 'Done' }] } },
    }),
    handoff_get: (room) => ({ who: 'alice', args: { handoff_id: openHandoff(room) } }),
    handoff_events: (room) => ({ who: 'alice', args: { handoff_id: openHandoff(room) } }),
    handoff_approve: (room) => ({ who: 'dave', args: { handoff_id: readyHandoff(room) } }),
    handoff_reject: (room) => ({ who: 'dave', args: { handoff_id: readyHandoff(room), note: 'No' } }),
    workspace_propose: (room) => ({
      who: 'alice',
      args: { base_revision: revision(room), content: '# New\n', summary: 'A change' },
    }),
    proposal_get: (room) => ({ who: 'alice', args: { proposal_id: openProposal(room) } }),
    proposal_approve: (room) => ({ who: 'dave', args: { proposal_id: openProposal(room) } }),
    proposal_reject: (room) => ({ who: 'dave', args: { proposal_id: openProposal(room) } }),
    proposal_withdraw: (room) => ({ who: 'alice', args: { proposal_id: openProposal(room) } }),
    workspace_history: () => ({ who: 'carol', args: {} }),
    handoff_list: (room) => {
      openHandoff(room);
      return { who: 'carol', args: { status: 'open', limit: 5 } };
    },
    proposal_list: (room) => {
      openProposal(room);
      return { who: 'carol', args: { limit: 5 } };
    },
    workspace_read: () => ({ who: 'carol', args: {} }),
    session_get: () => ({ who: 'carol', args: {} }),
    participant_list: () => ({ who: 'carol', args: { include_removed: true } }),
    participant_add: () => ({ who: 'admin', args: { name: 'erin' } }),
    participant_remove: () => ({ who: 'admin', args: { name: 'carol' } }),
    session_list: () => ({ who: 'admin', args: { participant: 'bob' } }),
    session_create: () => ({ who: 'admin', args: { participant: 'bob', capabilities: ['read'] } }),
    session_revoke: (room) => ({
      who: 'admin',
      args: {
        session_id: createSession(room, LOCAL_OPERATOR, { participant: 'bob', capabilities: ['read'] }).session
          .session_id,
      },
    }),
  };

  const openHandoff = (room: Room) =>
    createHandoff(room, caller('alice'), { summary: 'Some work', assignee: 'bob' }).handoff.handoff_id;
  const acceptedHandoff = (room: Room) => {
    const id = openHandoff(room);
    acceptHandoff(room, caller('bob'), { handoff_id: id });
    return id;
  };
  const readyHandoff = (room: Room) => {
    const id = acceptedHandoff(room);
    completeHandoff(room, caller('bob'), { handoff_id: id, result: { content: [{ type: 'text', text: 'Done' }] } });
    return id;
  };
  const revision = (room: Room) => readArtifact(room, caller('alice')).revision.number;
  let drafts = 0;
  const openProposal = (room: Room) =>
    proposeChange(room, caller('alice'), {
      base_revision: revision(room),
      content: `# Draft ${++drafts}\n`,
      summary: 'A change',
    }).proposal.proposal_id;

  /** Every row of the sidecar and the file's text: the room's whole environment. */
  const snapshot = () => ({ database: dumpDatabase(s.room), file: readFileSync(s.artifact, 'utf8') });
  const rowCounts = (database: Record<string, unknown[]>) =>
    Object.fromEntries(Object.entries(database).map(([table, rows]) => [table, rows.length]));

  it.each(toolCatalog.map((t) => t.name))('%s does what its hints say', async (name) => {
    const tool = tools.find((t) => t.name === name)!;
    const { readOnlyHint, destructiveHint, idempotentHint } = tool.annotations;
    const { who, args, beforeRepeat } = scenarios[name]!(s.room);
    const call = async () => (await callTool(s, who, name, args)).body.result;

    // The setup's changes committed: inside an open batch, handoff_counts is as a commit last wrote it.
    await s.room.commits.idle();
    const before = snapshot();
    const first = await call();
    expect(first.isError, `${name}: ${JSON.stringify(first)}`).not.toBe(true);
    const afterFirst = snapshot();
    if (readOnlyHint) expect(afterFirst, `${name} is read-only`).toEqual(before);

    // Additive: no record is removed and the file stays as it was; destructive here means the file is rewritten.
    for (const [table, count] of Object.entries(rowCounts(before.database))) {
      expect(rowCounts(afterFirst.database)[table], `${name}: rows of ${table}`).toBeGreaterThanOrEqual(count);
    }
    if (destructiveHint) expect(afterFirst.file, `${name} rewrites the file`).not.toBe(before.file);
    else expect(afterFirst.file, `${name} leaves the file`).toBe(before.file);

    // The same call again, with the same arguments: no further effect when idempotent.
    beforeRepeat?.();
    await call();
    if (idempotentHint) expect(snapshot(), `${name} repeated`).toEqual(afterFirst);
    else expect(snapshot(), `${name} repeated`).not.toEqual(afterFirst);
  });

  it('has a scenario for every tool', () => {
    expect(Object.keys(scenarios).sort()).toEqual(toolCatalog.map((t) => t.name).sort());
  });
});

describe('input field labels', () => {
  /** Every property schema of a schema, with its path: at the root, in oneOf branches, in $defs, nested. */
  function properties(node: unknown, path: string, found: [string, Wire][] = []): [string, Wire][] {
    if (Array.isArray(node)) node.forEach((item, i) => properties(item, `${path}/${i}`, found));
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'properties' && value !== null && typeof value === 'object') {
          for (const [name, property] of Object.entries(value)) {
            found.push([`${path}/properties/${name}`, property]);
            properties(property, `${path}/properties/${name}`, found);
          }
        } else if (!['const', 'enum', 'default', 'examples'].includes(key)) properties(value, `${path}/${key}`, found);
      }
    }
    return found;
  }

  it('every property of every tool input has its own title', () => {
    for (const tool of tools) {
      const found = properties(tool.inputSchema, tool.name);
      // workspace_read and session_get take nothing.
      if (tool.name !== 'workspace_read' && tool.name !== 'session_get')
        expect(found.length, tool.name).toBeGreaterThan(0);
      const untitled = found.filter(([, property]) => typeof property.title !== 'string' || property.title === '');
      expect(untitled.map(([path]) => path)).toEqual([]);
    }
  });

  it('a property that refers to a shared definition is labelled for itself, not by the definition', () => {
    const create = tools.find((t) => t.name === 'handoff_create')!.inputSchema;
    // The definition a property refers to is written in place, with the property's own label.
    expect(create.properties.assignee).toMatchObject({ title: 'Assignee', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' });
    expect(JSON.stringify(create)).not.toContain('"title":"ParticipantName"');
    const complete = tools.find((t) => t.name === 'handoff_complete')!.inputSchema;
    expect(complete.properties.result.title).toBe('Result');
    expect(complete.properties.error.title).toBe('Error');
  });
});

describe('parameters every client can see', () => {
  const COMBINATORS = ['oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', 'dependentSchemas'];

  /** The schemas a combinator at the top of an input schema holds (the branches a client must not need to read). */
  function branches(schema: Wire): Wire[] {
    return COMBINATORS.flatMap((key) => {
      const value = schema[key];
      if (value === undefined) return [];
      if (Array.isArray(value)) return value;
      return key === 'dependentSchemas' ? Object.values(value) : [value];
    });
  }

  it('every parameter is a top-level property with one line saying what it is; combinators only require', () => {
    for (const tool of tools) {
      const schema = tool.inputSchema as Wire;
      const top = Object.keys(schema.properties ?? {});
      for (const [name, property] of Object.entries(schema.properties ?? {}) as [string, Wire][]) {
        expect(typeof property.description, `${tool.name}.${name} says what it is`).toBe('string');
        expect(property.description, `${tool.name}.${name}`).not.toMatch(/\n/);
      }
      for (const branch of branches(schema)) {
        // A branch says which parameters go together, never what a parameter is.
        expect(branch.properties, `${tool.name}: a parameter inside ${JSON.stringify(branch)}`).toBeUndefined();
        for (const name of branch.required ?? [])
          expect(top, `${tool.name}: ${name} is at the top level`).toContain(name);
      }
      expect(schema.additionalProperties, tool.name).toBe(false);
    }
  });
});
