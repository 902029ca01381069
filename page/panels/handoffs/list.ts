// Handoffs grouped by where they stand, each card kept part by part while
// what it shows stays the same.
import type { Handoff } from '../../../generated/types.js';
import type { PageContext } from '../../context.js';
import { h, reconcile, type Keyed } from '../../dom.js';
import { inputItem } from './answer.js';
import { handoffInfo } from './card.js';
import { handoffActions } from './decide.js';
import { GROUPS, groupOf, type Group } from './groups.js';
import { assigneeTools, followers, isWorkingAssignee } from './work.js';

/**
 * The card's parts, each kept while what it shows stays the same: a
 * progress report changes the information, not the assignee's forms.
 */
function updateCard(context: PageContext, card: HTMLElement, handoff: Handoff): void {
  const who = `${context.me.participant}|${context.me.capabilities.join(',')}`;
  card.dataset.status = handoff.status;
  const parts: (Keyed | null)[] = [
    {
      key: 'info',
      signature: JSON.stringify([
        handoff.summary,
        handoff.status,
        handoff.owner,
        handoff.assignee,
        handoff.created_at,
        handoff.constraints,
        handoff.progress,
        handoff.result,
        handoff.error,
        handoff.decision,
      ]),
      build: () => handoffInfo(handoff),
    },
    handoff.inputs.length > 0
      ? {
          key: 'inputs',
          signature: `${JSON.stringify([handoff.inputs, handoff.owner])}|${who}`,
          build: () =>
            h(
              'ul',
              { class: 'inputs', 'aria-label': 'Input requests' },
              handoff.inputs.map((input) => inputItem(context, handoff, input)),
            ),
        }
      : null,
    isWorkingAssignee(context, handoff)
      ? { key: 'assignee', signature: `${handoff.owner}|${who}`, build: () => assigneeTools(context, handoff) }
      : null,
    {
      key: 'actions',
      signature: `${JSON.stringify([handoff.status, handoff.owner, handoff.assignee, handoff.task_id])}|${who}`,
      build: () => handoffActions(context, handoff) ?? h('div', { class: 'decide', hidden: true }),
    },
  ];
  reconcile(
    card,
    parts.filter((part): part is Keyed => part !== null),
  );
  for (const part of Array.from(card.children)) followers.get(part)?.(handoff);
}

export function renderHandoffs(
  lists: Record<Group, { list: HTMLElement; empty: HTMLElement }>,
  context: PageContext,
  handoffs: Handoff[],
): void {
  const who = `${context.me.participant}|${context.me.capabilities.join(',')}`;
  // A card that moves to another group is the same element, moved, with what was typed in it and the focus.
  const drawn = new Map<string, HTMLElement>();
  for (const group of GROUPS) {
    for (const card of Array.from(lists[group.id].list.children) as HTMLElement[]) drawn.set(card.dataset.key!, card);
  }
  const focused = document.activeElement;
  for (const group of GROUPS) {
    const items: Keyed[] = handoffs
      .filter((handoff) => groupOf(handoff) === group.id)
      .map((handoff) => ({
        key: handoff.handoff_id,
        signature: `${JSON.stringify(handoff)}|${who}`,
        build: () => {
          const moved = drawn.get(handoff.handoff_id);
          if (moved) {
            updateCard(context, moved, handoff);
            return moved;
          }
          const card = h('li', {
            class: 'card handoff',
            id: `handoff-card-${handoff.handoff_id}`,
            'aria-labelledby': `handoff-summary-${handoff.handoff_id}`,
            'data-handoff-id': handoff.handoff_id,
          });
          updateCard(context, card, handoff);
          return card;
        },
        update: (card: HTMLElement) => updateCard(context, card, handoff),
      }));
    reconcile(lists[group.id].list, items);
    lists[group.id].empty.hidden = items.length > 0;
  }
  if (focused instanceof HTMLElement && focused.isConnected && document.activeElement !== focused) focused.focus();
}
