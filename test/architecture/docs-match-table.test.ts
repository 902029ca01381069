// What the reference (docs/reference.md) and `ce --help` tell a person is
// what the operation table holds: the reference's tool table names every MCP
// tool and Tasks method and nothing else, its command table every ce command
// and nothing else, and each command's help says the operation's summary and
// every flag. Its route table names every REST path, and nothing else.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { expect, test } from 'vitest';
import { operations, restRoutes, type Operation } from '../../generated/operations.js';
import { buildProgram } from '../../src/cli/main.js';

const root = path.resolve(import.meta.dirname, '../..');
const reference = readFileSync(path.join(root, 'docs/reference.md'), 'utf8').split('\n');
const table = Object.values(operations) as Operation[];
const catalog = JSON.parse(readFileSync(path.join(root, 'schemas/operations.catalog.json'), 'utf8')) as {
  operations: { id: string; cli: { options: Record<string, { description?: string }> } }[];
};
/** The flags the catalog gives an operation, with the help text it writes for them itself. */
const catalogOptions = (id: string) => catalog.operations.find((op) => op.id === id)!.cli.options;

/** The first cells of the reference's table whose header row starts with `| header |`. */
function firstCells(header: string): string[] {
  const start = reference.findIndex((line) => line.startsWith(`| ${header} |`));
  expect(start, `docs/reference.md has a table headed "${header}"`).toBeGreaterThan(-1);
  const rows: string[] = [];
  for (const line of reference.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split(/(?<!\\)\|/)[1]!.trim());
  }
  return rows;
}

const backticked = (cell: string): string[] =>
  [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replaceAll('\\|', '|'));

test('the reference’s tool table names exactly the table’s tools and Tasks methods', () => {
  const named = firstCells('tool').flatMap(backticked);
  const bound = table.flatMap((op) => ('tool' in op.mcp ? [op.mcp.tool] : 'method' in op.mcp ? [op.mcp.method] : []));
  expect([...new Set(named)].sort()).toEqual(bound.sort());
});

/** `ce participant add|remove FILE NAME` → participant add, participant remove; `proposal-reject` → itself. */
function commandsIn(span: string): string[] {
  const words = span.replace(/^ce /, '').split(' ');
  const name: string[][] = [];
  for (const word of words) {
    if (!/^[a-z][a-z|-]*$/.test(word)) break;
    name.push(word.split('|'));
  }
  return name.reduce<string[]>(
    (all, choices) => (all.length === 0 ? choices : all.flatMap((head) => choices.map((c) => `${head} ${c}`))),
    [],
  );
}

test('the reference’s command table names exactly the table’s ce commands and the operator’s own', () => {
  const named = firstCells('command').flatMap(backticked).flatMap(commandsIn);
  const own = ['init', 'serve', 'status', 'open', 'edit', 'bridge', 'backup', 'restore', 'help', 'completion'];
  expect([...new Set(named)].sort()).toEqual([...table.map((op) => op.cli.command), ...own].sort());
});

test('ce help: each operation command says its summary, and every flag the table gives it', () => {
  const program = buildProgram();
  const find = (words: string[]): Command =>
    words.reduce<Command>((parent, word) => parent.commands.find((c) => c.name() === word)!, program);
  for (const op of table) {
    const help = find(op.cli.command.split(' ')).helpInformation();
    expect(help, op.cli.command).toContain(op.summary);
    for (const option of op.cli.options) expect(help, `${op.cli.command} ${option.flags}`).toContain(option.flags);
  }
  // The top-level help lists every command (a group by its first word).
  const top = program.helpInformation();
  for (const first of new Set(table.map((op) => op.cli.command.split(' ')[0]!))) {
    expect(top).toMatch(new RegExp(`^  ${first}\\b`, 'm'));
  }
});

/** Each operation's input schema as written in schemas/operations/, by its title. */
const inputSchemas = new Map(
  readdirSync(path.join(root, 'schemas/operations'))
    .filter((name) => name.endsWith('.input.json'))
    .map((name) => JSON.parse(readFileSync(path.join(root, 'schemas/operations', name), 'utf8')))
    .map((schema: { title: string; properties?: Record<string, { description?: string }> }) => [schema.title, schema]),
);

test('every flag and argument of ce says what it is for in its own operation: a description of its own, never a shared one', () => {
  const inherited: string[] = [];
  for (const op of table) {
    const properties = inputSchemas.get(op.input)!.properties ?? {};
    const catalog = catalogOptions(op.id);
    const fields = [
      ...op.cli.arguments.map((a) => a.field),
      ...op.cli.options.filter((o) => !catalog[o.flags]?.description).map((o) => o.field),
    ];
    for (const field of fields) if (!properties[field]?.description) inherited.push(`${op.cli.command}: ${field}`);
  }
  expect(inherited).toEqual([]);
});

test('the reference’s route table names exactly the table’s REST paths', () => {
  const documented = new Set<string>();
  for (const cell of firstCells('route')) {
    let last = '';
    for (const token of backticked(cell)) {
      const full = /^(?:[A-Z]+ )?(\/\S*)$/.exec(token)?.[1];
      const relative = /^\.\.\.(\/\S+)$/.exec(token)?.[1];
      if (full) last = full.split('?')[0]!;
      else if (relative) {
        // `.../approve` after `/x/{id}` is `/x/{id}/approve`; after `/x/{id}/accept`, a sibling of it.
        const base = last.endsWith('}') ? last : last.slice(0, last.lastIndexOf('/'));
        documented.add(`${base}${relative}`);
        continue;
      } else continue;
      documented.add(last);
    }
  }
  const routes = new Set(restRoutes.map((route) => route.path.replace(/\{(?!name\})\w+\}/g, '{id}')));
  expect([...documented].sort()).toEqual([...routes].sort());
});
