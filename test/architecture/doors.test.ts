// Every operation of the table is on every door, and nothing else is: an
// MCP tool (or a Tasks method), a REST route in the served app and the
// OpenAPI document, and a ce command. Only an operation of the operator's
// may stay off MCP, saying why.
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpMethods, toolCatalog } from '../../generated/mcp.js';
import openapi from '../../generated/openapi.json' with { type: 'json' };
import { operations, type Operation } from '../../generated/operations.js';
import { buildProgram } from '../../src/cli/main.js';
import { createApp } from '../../src/http/app.js';
import { makeRoom, type TestRoom } from '../helpers/room.js';
import { startTestServer } from '../helpers/server.js';

const table = Object.values(operations) as Operation[];

/** The MCP binding each operation declares: its tool, or its Tasks method; none for the operator's own. */
const mcpBinding = (op: Operation): string[] =>
  'tool' in op.mcp ? [op.mcp.tool] : 'method' in op.mcp ? [op.mcp.method] : [];

describe('every operation on every door', () => {
  let t: TestRoom;
  beforeAll(() => {
    t = makeRoom();
  });
  afterAll(() => t.close());

  it('MCP: the tools are exactly the table’s tools, and each Tasks method runs an operation of the table', () => {
    const tools = toolCatalog.map((tool) => tool.name).sort();
    const tasksMethods = Object.keys(mcpMethods).filter((method) => method.startsWith('tasks/'));
    expect([...tools, ...tasksMethods].sort()).toEqual(table.flatMap(mcpBinding).sort());
    const offMcp = table.filter((op) => mcpBinding(op).length === 0);
    for (const op of offMcp) expect(op.actor, `${op.id} is not on MCP`).toBe('operator');
  });

  it('REST: the served routes and the OpenAPI document are exactly the table’s routes', async () => {
    const wanted = table.map((op) => `${op.rest.method} ${op.rest.path}`);
    // Every route of the table is answered at its path and method: refused for want of a token, not unrouted.
    const s = await startTestServer();
    try {
      for (const op of table) {
        const path = op.rest.path.replace(/\{\w+\}/g, 'x');
        const answer = await fetch(`${s.http.baseUrl}${path}`, { method: op.rest.method });
        expect(answer.status, `${op.rest.method} ${op.rest.path}`).toBe(401);
      }
    } finally {
      await s.stop();
    }
    // The Koa app serves none: the protocol endpoint (every method, to refuse the others), the document
    // itself and the room's page (files, which call the operations like any client) are not operations.
    const app = await createApp(t.room).koa();
    const served = new Set<string>();
    for (const layer of app.middleware) {
      const router = (layer as unknown as { router?: { stack: { path: string; methods: string[] }[] } }).router;
      for (const route of router?.stack ?? []) {
        for (const method of route.methods.filter((m) => m !== 'HEAD')) {
          served.add(`${method} ${route.path.replace(/:(\w+)/g, '{$1}')}`);
        }
      }
    }
    const own = (route: string) =>
      /^\S+ \/mcp$/.test(route) ||
      ['GET /openapi.json', 'GET /docs', 'GET /', 'GET /page/{name}', 'GET /healthz', 'GET /readyz'].includes(route);
    expect([...served].filter((route) => !own(route))).toEqual([]);
    const documented = Object.entries(openapi.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(wanted.sort());
  });

  it('ce: the operation commands are exactly the table’s; init, serve, open, edit, bridge, backup, restore, help and completion are ce’s own', () => {
    const leaves = (command: Command, prefix: string[] = []): string[] =>
      command.commands.flatMap((child) =>
        child.commands.length > 0 ? leaves(child, [...prefix, child.name()]) : [[...prefix, child.name()].join(' ')],
      );
    const own = new Set([
      'init',
      'serve',
      'status',
      'open',
      'edit',
      'bridge',
      'backup',
      'restore',
      'help',
      'completion',
    ]);
    const commands = leaves(buildProgram()).filter((name) => !own.has(name));
    expect(commands.sort()).toEqual(table.map((op) => op.cli.command).sort());
  });
});
