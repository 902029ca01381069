// ce history FILE: the room's revisions and decisions, oldest first (PRODUCT.md §2).
import type { Command } from 'commander';
import type { HistoryEntry, WorkspaceHistoryOutput } from '../../generated/types.js';
import { reading } from './open-room.js';
import { command, engineInput, FILE_ARGUMENT, wholeNumber } from './options.js';
import { answer, columns, orDash, type JsonOption } from './output.js';

interface HistoryOptions extends JsonOption {
  after?: number;
  limit?: number;
}

export function historyCommands(program: Command): void {
  command(program, 'history', 'list revisions and decisions, oldest first')
    .argument(...FILE_ARGUMENT)
    .option('--after <id>', 'only entries after this id (the "more" line of the previous page)', wholeNumber('--after'))
    .option('--limit <n>', 'at most this many (default 100)', wholeNumber('--limit'))
    .addHelpText('after', '\nExample:\n  $ ce history notes.md --after 20 --limit 10')
    .action(async (file: string, options: HistoryOptions) => {
      const result = await reading(file, (room, engine) =>
        engine.workspaceHistory(
          room,
          engine.LOCAL_OPERATOR,
          engineInput({ after: options.after, limit: options.limit }),
        ),
      );
      answer(options, result, (page) => plain(file, page));
    });
}

function plain(file: string, { entries, next_after, has_more }: WorkspaceHistoryOutput): string {
  if (entries.length === 0) return 'no history';
  const table = columns(
    ['ID', 'AT', 'KIND', 'ACTOR', 'REVISION', 'DETAIL'],
    entries.map((e) => [String(e.id), e.at, e.kind, orDash(e.actor), revision(e), detail(e)]),
  );
  return has_more ? `${table}\n\nmore: ce history ${file} --after ${next_after}` : table;
}

const revision = ({ revision: r }: HistoryEntry): string => (r === null ? '-' : `${r.number} (${r.source})`);

function detail(entry: HistoryEntry): string {
  const parts = [
    entry.proposal_id && `proposal ${entry.proposal_id}`,
    entry.handoff_id && `handoff ${entry.handoff_id}`,
    entry.revision?.approver && `approved by ${entry.revision.approver}`,
    entry.note && `note: ${entry.note.replace(/\s+/g, ' ')}`,
  ];
  return orDash(parts.filter(Boolean).join('; '));
}
