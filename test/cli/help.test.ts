// Help that teaches, over the built binary: ce help TOPIC for the room's
// ideas, ce help COMMAND as COMMAND --help, required flags marked, a group
// that says what it holds, and completion scripts that complete.
import { execFileSync } from 'node:child_process';
import { expect, test } from 'vitest';
import type { ProposalListOutput } from '../../generated/types.js';
import { HELP_TOPICS } from '../../src/cli/help-topics.js';
import { proposalList } from '../../src/cli/render/room.js';
import { ce, CE_BIN, okPlain } from '../helpers/run-ce.js';

test.each(Object.keys(HELP_TOPICS))('ce help %s prints the topic, exit 0', async (topic) => {
  expect(okPlain(await ce(['help', topic]))).toBe(`${HELP_TOPICS[topic]}\n`);
});

test('ce help COMMAND is the command’s help; an unknown topic is a usage error listing the topics', async () => {
  const [help, flag, unknown, inGroup, inGroupFlag, group] = await Promise.all([
    ce(['help', 'propose']),
    ce(['propose', '--help']),
    ce(['help', 'handoff-stuff']),
    ce(['help', 'session', 'create']),
    ce(['session', 'create', '--help']),
    ce(['help', 'session']),
  ]);
  expect(okPlain(help)).toBe(okPlain(flag));
  // A command of a group by its words, as typed: ce help session create is ce session create --help.
  expect(okPlain(inGroup)).toBe(okPlain(inGroupFlag));
  expect(okPlain(group)).toMatch(/^the room's sessions: list, create, revoke$/m);
  expect({ code: unknown.code, stderr: unknown.stderr }).toEqual({
    code: 2,
    stderr:
      'ce: no help topic or command "handoff-stuff"; topics: handoffs, proposals, sessions (and every command: ce --help)\n',
  });
});

test('ce help proposals names the MERGES column’s values as ce proposals prints them', async () => {
  const said = okPlain(await ce(['help', 'proposals'])).replace(/\s+/g, ' ');
  expect(said).toContain(
    'MERGES: up to date, clean, conflicts, or already applied when the file already holds its changes',
  );
  // What ce proposals prints in that column.
  const listed = proposalList(
    {
      proposals: (['up_to_date', 'already_applied'] as const).map((status) => ({
        proposal_id: `pr_${status}`,
        status: 'open',
        mergeable: { status, revision: 1 },
        author: 'bob',
        base_revision: 1,
        revision: null,
        decided_by: null,
        created_at: '2026-12-04T09:47:33.337Z',
        summary: 'A change',
      })),
      next_cursor: null,
    } as unknown as ProposalListOutput,
    { room: 'notes.md', input: {}, more: () => '' },
  );
  expect(listed).toMatch(/^pr_up_to_date +open +up to date +bob /m);
  expect(listed).toMatch(/^pr_already_applied +open +already applied +bob /m);
});

test('required flags are marked; a group says what it holds; each command has an example', async () => {
  const [propose, participant] = await Promise.all([ce(['propose', '--help']), ce(['participant', '--help'])]);
  expect(okPlain(propose)).toMatch(
    /--summary <text> +What the change is and why, as a commit message says\s+it; not only spaces \(required\)/,
  );
  expect(okPlain(propose)).toMatch(/--base <revision> +the revision the change is made against \(required\)/);
  expect(okPlain(propose)).toMatch(/\nExample:\n {2}\$ ce propose notes\.md /);
  expect(okPlain(participant)).toMatch(/^the room's participants: list, add, remove$/m);
});

test('ce completion bash completes commands, a group’s commands and flags, in bash itself', async () => {
  const script = okPlain(await ce(['completion', 'bash']));
  const complete = (words: string[]) =>
    execFileSync(
      'bash',
      [
        '-c',
        `eval "$(cat)"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _ce; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { input: script, encoding: 'utf8' },
    )
      .split('\n')
      .filter(Boolean);
  expect(complete(['ce', 'handoff-cr'])).toEqual(['handoff-create']);
  expect(complete(['ce', 'participant', 're'])).toEqual(['remove']);
  expect(complete(['ce', 'propose', 'notes.md', '--sum'])).toEqual(['--summary']);
  expect(complete(['ce', 'handoff-answer', 'notes.md', 'ho_x', '--k'])).toEqual(['--key']);
});

test('ce completion zsh and fish print their scripts; another shell is a usage error', async () => {
  const [zsh, fish, other] = await Promise.all([
    ce(['completion', 'zsh']),
    ce(['completion', 'fish']),
    ce(['completion', 'tcsh']),
  ]);
  expect(okPlain(zsh)).toMatch(/^# ce completion for zsh[\s\S]*bashcompinit[\s\S]*complete -o filenames -F _ce ce\n$/);
  expect(okPlain(fish)).toContain("complete -c ce -n '__fish_seen_subcommand_from propose' -l summary");
  expect({ code: other.code, stderr: other.stderr }).toEqual({
    code: 2,
    stderr: 'ce: no completion for "tcsh": one of bash, zsh, fish\n',
  });
  expect(CE_BIN).toMatch(/bin\/ce\.js$/);
});

test('every command of ce shows an example in its help', async () => {
  const { buildProgram } = await import('../../src/cli/main.js');
  const leaves = (command: import('commander').Command): import('commander').Command[] =>
    command.commands.flatMap((child) => (child.commands.length > 0 ? leaves(child) : [child]));
  const missing = leaves(buildProgram())
    .filter((command) => {
      let text = '';
      command.configureOutput({ writeOut: (chunk) => (text += chunk) });
      command.outputHelp();
      return !/\nExamples?:\n {2}\$ (\w+=\S+ )*ce /.test(text);
    })
    .map((command) => command.name());
  expect(missing).toEqual([]);
});
