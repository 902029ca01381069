// `ce serve` starts on a command line of its own (src/cli/serve-main.ts, in
// the bundle bin/ce.js runs for `serve`), so that a room's start loads no
// other command. It must answer exactly what the whole command line answers
// for the same words: help, usage errors and refusals, word for word, code
// for code.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { main as wholeCommandLine } from '../../src/cli/main.js';
import { main as serveCommandLine } from '../../src/cli/serve-main.js';
import { ce, CE_BIN, type CeRun } from '../helpers/run-ce.js';

const dir = mkdtempSync(path.join(tmpdir(), 'ce-serve-main-'));
const binary = path.join(dir, 'picture.md');
writeFileSync(binary, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]));

async function run(main: typeof wholeCommandLine, args: string[]): Promise<CeRun> {
  let stdout = '';
  let stderr = '';
  const code = await main([process.execPath, CE_BIN, ...args], {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    env: process.env,
  });
  return { code, stdout, stderr };
}

const cases: string[][] = [
  ['serve', '--help'],
  ['serve', '-h'],
  ['serve'],
  ['serve', '--bogus'],
  ['serve', 'notes.md', '--port', 'many'],
  ['serve', 'notes.md', '--port', '70000', '--json'],
  ['serve', 'notes.md', '--log-level', 'loud'],
  ['serve', 'notes.md', '--max-streams', '0'],
  ['serve', 'notes.md', '--tls-cert', 'room.crt'],
  ['serve', path.join(dir, 'missing.md')],
  ['serve', path.join(dir, 'missing.md'), '--json'],
  ['serve', binary, '--json'],
  ['serve', 'a.md', 'b.md'],
];

test.each(cases.map((args) => [args.join(' '), args]))(
  'ce %s: the serve-only command line answers as the whole one does',
  async (_, args) => {
    const whole = await run(wholeCommandLine, args as string[]);
    const own = await run(serveCommandLine, args as string[]);
    expect(own).toEqual(whole);
    // Each case is one the room refuses or a help: nothing here starts a room.
    expect(whole.code === 0 ? whole.stdout : whole.stderr).not.toBe('');
  },
);

test('the ce binary runs ce serve on the serve-only command line, and other commands on the whole one', async () => {
  const [serveHelp, serveUsage, statusHelp] = await Promise.all([
    ce(['serve', '--help']),
    ce(['serve', '--bogus']),
    ce(['status', '--help']),
  ]);
  expect(serveHelp).toEqual(await run(wholeCommandLine, ['serve', '--help']));
  expect(serveUsage).toEqual(await run(wholeCommandLine, ['serve', '--bogus']));
  expect(statusHelp).toEqual(await run(wholeCommandLine, ['status', '--help']));
});
