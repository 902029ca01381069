// JSON files named on ce's command line are outside JSON like a request
// body: too deep, a lone surrogate or a prototype key is a usage error
// naming the flag and the file (exit 2), and nothing reaches the room.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { acceptHandoff, createHandoff, openRoom, syncArtifact, addParticipant, LOCAL_OPERATOR } from '../helpers/engine.js';
import { caller, tempDir } from '../helpers/room.js';
import { ce, failedWith, okJson } from '../helpers/run-ce.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

test('--result-file: nested past 64 levels, a lone surrogate or a prototype key is refused naming the file', async () => {
  const dir = tempDir();
  dirs.push(dir);
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  const room = openRoom(file, { command: 'vitest' });
  let handoffId: string;
  try {
    syncArtifact(room);
    for (const name of ['alice', 'bob']) addParticipant(room, LOCAL_OPERATOR, { name });
    handoffId = createHandoff(room, caller('alice'), { summary: 'x', assignee: 'bob' }).handoff.handoff_id;
    acceptHandoff(room, caller('bob'), { handoff_id: handoffId });
  } finally {
    room.close();
  }
  const files = {
    deep: `{"content":[],"structuredContent":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
    surrogate: '{"content":[{"type":"text","text":"half \\ud83d"}]}',
    proto: '{"content":[],"__proto__":{"isError":true}}',
    fine: '{"content":[{"type":"text","text":"done \\ud83d\\ude80"}]}',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, `${name}.json`), text);
  const complete = (name: string) =>
    ce(['handoff-complete', file, handoffId, '--participant', 'bob', '--result-file', path.join(dir, `${name}.json`)]);

  failedWith(await complete('deep'), 2, /--result-file .*deep\.json nests deeper than 64 levels of objects and arrays$/m);
  failedWith(
    await complete('surrogate'),
    2,
    /--result-file .*surrogate\.json: content\.0\.text is not valid Unicode: it holds a lone surrogate \(U\+D83D\) at index 5$/m,
  );
  failedWith(await complete('proto'), 2, /--result-file .*proto\.json has a forbidden key __proto__ \(at \/__proto__\)/m);
  // Nothing reached the room: the handoff still waits for its result, which a good file gives.
  const done = okJson<{ handoff: { status: string; result: { content: { text: string }[] } } }>(
    await ce(['handoff-complete', file, handoffId, '--participant', 'bob', '--result-file', path.join(dir, 'fine.json'), '--json']),
  );
  expect(done.handoff.status).toBe('result_ready');
  expect(done.handoff.result.content[0]!.text).toBe('done 🚀');
});
