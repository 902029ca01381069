// Rows as stored. The engine turns them into the schema shapes of generated/types.ts.
import type { EventType, HandoffStatus, TaskStatus } from '../../generated/types.js';

export interface HandoffRow {
  id: string;
  task_id: string;
  status: HandoffStatus;
  summary: string;
  constraints: string | null;
  owner: string;
  assignee: string | null;
  artifacts_json: string;
  idempotency_key: string | null;
  correlation_id: string;
  result_json: string | null;
  error_json: string | null;
  decision_json: string | null;
  /** The assignee's latest progress report, committed (Progress as JSON). */
  progress_json: string | null;
  created_at: number;
  updated_at: number;
  accepted_at: number | null;
  completed_at: number | null;
  cancelled_at: number | null;
  events_pruned_through: number;
}

export interface TaskRow {
  id: string;
  handoff_id: string;
  owner: string;
  assignee: string | null;
  operation: string;
  status: TaskStatus;
  status_message: string | null;
  created_at: number;
  last_updated_at: number;
  ttl_ms: number;
  poll_interval_ms: number;
  correlation_id: string;
  schema_version: number;
  result_json: string | null;
  error_json: string | null;
}

export interface InputRow {
  task_id: string;
  key: string;
  handoff_id: string;
  request_json: string;
  requested_by: string;
  requested_at: number;
  response_json: string | null;
  answered_by: string | null;
  answered_at: number | null;
}

export interface EventRow {
  id: number;
  type: EventType;
  at: number;
  actor: string | null;
  handoff_id: string | null;
  task_id: string | null;
  payload_json: string;
}

export interface ParticipantRow {
  name: string;
  created_at: number;
  removed_at: number | null;
}

export interface SessionRow {
  id: string;
  token_hash: string;
  participant: string;
  capabilities_json: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export interface RevisionRow {
  number: number;
  hash: string;
  size: number;
  /** The text; the bytes as they were when they are not UTF-8 text (an outside edit). */
  content: string | Buffer;
  source: 'initial' | 'proposal' | 'external';
  author: string | null;
  approver: string | null;
  proposal_id: string | null;
  at: number;
  /** The base of a proposal merged onto a later revision (migration 7); null when it was not merged. */
  merged_base: number | null;
}

/** An accepted proposal's bytes on their way to the file (see migrations 3 and 7). */
export interface PendingWriteRow {
  proposal_id: string;
  approver: string;
  note: string | null;
  /** The revision the write goes on: the current one when it was approved. */
  base_revision: number;
  hash: string;
  size: number;
  at: number;
  /** The merged text, when the proposal was merged onto a later revision than its base; null: the proposal's own. */
  content: string | null;
  /** The proposal's base, when it was merged; null otherwise. */
  merged_base: number | null;
}

export interface ProposalRow {
  id: string;
  status: 'open' | 'accepted' | 'rejected' | 'withdrawn';
  author: string;
  base_revision: number;
  summary: string | null;
  content: string;
  diff: string | null;
  created_at: number;
  decided_by: string | null;
  decided_at: number | null;
  note: string | null;
  revision: number | null;
  /** Whether it merges onto the current revision (JSON, migration 8); null once decided. */
  mergeable_json: string | null;
}

export interface HistoryRow {
  id: number;
  at: number;
  kind: 'revision' | 'proposal_rejected' | 'proposal_withdrawn' | 'handoff_approved' | 'handoff_rejected';
  actor: string | null;
  revision: number | null;
  proposal_id: string | null;
  handoff_id: string | null;
  note: string | null;
}
