// A whole handoff and a whole proposal with ce alone: init, participants, the
// handoff from create to a decision (a question and its answer on the way; a
// result as text, from a file, or an error), a proposal from the full text or
// a diff to the file on disk, the history and the artifact; and the `more:`
// line of a paged list, which runs as printed. Plain output is what people
// read; --json is checked where the values matter.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, test } from 'vitest';
import type {
  DetailedTask,
  HandoffCompleteOutput,
  HandoffCreateOutput,
  HandoffListOutput,
  HandoffRequestInputOutput,
  HandoffTaskOutput,
  ProposalOutput,
  WorkspaceHistoryOutput,
} from '../../generated/types.js';
import { tempDir } from '../helpers/room.js';
import { ce, failedWith, failedWithJson, okJson, okPlain, words, type CeRun } from '../helpers/run-ce.js';

const SLOW = { timeout: 120_000 };
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface CeRoom {
  dir: string;
  file: string;
  /** Runs `ce` with the words of `line`, `{file}` and `{dir}` being this room's. */
  run(line: string): Promise<CeRun>;
}

/** A new room on `notes.md` holding `text`, made with ce init, and its participants added with ce. */
async function newRoom(text: string, participants: string[]): Promise<CeRoom> {
  const dir = tempDir();
  dirs.push(dir);
  const file = path.join(dir, 'notes.md');
  writeFileSync(file, text);
  const run = (line: string) => ce(words(line).map((word) => word.replaceAll('{file}', file).replaceAll('{dir}', dir)));
  const made = okPlain(await run('init {file}'));
  if (!made.startsWith('notes.md is now a room\n')) throw new Error(`ce init said: ${made}`);
  for (const name of participants) {
    const added = okPlain(await run(`participant add {file} ${name}`));
    if (added !== `added participant ${name}\n`) throw new Error(`ce participant add said: ${added}`);
  }
  return { dir, file, run };
}

/** The value of `key: value` in a record ce printed. */
const field = (text: string, key: string): string | undefined => new RegExp(`^${key}: +(.*)$`, 'm').exec(text)?.[1];

/** The header and rows of the table ce printed, each split into its columns. */
const rows = (text: string): string[][] =>
  text
    .split('\n\n')[0]!
    .trimEnd()
    .split('\n')
    .map((row) => row.split(/ {2,}/));

/** The words of the `more:` line that names the next page; undefined when there is none. */
const moreLine = (text: string): string[] | undefined => /^more: (.*)$/m.exec(text)?.[1]!.split(' ');

/** Runs a printed `ce ...` line as it is. */
const runPrinted = (line: string[]) => ce(line.slice(1));

describe.concurrent('with ce alone', () => {
  test('a handoff from its creation to its approval, with a question answered on the way', SLOW, async ({ expect }) => {
    const { file, run } = await newRoom('# Notes\n', ['alice', 'bob', 'carol']);

    const created = okPlain(
      await run('handoff-create {file} --participant alice --summary "Proofread the intro" --assignee bob'),
    );
    const handoff = /^created handoff (ho_\S+) for bob$/m.exec(created)?.[1];
    const task = /^(tk_\S+) \(working\)$/.exec(field(created, 'task') ?? '')?.[1];
    expect({ handoff, task }).toEqual({ handoff: expect.any(String), task: expect.any(String) });
    expect(['status', 'owner', 'assignee'].map((key) => field(created, key))).toEqual(['open', 'alice', 'bob']);

    const accepted = okPlain(await run(`handoff-accept {file} ${handoff} --participant bob`));
    expect(accepted.split('\n')[0]).toBe(`accepted handoff ${handoff}; its task is working`);
    expect(field(accepted, 'status')).toBe('accepted');

    const asked = okJson<HandoffRequestInputOutput>(
      await run(`handoff-request-input {file} ${handoff} --participant bob --message "British or American?" --json`),
    );
    const key = asked.key;
    expect(asked).toMatchObject({ key: expect.stringMatching(/^in_/), task: { status: 'input_required' } });

    // The owner sees the question on the task; anyone else sees no task at all.
    const [waiting, other] = await Promise.all([
      run(`task {file} ${task} --participant alice`),
      run(`task {file} ${task} --participant carol`),
    ]);
    expect(field(okPlain(waiting), 'status')).toBe('input_required');
    expect(field(okPlain(waiting), 'input requests')).toBe(`${key}: British or American?`);
    failedWith(other, 1, /^ce: unknown task$/m);

    // The answer puts the task back to work, and is kept on the handoff.
    expect(okPlain(await run(`task-answer {file} ${task} --participant alice --key ${key} --answer British`))).toBe(
      `answered ${key}; task ${task} is working\n`,
    );
    const [working, answered] = await Promise.all([
      run(`task {file} ${task} --participant bob --json`),
      run(`handoff {file} ${handoff} --json`),
    ]);
    expect(okJson<DetailedTask>(working).status).toBe('working');
    expect(okJson<HandoffTaskOutput>(answered).handoff.inputs).toEqual([
      expect.objectContaining({
        key,
        requested_by: 'bob',
        answered_by: 'alice',
        response: { action: 'accept', content: { answer: 'British' } },
      }),
    ]);

    const completed = okPlain(
      await run(`handoff-complete {file} ${handoff} --participant bob --result-text "Proofread; two fixes proposed"`),
    );
    expect(completed.split('\n')[0]).toBe(`completed handoff ${handoff}: its result is ready for an approver`);
    expect(['status', 'result'].map((key) => field(completed, key))).toEqual([
      'result_ready',
      'Proofread; two fixes proposed',
    ]);

    const approved = okPlain(await run(`handoff-approve {file} ${handoff} --participant alice --note Thanks`));
    expect(approved.split('\n')[0]).toBe(`approved handoff ${handoff}`);
    expect(field(approved, 'decision')).toMatch(/^approved by alice at \S+: Thanks$/);

    // Every change of the handoff, oldest first, with who made it; and a page at a time.
    const [events, firstTwo] = await Promise.all([
      run(`handoff-events {file} ${handoff}`),
      run(`handoff-events {file} ${handoff} --limit 2`),
    ]);
    const table = rows(okPlain(events));
    expect(table[0]).toEqual(['EVENT', 'AT', 'TYPE', 'ACTOR', 'PAYLOAD']);
    expect(table.slice(1).map(([, , type, actor]) => [type, actor])).toEqual([
      ['handoff.created', 'alice'],
      ['handoff.accepted', 'bob'],
      ['task.input_required', 'bob'],
      ['task.input_received', 'alice'],
      ['handoff.result_ready', 'bob'],
      ['handoff.approved', 'alice'],
    ]);
    const ids = table.slice(1).map(([id]) => id!);
    const next = moreLine(okPlain(firstTwo));
    expect(next).toEqual(['ce', 'handoff-events', file, handoff, '--limit', '2', '--after', ids[1]]);
    expect(
      rows(okPlain(await runPrinted(next!)))
        .slice(1)
        .map(([id]) => id),
    ).toEqual(ids.slice(2, 4));
  });

  test('a result from a file, rejected; an error, which cancels the handoff', SLOW, async ({ expect }) => {
    const { dir, run } = await newRoom('# Notes\n', ['alice', 'bob', 'carol']);
    const result = {
      content: [{ type: 'text', text: 'Two fixes: "recieve", "seperate"' }],
      structuredContent: { fixes: 2 },
    };
    writeFileSync(path.join(dir, 'result.json'), JSON.stringify(result));
    const create = async (line: string) => okJson<HandoffCreateOutput>(await run(`${line} --json`)).handoff;
    const spelling = await create('handoff-create {file} --participant alice --summary Spell-check --assignee bob');
    const links = await create('handoff-create {file} --participant alice --summary "Check the links"');
    okPlain(await run(`handoff-accept {file} ${spelling.handoff_id} --participant bob`));
    okPlain(await run(`handoff-accept {file} ${links.handoff_id} --participant carol`));

    // A CallToolResult as JSON, stored as it is on the task and the handoff.
    const done = okJson<HandoffCompleteOutput>(
      await run(
        `handoff-complete {file} ${spelling.handoff_id} --participant bob --result-file {dir}/result.json --json`,
      ),
    );
    expect(done).toMatchObject({
      already_completed: false,
      handoff: { status: 'result_ready', result },
      task: { status: 'completed', result },
    });
    const shown = okPlain(await run(`task {file} ${spelling.task_id} --participant alice`));
    expect(shown).toMatch(/^result: +Two fixes: "recieve", "seperate"\n +structured: \{"fixes":2\}$/m);
    const rejected = okPlain(
      await run(`handoff-reject {file} ${spelling.handoff_id} --participant alice --note "Missed the second section"`),
    );
    expect(rejected.split('\n')[0]).toBe(`rejected handoff ${spelling.handoff_id}`);
    expect(field(rejected, 'decision')).toMatch(/^rejected by alice at \S+: Missed the second section$/);

    // An error fails the task and cancels the handoff: there is nothing to approve.
    const failed = okPlain(
      await run(
        `handoff-complete {file} ${links.handoff_id} --participant carol --error-message "Cannot reach the site"`,
      ),
    );
    expect(failed.split('\n')[0]).toBe(`completed handoff ${links.handoff_id} with an error: it is cancelled`);
    expect(field(failed, 'error')).toBe('-32603 Cannot reach the site');
    const [failedTask, notReady] = await Promise.all([
      run(`task {file} ${links.task_id} --participant alice --json`),
      run(`handoff-approve {file} ${links.handoff_id} --participant alice --json`),
    ]);
    expect(okJson<DetailedTask>(failedTask)).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'Cannot reach the site' },
    });
    failedWithJson(notReady, 'conflict', new RegExp(`^handoff ${links.handoff_id} is cancelled, not result_ready$`));
  });

  test(
    'proposals: the full text or a diff, accepted into the file, a stale one rejected, one withdrawn',
    SLOW,
    async ({ expect }) => {
      const { dir, file, run } = await newRoom('# Notes\n\nFirst line.\n', ['alice', 'bob', 'carol']);
      // A byte order mark, CRLF line ends and non-ASCII text: the file gets exactly these bytes.
      const second = '\uFEFF# Notes\r\n\r\nFirst line.\r\nSecond line: naïve café.\r\n';
      writeFileSync(path.join(dir, 'second.md'), second);
      writeFileSync(
        path.join(dir, 'change.diff'),
        '--- notes.md\n+++ notes.md\n@@ -1,3 +1,3 @@\n # Notes\n \n-First line.\n+The first line.\n',
      );
      writeFileSync(path.join(dir, 'third.md'), 'Third.\n');

      const [text, read] = await Promise.all([run('artifact {file}'), run('artifact {file} --json')]);
      expect(okPlain(text)).toBe('# Notes\n\nFirst line.\n');
      expect(okJson(read)).toMatchObject({ revision: { number: 1, source: 'initial' }, unrecorded_edit: false });

      const proposed = okPlain(
        await run('propose {file} --participant bob --base 1 --content-file {dir}/second.md --summary "A second line"'),
      );
      const first = /^proposed (pr_\S+) against revision 1$/m.exec(proposed)?.[1];
      expect(first).toMatch(/^pr_/);
      const byDiff = okJson<ProposalOutput>(
        await run(
          'propose {file} --participant carol --base 1 --diff-file {dir}/change.diff --summary "A change" --json',
        ),
      ).proposal;
      expect(byDiff).toMatchObject({ status: 'open', author: 'carol', content: '# Notes\n\nThe first line.\n' });

      // A proposal with its diff against its base.
      const [shown, shownJson] = await Promise.all([
        run(`proposal {file} ${first}`),
        run(`proposal {file} ${byDiff.proposal_id} --json`),
      ]);
      const proposal = okPlain(shown);
      expect(['status', 'author', 'base', 'summary'].map((key) => field(proposal, key))).toEqual([
        'open',
        'bob',
        '1',
        'A second line',
      ]);
      expect(proposal).toContain(`--- notes.md\trevision 1\n+++ notes.md\tproposal ${first}\n`);
      expect(proposal).toMatch(/^\+Second line: naïve café\.\r?$/m);
      expect(okJson<ProposalOutput>(shownJson).proposal.diff).toContain('-First line.\n+The first line.\n');

      // Accepted: the file on disk holds the proposed bytes.
      expect(okPlain(await run(`proposal-approve {file} ${first} --participant alice --note "Looks right"`))).toBe(
        `accepted proposal ${first} as revision 2; the file is written\n`,
      );
      expect(readFileSync(file)).toEqual(Buffer.from(second, 'utf8'));
      expect(readFileSync(file).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));

      // The diff's base is no longer current: refused, naming the current revision; then rejected.
      const stale = failedWithJson(
        await run(`proposal-approve {file} ${byDiff.proposal_id} --participant alice --json`),
        'conflict',
        /is based on revision 1, but the artifact is at revision 2/,
      );
      expect(stale).toMatchObject({ details: { base_revision: 1, current_revision: 2 } });
      expect(readFileSync(file)).toEqual(Buffer.from(second, 'utf8'));
      expect(okPlain(await run(`proposal-reject {file} ${byDiff.proposal_id} --participant alice --note Stale`))).toBe(
        `rejected proposal ${byDiff.proposal_id}\n`,
      );

      // Only its author withdraws a proposal.
      const third = okJson<ProposalOutput>(
        await run(
          'propose {file} --participant carol --base 2 --content-file {dir}/third.md --summary "A third line" --json',
        ),
      ).proposal;
      failedWith(
        await run(`proposal-withdraw {file} ${third.proposal_id} --participant bob`),
        1,
        new RegExp(`^ce: only the author \\(carol\\) may withdraw proposal ${third.proposal_id}$`, 'm'),
      );
      expect(okPlain(await run(`proposal-withdraw {file} ${third.proposal_id} --participant carol`))).toBe(
        `withdrew proposal ${third.proposal_id}\n`,
      );

      // The history names the author and the approver; the artifact is the file as it is.
      const [history, historyJson, artifact, artifactJson, withdrawn] = await Promise.all([
        run('history {file}'),
        run('history {file} --json'),
        run('artifact {file}'),
        run('artifact {file} --json'),
        run(`proposal {file} ${third.proposal_id} --json`),
      ]);
      const entries = rows(okPlain(history));
      expect(entries[0]).toEqual(['ID', 'AT', 'KIND', 'ACTOR', 'REVISION', 'AUTHOR', 'APPROVER', 'DETAIL']);
      expect(entries.find((row) => row[4] === '2 (proposal)')?.slice(2)).toEqual([
        'revision',
        'alice',
        '2 (proposal)',
        'bob',
        'alice',
        `proposal ${first}; note: Looks right`,
      ]);
      const entry = okJson<WorkspaceHistoryOutput>(historyJson).entries.find((e) => e.revision?.number === 2);
      expect(entry?.revision).toMatchObject({
        source: 'proposal',
        author: 'bob',
        approver: 'alice',
        proposal_id: first,
      });
      expect(okPlain(artifact)).toBe(second);
      expect(okJson(artifactJson)).toMatchObject({
        revision: { number: 2, author: 'bob', approver: 'alice', proposal_id: first },
        content: second,
        unrecorded_edit: false,
      });
      expect(okJson<ProposalOutput>(withdrawn).proposal).toMatchObject({ status: 'withdrawn', decided_by: 'carol' });
    },
  );

  test(
    'the more: line of a paged list keeps the flags given, and running it gives the next page',
    SLOW,
    async ({ expect }) => {
      const { file, run } = await newRoom('# Notes\n', ['alice', 'bob']);
      const made: string[] = [];
      for (const summary of ['"Open one"', 'Taken', '"Open two"', '"Open three"']) {
        const created = await run(`handoff-create {file} --participant alice --summary ${summary} --json`);
        made.push(okJson<HandoffCreateOutput>(created).handoff.handoff_id);
      }
      okPlain(await run(`handoff-accept {file} ${made[1]} --participant bob`));
      const [openOne, , openTwo, openThree] = made;

      const [page, pageJson] = await Promise.all([
        run('handoffs {file} --status open --limit 1'),
        run('handoffs {file} --status open --limit 1 --json'),
      ]);
      const first = okPlain(page);
      expect(
        rows(first)
          .slice(1)
          .map(([id, status]) => [id, status]),
      ).toEqual([[openThree, 'open']]);
      const cursor = okJson<HandoffListOutput>(pageJson).next_cursor;
      const next = moreLine(first);
      expect(next).toEqual(['ce', 'handoffs', file, '--status', 'open', '--limit', '1', '--cursor', cursor]);

      // Each more: line run as printed: newest first, the accepted one left out, none after the last page.
      const second = okPlain(await runPrinted(next!));
      expect(
        rows(second)
          .slice(1)
          .map(([id]) => id),
      ).toEqual([openTwo]);
      const last = okPlain(await runPrinted(moreLine(second)!));
      expect(
        rows(last)
          .slice(1)
          .map(([id]) => id),
      ).toEqual([openOne]);
      expect(moreLine(last)).toBeUndefined();
    },
  );
});
