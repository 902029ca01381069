// ce edit through the real binary: the file's text in the editor that
// EDITOR names (here a script that edits it, or one that leaves it), and
// what was saved proposed against the revision opened; on a room here and
// on a room reached by --url with a session token.
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, onTestFinished, test } from 'vitest';
import { ceServe } from '../helpers/ce-serve.js';
import { tempDir } from '../helpers/room.js';
import { ce, failedWith, okJson, okPlain } from '../helpers/run-ce.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A room with alice, and two editors: one that adds a line to the file it is given, one that saves nothing new. */
async function setUp() {
  const dir = tempDir();
  dirs.push(dir);
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n\nFirst line.\n');
  okPlain(await ce(['init', file]));
  okPlain(await ce(['participant', 'add', file, 'alice']));
  const adds = path.join(dir, 'adds-a-line.sh');
  writeFileSync(adds, '#!/bin/sh\nprintf "Added in the editor.\\n" >> "$1"\n');
  const leaves = path.join(dir, 'leaves-it.sh');
  writeFileSync(leaves, '#!/bin/sh\ntouch "$1"\n');
  for (const script of [adds, leaves]) chmodSync(script, 0o755);
  return { dir, file, adds, leaves };
}

test('what the editor saved is proposed against the revision opened; nothing changed proposes nothing', async () => {
  const { dir, file, adds, leaves } = await setUp();
  const env = (editor: string) => ({ env: { EDITOR: editor, VISUAL: '' } });

  const made = okJson<{
    proposed: boolean;
    proposal: { proposal_id: string; base_revision: number; content: string; summary: string };
  }>(await ce(['edit', file, '--participant', 'alice', '--summary', 'A line from the editor', '--json'], env(adds)));
  expect(made).toMatchObject({
    proposed: true,
    proposal: {
      base_revision: 1,
      content: '# Notes\n\nFirst line.\nAdded in the editor.\n',
      summary: 'A line from the editor',
      author: 'alice',
    },
  });
  expect(okPlain(await ce(['edit', file, '--participant', 'alice', '--summary', 'unused'], env(leaves)))).toBe(
    'no change, nothing proposed (revision 1 as it was)\n',
  );
  const listed = okJson<{ proposals: unknown[] }>(await ce(['proposals', file, '--json']));
  expect(listed.proposals).toHaveLength(1);

  // No editor named: said so, nothing proposed. A change with no terminal to ask for a summary: a usage error.
  failedWith(
    await ce(['edit', file, '--participant', 'alice'], { env: { EDITOR: '', VISUAL: '' } }),
    1,
    /set VISUAL or EDITOR/,
  );
  // Said before the editor opens, so that nothing typed there is lost.
  const ran = path.join(dir, 'the-editor-ran');
  const records = path.join(dir, 'records-it-ran.sh');
  writeFileSync(records, `#!/bin/sh\ntouch ${JSON.stringify(ran)}\nprintf "Typed.\\n" >> "$1"\n`);
  chmodSync(records, 0o755);
  failedWith(await ce(['edit', file, '--participant', 'alice'], env(records)), 2, /--summary is needed/);
  expect(existsSync(ran)).toBe(false);
  failedWith(await ce(['edit', file], env(adds)), 2, /--participant/);
  expect(okJson<{ proposals: unknown[] }>(await ce(['proposals', file, '--json'])).proposals).toHaveLength(1);
});

test('on a room reached by --url, as the session whose token is given', async () => {
  const { file, adds } = await setUp();
  const served = await ceServe(file);
  onTestFinished(served.kill);
  const { token } = okJson<{ token: string }>(
    await ce(['session', 'create', file, '--participant', 'alice', '--caps', 'read,write', '--json']),
  );
  const base = new URL(served.mcpUrl).origin;
  const made = okJson<{ proposal: { author: string; content: string } }>(
    await ce(['edit', '--url', base, '--summary', 'From afar', '--json'], {
      env: { EDITOR: adds, VISUAL: '', CE_TOKEN: token },
    }),
  );
  expect(made.proposal).toMatchObject({ author: 'alice', content: '# Notes\n\nFirst line.\nAdded in the editor.\n' });
  expect(await served.stop()).toBe(0);
});

test('an editor that removes the file it was given: said so, and nothing proposed', async () => {
  const { file } = await setUp();
  failedWith(
    await ce(['edit', file, '--participant', 'alice', '--summary', 'Gone'], { env: { EDITOR: 'rm', VISUAL: '' } }),
    1,
    /^ce: the edited file .*notes\.md is gone \(the editor, rm, removed or moved it\); nothing was proposed\n$/,
  );
  expect(okJson<{ proposals: unknown[] }>(await ce(['proposals', file, '--json'])).proposals).toEqual([]);
});

test('a summary the room would refuse is said before the editor opens', async () => {
  const { dir, file } = await setUp();
  const ran = path.join(dir, 'the-editor-ran');
  const records = path.join(dir, 'records-it-ran.sh');
  writeFileSync(records, `#!/bin/sh\ntouch ${JSON.stringify(ran)}\nprintf "Typed.\\n" >> "$1"\n`);
  chmodSync(records, 0o755);
  for (const summary of ['   ', 'a\u0001b']) {
    const run = await ce(['edit', file, '--participant', 'alice', '--summary', summary], {
      env: { EDITOR: records, VISUAL: '' },
    });
    failedWith(run, 1, /summary must/);
    expect(existsSync(ran)).toBe(false);
  }
});

test('a text over the proposal limit goes as a diff; a refusal keeps what was saved, and says where', async () => {
  const { dir, file, adds } = await setUp();
  const big = Array.from({ length: 12_000 }, (_, i) => `row ${i} of a text longer than a proposal may carry whole\n`);
  writeFileSync(file, big.join(''));
  okPlain(await ce(['init', file])); // records the outside edit as revision 2
  const made = okJson<{ proposal: { content: string; base_revision: number } }>(
    await ce(['edit', file, '--participant', 'alice', '--summary', 'One more line', '--json'], {
      env: { EDITOR: adds, VISUAL: '' },
    }),
  );
  expect(made.proposal).toMatchObject({ base_revision: 2, content: `${big.join('')}Added in the editor.\n` });
  // A NUL saved in the editor: refused by the room, and the text stays on disk for another try.
  const nul = path.join(dir, 'adds-a-nul.sh');
  writeFileSync(nul, '#!/bin/sh\nprintf "x\\000y\\n" >> "$1"\n');
  chmodSync(nul, 0o755);
  const refused = await ce(['edit', file, '--participant', 'alice', '--summary', 'NUL'], {
    env: { EDITOR: nul, VISUAL: '' },
  });
  failedWith(refused, 1, /NUL character .*; what you saved is kept in (\S+notes\.md)$/m);
  const kept = /kept in (\S+notes\.md)$/m.exec(refused.stderr)![1]!;
  onTestFinished(() => rmSync(path.dirname(kept), { recursive: true, force: true }));
  expect(readFileSync(kept, 'utf8')).toBe(`${big.join('')}x\0y\n`);
});
