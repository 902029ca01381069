// Plain answers of the proposal, artifact, history, participant and session
// commands, for people. --json prints the operation's output object instead.
import type {
  ArtifactReadOutput,
  HistoryEntry,
  ParticipantListOutput,
  ParticipantOutput,
  Proposal,
  ProposalListOutput,
  ProposalOutput,
  SessionCreateOutput,
  SessionGetOutput,
  SessionListOutput,
  SessionOutput,
  SettingsOutput,
  WorkspaceHistoryOutput,
} from '../../../generated/types.js';
import { columns, fields, glimpse, orDash } from '../output.js';
import type { RenderContext } from './context.js';
import { linesSaid } from '../../line-range.js';

export function proposalList({ proposals, next_cursor }: ProposalListOutput, context: RenderContext): string {
  if (proposals.length === 0) return 'no proposals';
  const table = columns(
    ['PROPOSAL', 'STATUS', 'MERGES', 'AUTHOR', 'BASE', 'REVISION', 'DECIDED BY', 'CREATED', 'SUMMARY'],
    proposals.map((p) => [
      p.proposal_id,
      p.status,
      orDash(p.mergeable?.status.replaceAll('_', ' ')),
      p.author,
      String(p.base_revision),
      orDash(p.revision),
      orDash(p.decided_by),
      p.created_at,
      glimpse(p.summary),
    ]),
  );
  return next_cursor === null ? table : `${table}\n\nmore: ${context.more({ '--cursor': next_cursor })}`;
}

/** A proposal's fields, then its diff against its base revision. */
/** `clean onto revision 4`, `conflicts with revision 4: lines 3–5 (4) and line 3 (proposal)`, or nothing once decided. */
function mergeableSaid(p: Proposal): string | null {
  const m = p.mergeable;
  if (!m) return null;
  if (m.status !== 'conflicts') return `${m.status.replaceAll('_', ' ')} (revision ${m.revision})`;
  return `conflicts with revision ${m.revision}: ${m.conflicts
    .map(
      (c) =>
        `${linesSaid(c.base)} of revision ${p.base_revision} (${linesSaid(c.current)} now, ${linesSaid(c.proposal)} proposed)`,
    )
    .join('; ')}`;
}

export function proposalFields({ proposal: p }: ProposalOutput): string {
  const head = fields([
    ['proposal', p.proposal_id],
    ['status', p.status],
    ['author', p.author],
    ['base', p.base_revision],
    ['merges', mergeableSaid(p)],
    ['summary', p.summary],
    ['created', p.created_at],
    ['decided', p.decided_by && `${p.status} by ${p.decided_by} at ${p.decided_at}`],
    ['note', p.note],
    ['revision', p.revision],
  ]);
  return `${head}\n\n${p.diff === '' ? '(no change to the text)' : p.diff.trimEnd()}`;
}

const decided = (verb: string, p: Proposal): string => `${verb} proposal ${p.proposal_id}`;

export const proposed = (output: ProposalOutput): string =>
  `proposed ${output.proposal.proposal_id} against revision ${output.proposal.base_revision}\n\n${proposalFields(output)}`;

export const proposalAccepted = ({ proposal, revision }: ProposalOutput): string =>
  `${decided('accepted', proposal)} as revision ${revision?.number}; the file is written`;

export const proposalRejected = ({ proposal }: ProposalOutput): string => decided('rejected', proposal);

export const proposalWithdrawn = ({ proposal }: ProposalOutput): string => decided('withdrew', proposal);

/** The file's text as it is, ready to pipe; --json has the revision too. */
export const artifactText = ({ content }: ArtifactReadOutput): string => content;

export function history(
  { entries, next_after, next_before, has_more }: WorkspaceHistoryOutput,
  context: RenderContext,
): string {
  if (entries.length === 0) return 'no history';
  const table = columns(
    ['ID', 'AT', 'KIND', 'ACTOR', 'REVISION', 'AUTHOR', 'APPROVER', 'DETAIL'],
    entries.map((e) => [
      String(e.id),
      e.at,
      e.kind,
      orDash(e.actor),
      revision(e),
      orDash(e.revision?.author),
      orDash(e.revision?.approver),
      detail(e),
    ]),
  );
  if (!has_more) return table;
  const next: Record<string, number> =
    next_before === undefined ? { '--after': next_after } : { '--before': next_before };
  return `${table}\n\nmore: ${context.more(next)}`;
}

const revision = ({ revision: r }: HistoryEntry): string => (r === null ? '-' : `${r.number} (${r.source})`);

function detail(entry: HistoryEntry): string {
  const parts = [
    entry.proposal_id && `proposal ${entry.proposal_id}`,
    entry.handoff_id && `handoff ${entry.handoff_id}`,
    entry.revision && !entry.revision.utf8 && 'not UTF-8 text',
    entry.note && `note: ${entry.note.replace(/\s+/g, ' ')}`,
  ];
  return orDash(parts.filter(Boolean).join('; '));
}

export function participantList({ participants }: ParticipantListOutput): string {
  if (participants.length === 0) return 'no participants';
  return columns(
    ['NAME', 'ADDED', 'REMOVED'],
    participants.map((p) => [p.name, p.created_at, orDash(p.removed_at)]),
  );
}

export const participantAdded = ({ participant }: ParticipantOutput): string => `added participant ${participant.name}`;

export const participantRemoved = ({ participant }: ParticipantOutput): string =>
  `removed participant ${participant.name}; its sessions are revoked`;

export function sessionCreated({ session, token }: SessionCreateOutput): string {
  return [
    `token: ${token}`,
    '',
    fields([
      ['session', session.session_id],
      ['participant', session.participant],
      ['capabilities', session.capabilities.join(',')],
      ['expires', session.expires_at ?? 'never (until revoked)'],
    ]),
    '',
    'The token is shown only this once and the room keeps only its hash: store it now.',
    'Clients send it as Authorization: Bearer <token>.',
  ].join('\n');
}

export function whoAmI({ participant, capabilities, session, four_eyes }: SessionGetOutput): string {
  return fields([
    ['participant', participant ?? 'none: the local operator'],
    ['capabilities', capabilities.join(',')],
    ['session', session?.session_id ?? 'none'],
    ...(session ? ([['expires', session.expires_at ?? 'never (until revoked)']] as [string, string][]) : []),
    ['four eyes', four_eyes ? 'yes: another approver decides your own work' : 'no'],
  ]);
}

export function sessionList({ sessions }: SessionListOutput): string {
  if (sessions.length === 0) return 'no sessions';
  return columns(
    ['SESSION', 'PARTICIPANT', 'CAPABILITIES', 'CREATED', 'EXPIRES', 'REVOKED'],
    sessions.map((s) => [
      s.session_id,
      s.participant,
      s.capabilities.join(','),
      s.created_at,
      orDash(s.expires_at),
      orDash(s.revoked_at),
    ]),
  );
}

export const sessionRevoked = ({ session }: SessionOutput): string =>
  `revoked session ${session.session_id} of ${session.participant}`;

/** The room's settings, one per line; a running room applies a change from its next request. */
export const settingsFields = ({ settings }: SettingsOutput): string =>
  fields([
    ['allowed hosts', settings.allowed_hosts.join(', ') || 'none besides the room’s own names'],
    ['allowed origins', settings.allowed_origins.join(', ') || 'none besides the room’s own names'],
    ['four eyes', settings.four_eyes ? 'on: nobody decides on their own proposal or result' : 'off'],
  ]);
