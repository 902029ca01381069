// A property of the room's JSON checks over real HTTP: whatever the shape
// of a body (deep or wide, arrays or objects, with prototype keys anywhere),
// up to the 1 MiB limit, the room answers with a client error or a success,
// never a 5xx, and says why in its surface's format. The bodies are built as
// text by loops, so no test code recurses either.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { mcpHeaders, requestMeta } from '../helpers/mcp-wire.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_204);
const MAX_BODY = 1024 * 1024;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

interface Shape {
  /** Containers nested along one path. */
  depth: number;
  /** Scalars or empty containers beside each level. */
  width: number;
  /** Each level an array, an object, or either. */
  kind: 'array' | 'object' | 'mixed';
  /** Where a prototype key goes, if anywhere: at this fraction of the depth. */
  proto: { key: '__proto__' | 'constructor'; at: number } | null;
}

/** The JSON text of a shape, with `leaf` at the bottom, and whether a prototype key is in it; built by a loop. */
function textOf(shape: Shape, leaf: string): { text: string; proto: boolean } {
  const opens: string[] = [];
  const closes: string[] = [];
  const protoLevel = shape.proto ? Math.floor(shape.proto.at * shape.depth) : -1;
  let placed = false;
  const beside = Array.from({ length: shape.width }, (_, i) => (i % 3 === 0 ? '1' : i % 3 === 1 ? '"x"' : '[]'));
  for (let level = 0; level < shape.depth; level++) {
    const object = shape.kind === 'object' || (shape.kind === 'mixed' && level % 2 === 0);
    const siblings = object ? beside.map((value, i) => `"k${i}":${value},`).join('') : beside.map((v) => `${v},`).join('');
    const proto =
      level === protoLevel && shape.proto
        ? object
          ? shape.proto.key === '__proto__'
            ? '"__proto__":{"polluted":true},'
            : '"constructor":{"prototype":{"polluted":true}},'
          : ''
        : '';
    placed ||= proto !== '';
    opens.push(object ? `{${siblings}${proto}"next":` : `[${siblings}`);
    closes.push(object ? '}' : ']');
  }
  return { text: opens.join('') + leaf + closes.reverse().join(''), proto: placed };
}

const shapes = fc.record({
  depth: fc.oneof(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 80, max: 200_000 })),
  width: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 100, max: 2_000 })),
  kind: fc.constantFrom('array' as const, 'object' as const, 'mixed' as const),
  proto: fc.option(
    fc.record({ key: fc.constantFrom('__proto__' as const, 'constructor' as const), at: fc.double({ min: 0, max: 0.999, noNaN: true }) }),
  ),
});

/**
 * Whether a shape stays under the body limit (bigger ones are the 413 tests'
 * business), judged before its text is built: building a text of gigabytes
 * would hold up this process, and with it the connections it keeps open.
 */
const fits = (shape: Shape) => shape.depth * (14 + shape.width * 9) <= MAX_BODY - 4_000;

test('REST: any shape of body is answered 2xx or 4xx with a problem naming why, never 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(shapes, async (shape) => {
      fc.pre(fits(shape));
      const x = textOf(shape, '1');
      const body = `{"summary":"shape","constraints":"c","artifacts":[{"uri":"a","title":"t"}],"x":${x.text}}`;
      const r = await fetch(`${s.http.baseUrl}/workspace/handoffs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.tokens.alice}`, 'content-type': 'application/json' },
        body,
      });
      const text = await r.text();
      expect(r.status, text.slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(r.status, text.slice(0, 300)).toBeLessThan(500);
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      const problem = JSON.parse(text);
      expect(problem.code).toBe('invalid_input');
      const deep = shape.depth + 1 > 64;
      if (deep) expect(problem.detail).toBe('the request body nests deeper than 64 levels of objects and arrays');
      else if (x.proto) expect(problem.detail).toMatch(/forbidden key/);
      // Otherwise the schema refuses the unknown property x, naming it.
      else expect(problem.detail).toBe("input has unknown property 'x'");
    }),
    { seed: SEED, numRuns: 60 },
  );
}, 120_000);

test('MCP: any shape of tool arguments is answered with a JSON-RPC error or a tool error, never 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(shapes, async (shape) => {
      fc.pre(fits(shape));
      const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"handoff_create","arguments":{"summary":"shape","x":${textOf(shape, '1').text}},"_meta":${JSON.stringify(requestMeta())}}}`;
      const r = await fetch(s.http.mcpUrl, {
        method: 'POST',
        headers: mcpHeaders('tools/call', s.tokens.alice, { 'mcp-name': 'handoff_create' }),
        body,
      });
      const text = await r.text();
      expect(r.status, text.slice(0, 300)).toBeLessThan(500);
      const answer = JSON.parse(text);
      expect(answer.jsonrpc).toBe('2.0');
      if (r.status === 200) {
        // Read and judged: a tool refusal naming the stray argument.
        expect(answer.result.isError).toBe(true);
        expect(answer.result.structuredContent.error.code).toBe('invalid_input');
      } else {
        expect(r.status).toBe(400);
        expect([-32600, -32700]).toContain(answer.error.code);
      }
    }),
    { seed: SEED, numRuns: 60 },
  );
}, 120_000);
