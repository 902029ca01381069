// Bodies at the 1 MiB limit and over it, with and without Content-Length:
// at most the limit is read, one byte more is 413 before parsing, and the
// connection answers the next request either way.
import fc from 'fast-check';
import { MIB, type FuzzCase, type FuzzWorld } from './cases.js';
import { mcpRequest, oversizedMcpCases } from './mcp-cases.js';
import { oversizedRestCases, restRequest, routeOf } from './rest-cases.js';

/** A valid request padded with spaces inside its JSON to exactly 1 MiB + delta bytes. */
export function bodyAtTheLimit(world: FuzzWorld): fc.Arbitrary<FuzzCase> {
  return fc.tuple(fc.constantFrom(-1, 0, 1, 100), fc.boolean(), fc.boolean()).map(([delta, chunked, onMcp]) => {
    const base = onMcp
      ? mcpRequest({ method: 'tools/list', params: {}, token: world.tokens.carol, id: 9, tasks: false })
      : restRequest({
          route: routeOf('createHandoff'),
          pathParams: {},
          query: [],
          body: { summary: 'Padded' },
          token: world.tokens.alice,
        });
    const text = base.body!.toString('utf8');
    const padded = `${text.slice(0, -1)}${' '.repeat(MIB + delta - text.length)}}`;
    const over = delta > 0;
    return {
      kind: `limit: a body of 1 MiB ${delta >= 0 ? '+' : '-'} ${Math.abs(delta)}${chunked ? ', chunked' : ''}`,
      request: { ...base, body: Buffer.from(padded), chunked },
      expect: over
        ? onMcp
          ? { is: 'rpc', status: 413, codes: [-32600] }
          : { is: 'problem', status: 413, code: 'too_large' }
        : onMcp
          ? { is: 'answered' }
          : { is: 'any', notStatus: [413] },
      followUp: true,
    };
  });
}

/** Well-formed requests of either door in bodies over 1 MiB: a few bytes over, or megabytes. */
export const oversizedCases = (world: FuzzWorld): fc.Arbitrary<FuzzCase> =>
  fc.oneof(oversizedMcpCases(world), oversizedRestCases(world));
