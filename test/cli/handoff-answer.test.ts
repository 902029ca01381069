// Answering by what the owner holds, over the built binary: ce handoff-answer
// takes the handoff id, the key only when more than one question is open, and
// ce handoff shows each question with its answer, or how to answer it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import {
  acceptHandoff,
  addParticipant,
  createHandoff,
  LOCAL_OPERATOR,
  openRoom,
  requestHandoffInput,
  syncArtifact,
} from '../helpers/engine.js';
import type { InputOf } from '../../generated/operations.js';
import { caller, tempDir } from '../helpers/room.js';
import { ce, type CeRun } from '../helpers/run-ce.js';

let file: string;
let handoffId: string;
let keys: string[];
beforeAll(() => {
  file = path.join(tempDir(), 'notes.md');
  writeFileSync(file, '# Notes\n');
  const room = openRoom(file, { command: 'vitest' });
  try {
    syncArtifact(room);
    for (const name of ['alice', 'bob']) addParticipant(room, LOCAL_OPERATOR, { name });
    const alice = caller('alice', ['read', 'write']);
    const bob = caller('bob', ['read', 'write']);
    handoffId = createHandoff(room, alice, { summary: 'Proofread', assignee: 'bob' }).handoff.handoff_id;
    acceptHandoff(room, bob, { handoff_id: handoffId });
    keys = ['Which spelling?', 'How long?'].map(
      (message) => requestHandoffInput(room, bob, { handoff_id: handoffId, message }).key,
    );
  } finally {
    room.close();
  }
});

const result = (run: CeRun) => ({ code: run.code, stdout: run.stdout, stderr: run.stderr });

test('two questions open: the key is asked for, listing them; an unknown key is refused; exit 1, nothing answered', async () => {
  expect(
    result(await ce(['handoff-answer', file, handoffId, '--participant', 'alice', '--answer', 'British'])),
  ).toEqual({
    code: 1,
    stdout: '',
    stderr: `ce: --key is needed: handoff ${handoffId} has 2 open questions: ${keys[0]} ("Which spelling?"), ${keys[1]} ("How long?")\n`,
  });
  expect(
    result(
      await ce(['handoff-answer', file, handoffId, '--participant', 'alice', '--key', 'in_nope', '--answer', 'x']),
    ),
  ).toEqual({
    code: 1,
    stdout: '',
    stderr: `ce: --key in_nope is not an open question of handoff ${handoffId}; open: ${keys[0]} ("Which spelling?"), ${keys[1]} ("How long?")\n`,
  });
});

test('answered by key, then by the handoff alone; ce handoff shows the answers, and how to answer what is open', async () => {
  const first = await ce([
    'handoff-answer',
    file,
    handoffId,
    '--participant',
    'alice',
    '--key',
    keys[1]!,
    '--answer',
    'Two pages',
  ]);
  expect(first.code).toBe(0);
  expect(first.stdout.split('\n')[0]).toBe(`answered ${keys[1]}; other questions are still open`);
  const shown = await ce(['handoff', file, handoffId]);
  expect(shown.stdout).toContain(
    [
      `inputs:      ${keys[0]}: Which spelling? (asked by bob; not answered)`,
      `               answer: ce handoff-answer ${file} ${handoffId} --key ${keys[0]} --answer TEXT --participant alice`,
      `             ${keys[1]}: How long? (asked by bob; answered by alice)`,
      '               answer: Two pages',
    ].join('\n'),
  );
  const last = await ce(['handoff-answer', file, handoffId, '--participant', 'alice', '--answer', 'British']);
  expect(last.stdout.split('\n')[0]).toBe(`answered ${keys[0]}; the task works again`);
  expect(result(await ce(['handoff-answer', file, handoffId, '--participant', 'alice', '--answer', 'Again']))).toEqual({
    code: 1,
    stdout: '',
    stderr: `ce: handoff ${handoffId} has no open question (its task is working)\n`,
  });
});

test('ce task-answer with a key that is not open: nothing answered, said so, exit 1', async () => {
  const shown = await ce(['handoff', file, handoffId, '--participant', 'alice', '--json']);
  const taskId = (JSON.parse(shown.stdout) as { task: { taskId: string } }).task.taskId;
  expect(
    result(await ce(['task-answer', file, taskId, '--participant', 'alice', '--key', 'in_nope', '--answer', 'x'])),
  ).toEqual({
    code: 1,
    stdout: '',
    stderr: `ce: nothing answered: task ${taskId} has no open input request with that key (ce task ${file} ${taskId} --participant NAME lists them)\n`,
  });
});

/** A room of its own where bob accepted alice's handoff and asked `question`: its file, the handoff and the key. */
function askedInRoomOfItsOwn(question: Omit<InputOf<'requestHandoffInput'>, 'handoff_id'>) {
  const formFile = path.join(tempDir(), 'notes.md');
  writeFileSync(formFile, '# Notes\n');
  const room = openRoom(formFile, { command: 'vitest' });
  try {
    syncArtifact(room);
    for (const name of ['alice', 'bob']) addParticipant(room, LOCAL_OPERATOR, { name });
    const bob = caller('bob', ['read', 'write']);
    const id = createHandoff(room, caller('alice', ['read', 'write']), { summary: 'Count', assignee: 'bob' }).handoff
      .handoff_id;
    acceptHandoff(room, bob, { handoff_id: id });
    return { formFile, id, key: requestHandoffInput(room, bob, { handoff_id: id, ...question }).key };
  } finally {
    room.close();
  }
}

test('a question with a form of its own: ce handoff lists its fields, and --content-file answers it where --answer cannot', async () => {
  const { formFile, id, key } = askedInRoomOfItsOwn({
    message: 'How many, and which parts?',
    requested_schema: {
      type: 'object',
      properties: {
        n: { type: 'integer', title: 'How many' },
        parts: { type: 'array', items: { type: 'string', enum: ['intro', 'end'] } },
      },
      required: ['n'],
    },
  });
  const shown = await ce(['handoff', formFile, id]);
  expect(shown.stdout).toContain(
    [
      `inputs:      ${key}: How many, and which parts? (asked by bob; not answered)`,
      '               field n (integer, required): How many',
      '               field parts (array, of intro, end)',
      `               answer: ce handoff-answer ${formFile} ${id} --key ${key} --content-file FILE.json --participant alice`,
    ].join('\n'),
  );
  const answer = (...flags: string[]) => ce(['handoff-answer', formFile, id, '--participant', 'alice', ...flags]);
  const json = (content: unknown) => {
    const at = path.join(tempDir(), 'answer.json');
    writeFileSync(at, JSON.stringify(content));
    return at;
  };
  expect(result(await answer())).toEqual({ code: 2, stdout: '', stderr: 'ce: missing --answer or --content-file\n' });
  expect(result(await answer('--answer', '3', '--content-file', json({ n: 3 })))).toEqual({
    code: 2,
    stdout: '',
    stderr: 'ce: give one of --answer or --content-file, not both\n',
  });
  expect(result(await answer('--answer', '3'))).toEqual({
    code: 1,
    stdout: '',
    stderr: 'ce: --answer is not a field of the form (it asks for n, parts); response.content.n is required\n',
  });
  expect(result(await answer('--content-file', json({ n: '3', parts: ['middle'] })))).toEqual({
    code: 1,
    stdout: '',
    stderr:
      'ce: --content-file: the file\'s "n" must be a number; --content-file: the file\'s "parts" holds "middle", which is not one of "intro", "end"\n',
  });
  const done = await answer('--content-file', json({ n: 3, parts: ['end'] }));
  expect(done.code).toBe(0);
  expect(done.stdout.split('\n')[0]).toBe(`answered ${key}; the task works again`);
  expect((await ce(['handoff', formFile, id])).stdout).toContain(
    [
      `${key}: How many, and which parts? (asked by bob; answered by alice)`,
      '               n: 3',
      '               parts: ["end"]',
    ].join('\n'),
  );
});

test("ce task lists a request's own fields, and ce task-answer --content-file fills them in; one of --answer or --content-file", async () => {
  const { formFile, id } = askedInRoomOfItsOwn({
    key: 'count',
    message: 'How many?',
    requested_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  });
  const shown = await ce(['handoff', formFile, id, '--participant', 'alice', '--json']);
  const taskId = (JSON.parse(shown.stdout) as { task: { taskId: string } }).task.taskId;
  expect((await ce(['task', formFile, taskId, '--participant', 'alice'])).stdout).toContain(
    ['input requests: count: How many?', '                  field n (integer, required)'].join('\n'),
  );
  const answer = (...flags: string[]) =>
    ce(['task-answer', formFile, taskId, '--participant', 'alice', '--key', 'count', ...flags]);
  const file = path.join(tempDir(), 'answer.json');
  writeFileSync(file, '{"n": 4}');
  expect(result(await answer())).toEqual({ code: 2, stdout: '', stderr: 'ce: missing --answer or --content-file\n' });
  expect(result(await answer('--answer', '4', '--content-file', file))).toEqual({
    code: 2,
    stdout: '',
    stderr: 'ce: give one of --answer or --content-file, not both\n',
  });
  const done = await answer('--content-file', file);
  expect(done.code).toBe(0);
  expect(done.stdout.split('\n')[0]).toBe(`answered count; task ${taskId} is working`);
});
