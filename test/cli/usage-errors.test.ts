// ce's usage errors in the user's terms, over the built binary: a flag left
// out is named by its flag, two exclusive flags are said as such, an unknown
// flag is named with the closest known one, or the one that sets the field it
// names; and the exit codes hold: 0 done, 1 refused by the room, 2 a usage
// error, 3 the room not reached.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { addParticipant, LOCAL_OPERATOR, openRoom, syncArtifact } from '../helpers/engine.js';
import { tempDir } from '../helpers/room.js';
import { ce, type CeRun } from '../helpers/run-ce.js';

let file: string;
let draft: string;
beforeAll(() => {
  const dir = tempDir();
  file = path.join(dir, 'notes.md');
  draft = path.join(dir, 'draft.md');
  writeFileSync(file, '# Notes\n');
  writeFileSync(draft, '# Notes, changed\n');
  const room = openRoom(file, { command: 'vitest' });
  syncArtifact(room);
  addParticipant(room, LOCAL_OPERATOR, { name: 'bob' });
  room.close();
});

/** Exactly this on stderr, nothing on stdout, and this exit code. */
const said = (run: CeRun, code: number, stderr: string) =>
  expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code, stdout: '', stderr });

describe('exit 2: a usage error names the flags as typed', () => {
  test.each([
    [
      'an unknown flag, with the closest known one',
      ['handoff-create', '{file}', '--participant', 'bob', '--summery', 'Proofread'],
      "ce: unknown option '--summery' (Did you mean --summary?)\n",
    ],
    [
      'a flag typed as the field it sets, which commander does not find by spelling',
      ['session', 'create', '{file}', '--participant', 'bob', '--capabilities', 'read'],
      "ce: unknown option '--capabilities' (Did you mean --caps?)\n",
    ],
    [
      'the same with its value after =',
      ['propose', '{file}', '--participant', 'bob', '--base-revision=1', '--summary', 'Fix'],
      "ce: unknown option '--base-revision=1' (Did you mean --base?)\n",
    ],
    ['an unknown flag like no field or flag', ['handoffs', '{file}', '--bogus'], "ce: unknown option '--bogus'\n"],
    [
      "a group's command typed with a hyphen, as the others are named",
      ['participant-add', '{file}', 'carol'],
      "ce: unknown command 'participant-add' (Did you mean participant add?)\n",
    ],
    [
      'a hyphenated command typed as a group’s, with a space',
      ['handoff', 'create', '{file}', '--participant', 'bob', '--summary', 'Proofread'],
      "ce: unknown command 'handoff create' (Did you mean handoff-create?)\n",
    ],
    ['a required flag left out', ['handoff-create', '{file}', '--participant', 'bob'], 'ce: missing --summary\n'],
    ['two required flags left out', ['session', 'create', '{file}'], 'ce: missing --participant and --caps\n'],
    [
      'an answer given neither way',
      ['task-answer', '{file}', 'tk_x', '--participant', 'bob', '--key', 'k'],
      'ce: missing --answer or --content-file\n',
    ],
    [
      'none of the flags of which one is needed',
      ['propose', '{file}', '--participant', 'bob', '--base', '1', '--summary', 'Fix'],
      'ce: missing --content-file or --diff-file\n',
    ],
    [
      'both of two exclusive flags',
      [
        'propose',
        '{file}',
        '--participant',
        'bob',
        '--base',
        '1',
        '--summary',
        'Fix',
        '--content-file',
        '{draft}',
        '--diff-file',
        '{draft}',
      ],
      'ce: give one of --content-file or --diff-file, not both\n',
    ],
    [
      'none of three, two standing for one field',
      ['handoff-complete', '{file}', 'ho_x', '--participant', 'bob'],
      'ce: missing --result-text, --result-file or --error-message\n',
    ],
    [
      'two of three',
      [
        'handoff-complete',
        '{file}',
        'ho_x',
        '--participant',
        'bob',
        '--result-text',
        'Done',
        '--result-file',
        '{draft}',
      ],
      'ce: give one of --result-text, --result-file or --error-message, not --result-text and --result-file\n',
    ],
    [
      '--participant left out where FILE names the room',
      ['handoff-create', '{file}', '--summary', 'x'],
      'ce: missing --participant (who acts, with FILE)\n',
    ],
    [
      '--participant left out of ce edit, said as every command says it',
      ['edit', '{file}', '--summary', 'x'],
      'ce: missing --participant (who acts, with FILE)\n',
    ],
    [
      '--participant left out of ce open, the same',
      ['open', '{file}'],
      'ce: missing --participant (who acts, with FILE)\n',
    ],
    [
      'a change given nothing to change',
      ['settings-update', '{file}'],
      'ce: missing --allow-host, --allow-origin or --four-eyes: give at least one, what to change\n',
    ],
  ])('%s', async (_case, args, stderr) => {
    said(await ce(args.map((a) => a.replace('{file}', file).replace('{draft}', draft))), 2, stderr);
  });
});

test('exit 1: the room refused; exit 0: done', async () => {
  said(await ce(['handoff', file, 'ho_made_up']), 1, 'ce: unknown handoff ho_made_up\n');
  const done = await ce(['handoffs', file]);
  expect({ code: done.code, stdout: done.stdout, stderr: done.stderr }).toEqual({
    code: 0,
    stdout: 'no handoffs\n',
    stderr: '',
  });
});

test('exit 3: the room was not reached, and nothing was sent', async () => {
  said(
    await ce(['handoffs', '--url', 'http://127.0.0.1:9'], { env: { CE_TOKEN: 'st_whatever' } }),
    3,
    'ce: nothing listens at http://127.0.0.1:9; nothing was sent\n',
  );
});
