// Rows → the schema shapes that leave the engine.
import type {
  CallToolResult,
  DetailedTask,
  Event,
  Handoff,
  HandoffInput,
  InputRequest,
  JsonRpcError,
} from '../../generated/types.js';
import type { EventRow, HandoffRow, InputRow, TaskRow } from '../store/rows.js';
import { toTimestamp } from './clock.js';

const parse = <T>(json: string | null): T | null => (json === null ? null : (JSON.parse(json) as T));
const timestamp = (ms: number | null): string | null => (ms === null ? null : toTimestamp(ms));

export function toHandoff(row: HandoffRow, inputs: InputRow[]): Handoff {
  return {
    handoff_id: row.id,
    task_id: row.task_id,
    status: row.status,
    summary: row.summary,
    constraints: row.constraints,
    owner: row.owner,
    assignee: row.assignee,
    artifacts: JSON.parse(row.artifacts_json),
    idempotency_key: row.idempotency_key,
    correlation_id: row.correlation_id,
    inputs: inputs.map(toHandoffInput),
    result: parse(row.result_json),
    error: parse(row.error_json),
    decision: parse(row.decision_json),
    progress: parse(row.progress_json),
    created_at: toTimestamp(row.created_at),
    updated_at: toTimestamp(row.updated_at),
    accepted_at: timestamp(row.accepted_at),
    completed_at: timestamp(row.completed_at),
    cancelled_at: timestamp(row.cancelled_at),
  };
}

export function toHandoffInput(row: InputRow): HandoffInput {
  return {
    key: row.key,
    request: JSON.parse(row.request_json),
    requested_by: row.requested_by,
    requested_at: toTimestamp(row.requested_at),
    response: parse(row.response_json),
    answered_by: row.answered_by,
    answered_at: timestamp(row.answered_at),
  };
}

/** The MCP Tasks DetailedTask for the task's status. */
export function toDetailedTask(row: TaskRow, outstanding: InputRow[]): DetailedTask {
  const base = {
    taskId: row.id,
    ...(row.status_message === null ? {} : { statusMessage: row.status_message }),
    createdAt: toTimestamp(row.created_at),
    lastUpdatedAt: toTimestamp(row.last_updated_at),
    ttlMs: row.ttl_ms,
    pollIntervalMs: row.poll_interval_ms,
  };
  switch (row.status) {
    case 'working':
    case 'cancelled':
      return { ...base, status: row.status };
    case 'input_required':
      return {
        ...base,
        status: 'input_required',
        inputRequests: Object.fromEntries(
          outstanding.map((input) => [input.key, JSON.parse(input.request_json) as InputRequest]),
        ),
      };
    case 'completed':
      // A completed task's result is itself a complete result (MCP 2026-07-28).
      return {
        ...base,
        status: 'completed',
        result: { ...parse<CallToolResult>(row.result_json)!, resultType: 'complete' },
      };
    case 'failed':
      return { ...base, status: 'failed', error: parse<JsonRpcError>(row.error_json)! };
  }
}

export function toEvent(row: EventRow): Event {
  return {
    id: row.id,
    type: row.type,
    at: toTimestamp(row.at),
    actor: row.actor,
    handoff_id: row.handoff_id,
    task_id: row.task_id,
    payload: JSON.parse(row.payload_json),
  };
}
