// Where a handoff stands on the page: the groups it is shown under.
import type { Handoff, HandoffInput } from '../../../generated/types.js';

export const GROUPS = [
  { id: 'open', title: 'Open' },
  { id: 'accepted', title: 'Accepted' },
  { id: 'input_required', title: 'Input required' },
  { id: 'result_ready', title: 'Result ready' },
  { id: 'decided', title: 'Decided (among the newest hundred)' },
] as const;
export type Group = (typeof GROUPS)[number]['id'];

export const pendingInputs = (handoff: Handoff): HandoffInput[] =>
  handoff.inputs.filter((input) => input.response === null);

export function groupOf(handoff: Handoff): Group {
  switch (handoff.status) {
    case 'open':
      return 'open';
    case 'accepted':
      return pendingInputs(handoff).length > 0 ? 'input_required' : 'accepted';
    case 'result_ready':
      return 'result_ready';
    default:
      return 'decided';
  }
}
