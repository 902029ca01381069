// ce help TOPIC: the room's ideas in a few lines each, for someone who has a
// command line and not the README at hand. ce help COMMAND is the command's
// own help, as ce COMMAND --help.
import { Command, InvalidArgumentError } from 'commander';
import { terminal } from './terminal.js';

export const HELP_TOPICS: Record<string, string> = {
  handoffs: `Handoffs: asking someone (a person or an agent) for a piece of work.

  The owner creates a handoff (ce handoff-create --summary ... --assignee NAME);
  the assignee accepts it (ce handoff-accept), and its task is working. While
  working, the assignee may report progress (ce handoff-progress) and ask the
  owner questions (ce handoff-request-input); the owner answers by the handoff
  (ce handoff-answer HANDOFF_ID --answer TEXT, or --content-file FILE.json for
  a question asked with a form of its own fields) and the task works again. The
  assignee completes with a result or an error (ce handoff-complete); someone
  with approve approves or rejects the result (ce handoff-approve, -reject).
  ce handoff HANDOFF_ID shows all of it: questions, answers, result, decision.
  Over MCP each handoff is a task: clients poll tasks/get, answer with
  tasks/update and cancel with tasks/cancel.`,
  proposals: `Proposals: changing the file.

  Nobody writes the file directly: a participant with write proposes a new
  text against the revision they read (ce propose --base N --content-file F
  --summary S, or ce edit FILE to do it in your own editor), and someone with
  approve approves it (ce proposal-approve), which writes the next revision.
  A proposal made against an older revision is merged onto the current one,
  line by line; changes to the same lines are a conflict, named by its lines,
  and nothing is written. ce proposals lists the open ones with whether each
  merges (MERGES: up to date, clean, conflicts, or already applied when the
  file already holds its changes). An edit made outside the
  room is recorded as a revision like any other. ce history shows them all.`,
  sessions: `Sessions: who may do what.

  A participant is a name (ce participant add FILE NAME). A session gives a
  participant a token and capabilities: read, write, approve, admin
  (ce session create FILE --participant NAME --caps read,write). MCP
  clients, REST callers and the page present the token as a Bearer token;
  the room stores only its hash, and ce session revoke ends it at once, its
  open streams too. ce open FILE --participant NAME opens the page with a new
  session. On this machine, ce acts as the local operator, or, with
  --participant NAME, as that participant with read, write and approve.`,
};

/** `ce help [topic]`: a topic, a command's help (`ce help session create` as `ce session create --help`), or the list of both. */
export function helpCommand(program: Command): void {
  program.helpCommand(false);
  program
    .command('help')
    .description(`a topic (${Object.keys(HELP_TOPICS).join(', ')}) or a command's help`)
    .argument(
      '[topic...]',
      `${Object.keys(HELP_TOPICS).join(', ')}, or a command (its words, as typed: session create)`,
    )
    .addHelpText('after', '\nExamples:\n  $ ce help proposals\n  $ ce help session create')
    .action((words: string[]) => {
      if (words.length === 0) return void program.outputHelp();
      const topic = words.join(' ');
      const text = Object.hasOwn(HELP_TOPICS, topic) ? HELP_TOPICS[topic] : undefined;
      if (text !== undefined) return void terminal().out(`${text}\n`);
      const command = words.reduce<Command | undefined>(
        (parent, word) => parent?.commands.find((c) => c.name() === word),
        program,
      );
      if (command) return void command.outputHelp();
      throw new InvalidArgumentError(
        `no help topic or command ${JSON.stringify(topic)}; topics: ${Object.keys(HELP_TOPICS).join(', ')} (and every command: ce --help)`,
      );
    });
}
