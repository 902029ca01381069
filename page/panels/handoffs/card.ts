// Reading a handoff: what its card says of it (summary, who and when,
// progress, result, decision).
import type { Handoff, Progress } from '../../../generated/types.js';
import { h, when } from '../../dom.js';
import { fieldsView } from '../../fields.js';

const STATUS_WORDS: Record<Handoff['status'], string> = {
  open: 'open',
  accepted: 'accepted',
  result_ready: 'result ready',
  approved: 'approved',
  rejected: 'rejected',
  cancelled: 'cancelled',
};

/** The text of a result's content blocks; other blocks are named by their type. */
function resultText(handoff: Handoff): string | null {
  if (handoff.error) return `failed: ${handoff.error.message}`;
  if (!handoff.result) return null;
  const text = handoff.result.content
    .map((block) => (block.type === 'text' && 'text' in block ? String(block.text) : `[${block.type}]`))
    .join('\n');
  return handoff.result.isError ? `error: ${text}` : text;
}

/** The result's structuredContent, when it is an object with fields. */
function structured(handoff: Handoff): Record<string, unknown> | null {
  const content = handoff.result?.structuredContent;
  return content && typeof content === 'object' && !Array.isArray(content) && Object.keys(content).length > 0
    ? (content as Record<string, unknown>)
    : null;
}

/** " (2 of 5)", " (2 done)", " (5 to do)" or nothing, as the assignee gave the numbers: none made up. */
function progressFigures(progress: Progress): string {
  if (progress.progress === undefined) return progress.total ? ` (${progress.total} to do)` : '';
  return progress.total ? ` (${progress.progress} of ${progress.total})` : ` (${progress.progress} done)`;
}

/** What the card says of the handoff: summary, who and when, progress, result, decision. */
export function handoffInfo(handoff: Handoff): HTMLElement {
  const result = resultText(handoff);
  const decision = handoff.decision;
  const progress = handoff.progress;
  return h(
    'div',
    { class: 'info' },
    h('p', { class: 'summary', id: `handoff-summary-${handoff.handoff_id}` }, handoff.summary),
    h(
      'p',
      { class: 'meta' },
      `${STATUS_WORDS[handoff.status]} · from ${handoff.owner} · to ${handoff.assignee ?? 'anyone with write'} · ${when(handoff.created_at)}`,
    ),
    handoff.constraints ? h('p', { class: 'constraints' }, handoff.constraints) : null,
    progress
      ? h('p', { class: 'meta progress' }, `${progress.by}: ${progress.message}${progressFigures(progress)}`)
      : null,
    result !== null
      ? h(
          'div',
          { class: 'result' },
          h('strong', {}, 'Result'),
          h('pre', {}, result),
          structured(handoff) ? fieldsView(structured(handoff)!) : null,
        )
      : null,
    decision
      ? h('p', { class: 'meta' }, `${decision.decision} by ${decision.by}${decision.note ? `: ${decision.note}` : ''}`)
      : null,
  );
}
