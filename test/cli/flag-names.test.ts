// A refused value is named by the flag that gave it, over the built binary:
// a list flag's item (`--allow-origin`, not `allowed_origins.0`), and a
// file's text or JSON (`--content-file: the file's JSON must be object`, not
// `response.content`), as a flag whose value is the field's already is
// (`--expires-in must be >= 1`).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { addParticipant, LOCAL_OPERATOR, openRoom, syncArtifact } from '../helpers/engine.js';
import { tempDir } from '../helpers/room.js';
import { ce, failedWith, failedWithJson, words } from '../helpers/run-ce.js';

let file: string;
let dir: string;
beforeAll(() => {
  dir = tempDir();
  file = path.join(dir, 'notes.md');
  writeFileSync(file, '# Notes\n');
  writeFileSync(path.join(dir, 'array.json'), '[1]\n');
  writeFileSync(path.join(dir, 'wrong.json'), '{"content": 5}\n');
  writeFileSync(path.join(dir, 'big.md'), 'a'.repeat(600_000));
  const room = openRoom(file, { command: 'vitest' });
  syncArtifact(room);
  addParticipant(room, LOCAL_OPERATOR, { name: 'bob' });
  room.close();
});

test.each([
  [
    'settings-update {file} --allow-origin null',
    /^ce: --allow-origin must be an origin: http:\/\/ or https:\/\/, .* \(got "null"\)\n$/,
  ],
  [
    'settings-update {file} --allow-host "bad host"',
    /^ce: --allow-host must be a host name: NAME or NAME:PORT, .* \(got "bad host"\)\n$/,
  ],
  [
    'handoff-answer {file} ho_x --participant bob --content-file {dir}/array.json',
    /^ce: --content-file: the file's JSON must be object\n$/,
  ],
  [
    'task-answer {file} tk_x --participant bob --key in_x --content-file {dir}/array.json',
    /^ce: --content-file: the file's JSON must be object\n$/,
  ],
  [
    'handoff-complete {file} ho_x --participant bob --result-file {dir}/wrong.json',
    /^ce: --result-file: the file's "content" must be array\n$/,
  ],
  [
    'handoff-complete {file} ho_x --participant bob --error-message ""',
    /^ce: --error-message must NOT have fewer than 1 characters\n$/,
  ],
  [
    'propose {file} --participant bob --base 1 --content-file {dir}/big.md --summary Big',
    /^ce: --content-file: the file must NOT be larger than 524288 bytes as JSON \(limit 524288 bytes\)\n$/,
  ],
])('ce %s', async (line, said) => {
  failedWith(await ce(words(line.replaceAll('{file}', file).replaceAll('{dir}', dir))), 1, said);
});

test('with --json, the message names the flag and the details still point into the input', async () => {
  const error = failedWithJson(
    await ce(['settings-update', file, '--allow-origin', 'https://rooms.example,null', '--json']),
    'invalid_input',
    /^--allow-origin must be an origin: .* \(got "null"\)$/,
  );
  expect(error).toMatchObject({ details: { errors: [{ path: '/allowed_origins/1', keyword: 'pattern' }] } });
});
