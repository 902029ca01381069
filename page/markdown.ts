// The artifact as HTML: markdown-it with raw HTML off, so text in the file
// never becomes markup. The one Trusted Types policy of the page,
// room-markdown, takes Markdown source and gives markdown-it's output: no
// other string can become HTML on this page. The policy forbids inline
// styles, so a table's alignment becomes a class; a Markdown image is shown
// as a link to it and never loaded.
import MarkdownIt from 'markdown-it';

interface HtmlPolicy {
  createHTML(source: string): unknown;
}
declare global {
  interface Window {
    trustedTypes?: { createPolicy(name: string, rules: { createHTML(source: string): string }): HtmlPolicy };
  }
}

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

const escapeHtml = markdown.utils.escapeHtml;

markdown.renderer.rules.image = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  const src = String(token.attrGet('src') ?? '');
  const alt = self.renderInlineAsText(token.children ?? [], options, env) || src;
  return `<a class="image-link" href="${escapeHtml(src)}" rel="noreferrer">image: ${escapeHtml(alt)}</a>`;
};

for (const rule of ['th_open', 'td_open'] as const) {
  markdown.renderer.rules[rule] = (tokens, idx, options, _env, self) => {
    const token = tokens[idx]!;
    const align = /text-align:\s*(left|right|center)/.exec(String(token.attrGet('style') ?? ''))?.[1];
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    if (align) token.attrJoin('class', `align-${align}`);
    return self.renderToken(tokens, idx, options);
  };
}

// The file's headings sit under the page's own (its h1, the file's h2): to a
// screen reader a `#` is a level 3 heading, and so on down, at most 6. Shown
// as the file has them.
markdown.renderer.rules.heading_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx]!;
  token.attrSet('aria-level', String(Math.min(Number(token.tag.slice(1)) + 2, 6)));
  return self.renderToken(tokens, idx, options);
};

markdown.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  tokens[idx]!.attrSet('rel', 'noreferrer');
  return self.renderToken(tokens, idx, options);
};

const policy = window.trustedTypes?.createPolicy('room-markdown', { createHTML: (source) => markdown.render(source) });

/** Fills `target` with `source` rendered as Markdown. */
export function showMarkdown(target: HTMLElement, source: string): void {
  target.innerHTML = (policy ? policy.createHTML(source) : markdown.render(source)) as string;
}
