// A request that needed one more file than the process may open (EMFILE, or
// ENFILE for the whole system) is refused on both doors as the room being
// full for a moment: a 503 with Retry-After and a message that says so, and
// a line in the log with no stack. Any other unexpected error is still a
// 500 whose details go to the log only.
import { describe, expect, it } from 'vitest';
import { errorAnswer } from '../../src/http/mcp/errors.js';
import { problemOf } from '../../src/http/rest/problem.js';

const outOfFiles = (code: 'EMFILE' | 'ENFILE') =>
  Object.assign(new Error(`${code}: too many open files, open '/room/dist/chunks/validator.cjs'`), { code });

describe('a process out of files', () => {
  for (const code of ['EMFILE', 'ENFILE'] as const) {
    it(`${code} is a 503 to try again, on REST and on MCP, said in one line of the log`, () => {
      const logged: string[] = [];
      const message = `the room has as many files open as its process may (${code}); try again later`;

      const rest = problemOf(outOfFiles(code), (line) => logged.push(line), 'GET /workspace/artifact');
      expect(rest.status).toBe(503);
      expect(rest.headers).toEqual({ 'Retry-After': '5' });
      expect(JSON.parse(rest.body)).toMatchObject({ status: 503, code: 'unavailable', detail: message });

      const mcp = errorAnswer(outOfFiles(code), (line) => logged.push(line), 'POST /mcp');
      expect(mcp.status).toBe(503);
      expect(mcp.headers).toEqual({ 'Retry-After': '5' });
      expect(mcp.error).toMatchObject({ code: -32050, message });

      expect(logged).toEqual([`ce: GET /workspace/artifact refused: ${message}`, `ce: POST /mcp refused: ${message}`]);
    });
  }

  it('any other unexpected error is still a 500 with its details in the log only', () => {
    const logged: string[] = [];
    const rest = problemOf(new Error('a bug'), (line) => logged.push(line), 'GET /workspace/artifact');
    const mcp = errorAnswer(new Error('a bug'), (line) => logged.push(line), 'POST /mcp');
    expect([rest.status, mcp.status]).toEqual([500, 500]);
    expect(JSON.parse(rest.body).detail).toBe('internal error');
    expect(mcp.error).toMatchObject({ code: -32603, message: 'internal error' });
    expect(logged).toHaveLength(2);
    expect(logged.every((line) => line.includes('a bug') && /\n\s+at /.test(line))).toBe(true);
  });
});
