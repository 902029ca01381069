// ce edit FILE: the file's current text in the person's own editor ($VISUAL,
// else $EDITOR, run as git runs it: through the shell), and what they saved
// proposed against the revision they opened. Nothing saved, or nothing
// changed, proposes nothing. Works on a room here (--participant) or
// anywhere (--url with a session token), as every operation command does.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { createPatch } from 'diff';
import { operations } from '../../generated/operations.js';
import { INPUT_LIMITS } from '../../generated/rules.js';
import type { ArtifactReadOutput, ProposalOutput } from '../../generated/types.js';
import { MISSING_PARTICIPANT, remoteRoomOptions, whichRoom } from './commands.js';
import { execute } from './executor.js';
import { command, FILE_ARGUMENT } from './options.js';
import { DomainError, isDomainError } from '../errors.js';
import { answer, CommandFailure } from './output.js';
import { terminal } from './terminal.js';

interface EditOptions {
  participant?: string;
  summary?: string;
  url?: string;
  tokenFile?: string;
  ca?: string;
  json?: boolean;
}

/** What ce edit did: the proposal made, or none when the text came back as it was. */
export type EditOutput =
  { proposed: true; proposal: ProposalOutput['proposal'] } | { proposed: false; revision: number };

/** The editor to run: $VISUAL, else $EDITOR, as a shell command line. */
function editorOf(env: NodeJS.ProcessEnv): string {
  const editor = (env.VISUAL || env.EDITOR || '').trim();
  if (editor === '') {
    throw new CommandFailure(
      'no_editor',
      'no editor to open: set VISUAL or EDITOR (e.g. EDITOR=nano); nothing was proposed',
    );
  }
  return editor;
}

/** Runs the editor on `file` and waits for it; it reads and writes the terminal itself. */
function runEditor(editor: string, file: string, env: NodeJS.ProcessEnv): void {
  const quoted = `'${file.replaceAll("'", `'\\''`)}'`;
  const run = spawnSync(`${editor} ${quoted}`, { shell: true, stdio: 'inherit', env });
  if (run.error || run.status !== 0) {
    const why = run.error ? run.error.message : `exit code ${run.status ?? run.signal}`;
    throw new CommandFailure('editor_failed', `the editor (${editor}) failed: ${why}; nothing was proposed`);
  }
}

/** What the editor left in `draft`; a draft it removed or moved away is said so, and nothing is proposed. */
function savedText(draft: string, editor: string): string {
  try {
    return readFileSync(draft, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new CommandFailure(
      'edit_gone',
      `the edited file ${draft} is gone (the editor, ${editor}, removed or moved it); nothing was proposed`,
    );
  }
}

/** The summary given, or asked for on the terminal (there is one: the command checked before the editor ran). */
async function summaryOf(given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  const ask = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await ask.question('What does the change do, and why? ');
  } finally {
    ask.close();
  }
}

/** The summary given, checked as the room checks it, before the editor opens. */
async function checkSummary(summary: string): Promise<void> {
  const [{ checkInput }, { operationValidators }] = await Promise.all([
    import('../engine/check-input.js'),
    import('../../generated/operation-runner.js'),
  ]);
  checkInput(operationValidators.proposeChange, { base_revision: 1, content: '', summary });
}

/** Bytes a proposal's text may take, as JSON. */
const MAX_TEXT_BYTES = INPUT_LIMITS.proposeChange.content['x-max-bytes'];

/**
 * The change as the room takes it: the whole text, or, when that is over its
 * limit, a diff against what was read (when that is the revision's text: an
 * edit no room recorded yet leaves only the whole text to send).
 */
function changeOf(read: ArtifactReadOutput, saved: string): { content: string } | { diff: string } {
  if (Buffer.byteLength(JSON.stringify(saved)) <= MAX_TEXT_BYTES || read.unrecorded_edit) return { content: saved };
  return { diff: createPatch(read.name, read.content, saved, `revision ${read.revision.number}`, 'edited') };
}

/** A refusal of what was saved, saying where it is kept. */
function keptIn(error: unknown, draft: string): unknown {
  const kept = `; what you saved is kept in ${draft}`;
  if (isDomainError(error)) return new DomainError(error.code, `${error.message}${kept}`, error.details);
  return error instanceof Error ? new Error(`${error.message}${kept}`) : error;
}

export function editCommand(program: Command): void {
  remoteRoomOptions(
    command(program, 'edit', 'change the file in your editor ($VISUAL or $EDITOR) and propose what you saved')
      .usage('(<file> | --url <url>) [options]')
      .argument('[file]', FILE_ARGUMENT[1])
      .option('--participant <name>', 'act as this participant (with read, write and approve)')
      .option('--summary <text>', 'what the change does and why (asked for on the terminal when left out)'),
  )
    .addHelpText('after', '\nExample:\n  $ EDITOR=nano ce edit notes.md --participant alice --summary "Fix the intro"')
    .action(async (file: string | undefined, options: EditOptions) => {
      const propose = operations.proposeChange;
      const { target } = whichRoom(propose, file === undefined ? [] : [file], { ...options });
      const participant = options.participant ?? null;
      if ('file' in target && participant === null) {
        throw new InvalidArgumentError(MISSING_PARTICIPANT);
      }
      if ('url' in target && participant !== null) {
        throw new InvalidArgumentError(
          '--participant acts for the local operator; with --url the session token says who acts',
        );
      }
      const env = terminal().env;
      const editor = editorOf(env);
      // Said before the editor opens: what is typed there is not thrown away for want of a summary.
      if (options.summary === undefined && !process.stdin.isTTY) {
        throw new InvalidArgumentError('--summary is needed: there is no terminal to ask for one');
      }
      if (options.summary !== undefined) await checkSummary(options.summary);
      const read = (await execute(target, operations.readArtifact, {}, participant)) as ArtifactReadOutput;
      const dir = mkdtempSync(path.join(tmpdir(), 'ce-edit-'));
      let keep = false;
      try {
        const draft = path.join(dir, read.name);
        writeFileSync(draft, read.content, { mode: 0o600 });
        runEditor(editor, draft, env);
        const saved = savedText(draft, editor);
        let output: EditOutput;
        if (saved === read.content) output = { proposed: false, revision: read.revision.number };
        else {
          // From here on what was saved is the person's work: a refusal keeps it, and says where.
          keep = true;
          const summary = await summaryOf(options.summary);
          const input = { base_revision: read.revision.number, ...changeOf(read, saved), summary };
          const made = await execute(target, propose, input, participant).catch((error: unknown) => {
            throw keptIn(error, draft);
          });
          output = { proposed: true, proposal: (made as ProposalOutput).proposal };
          keep = false;
        }
        answer({ json: options.json === true }, output, (result) =>
          result.proposed
            ? `proposed ${result.proposal.proposal_id} against revision ${result.proposal.base_revision}`
            : `no change, nothing proposed (revision ${result.revision} as it was)`,
        );
      } finally {
        if (!keep) rmSync(dir, { recursive: true, force: true });
      }
    });
}
