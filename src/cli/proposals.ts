// ce proposals FILE: the room's proposals, newest first, as the local operator reads them.
import type { Command } from 'commander';
import type { ProposalListOutput } from '../../generated/types.js';
import { reading } from './open-room.js';
import { command, engineInput, FILE_ARGUMENT, wholeNumber } from './options.js';
import { answer, columns, glimpse, orDash, type JsonOption } from './output.js';

interface ProposalsOptions extends JsonOption {
  status?: string;
  limit?: number;
  cursor?: string;
}

export function proposalCommands(program: Command): void {
  command(program, 'proposals', 'list proposals, newest first (open ones unless --status says otherwise)')
    .argument(...FILE_ARGUMENT)
    .option('--status <status>', 'open, accepted, rejected or withdrawn (default open)')
    .option('--limit <n>', 'at most this many (default 50)', wholeNumber('--limit'))
    .option('--cursor <cursor>', 'the next page: the cursor the previous page printed')
    .addHelpText('after', '\nExample:\n  $ ce proposals notes.md --status accepted')
    .action(async (file: string, options: ProposalsOptions) => {
      const result = await reading(file, (room, engine) =>
        engine.listProposals(
          room,
          engine.LOCAL_OPERATOR,
          engineInput({ status: options.status, limit: options.limit, cursor: options.cursor }),
        ),
      );
      answer(options, result, (page) => plain(file, page));
    });
}

function plain(file: string, { proposals, next_cursor }: ProposalListOutput): string {
  if (proposals.length === 0) return 'no proposals';
  const table = columns(
    ['PROPOSAL', 'STATUS', 'AUTHOR', 'BASE', 'REVISION', 'DECIDED BY', 'CREATED', 'SUMMARY'],
    proposals.map((p) => [
      p.proposal_id,
      p.status,
      p.author,
      String(p.base_revision),
      orDash(p.revision),
      orDash(p.decided_by),
      p.created_at,
      glimpse(p.summary),
    ]),
  );
  return next_cursor === null ? table : `${table}\n\nmore: ce proposals ${file} --cursor ${next_cursor}`;
}
