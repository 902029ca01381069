// A change shown as a diff a person reads (diff2html: line numbers, the
// changed words marked, light and dark), from a unified diff. diff2html
// gives HTML with every line of the text escaped; the page's second Trusted
// Types policy, room-diff, takes a unified diff and gives only that output.
import { createTwoFilesPatch } from 'diff';
import { html } from 'diff2html';
import { ColorSchemeType } from 'diff2html/lib-esm/types.js';
import { h } from './dom.js';

const render = (diff: string): string =>
  html(diff, {
    outputFormat: 'line-by-line',
    drawFileList: false,
    matching: 'lines',
    diffStyle: 'word',
    colorScheme: ColorSchemeType.AUTO,
  });

const policy = window.trustedTypes?.createPolicy('room-diff', { createHTML: render });

/** A unified diff of `before` (named `from`) against `after` (named `to`), with `context` lines around each change. */
export const unifiedDiff = (name: string, before: string, after: string, from: string, to: string, context = 3) =>
  createTwoFilesPatch(name, name, before, after, from, to, { context });

/** Numbers the captions, so that each diff's scroller can name itself by its own. */
let drawn = 0;

/**
 * `diff` rendered, in a figure captioned `caption` for whoever cannot see the
 * colours. Its lines scroll sideways in a region named by the caption that
 * takes the focus, so that a keyboard can scroll it too; unless `inForm`:
 * the editor's preview of what is being typed is no stop between the text
 * and its summary.
 */
export function diffView(diff: string, caption: string, inForm = false): HTMLElement {
  const captionId = `diff-caption-${++drawn}`;
  const body = h('div', {
    class: 'diff-body',
    role: 'region',
    tabindex: inForm ? undefined : '0',
    'aria-labelledby': captionId,
  });
  body.innerHTML = (policy ? policy.createHTML(diff) : render(diff)) as string;
  return h('figure', { class: 'diff-view' }, h('figcaption', { id: captionId, class: 'meta' }, caption), body);
}
