// Markdown rendering of model output. markdown-it with `html: false`
// escapes any raw HTML in the text, so a model cannot inject markup; links
// are limited to markdown-it's safe schemes (no javascript:). Code blocks
// are highlighted with a handful of highlight.js languages, registered
// here to keep the bundle small.
import MarkdownIt from 'markdown-it';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import yaml from 'highlight.js/lib/languages/yaml';

const languages = { bash, c, cpp, go, javascript, json, python, rust, sql, typescript, yaml };
for (const [name, language] of Object.entries(languages)) hljs.registerLanguage(name, language);

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const md: MarkdownIt = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
  highlight(code, lang): string {
    const name = lang.trim().toLowerCase();
    if (name && hljs.getLanguage(name)) {
      const html = hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
      return `<pre class="hljs"><code class="hljs language-${escapeHtml(name)}">${html}</code></pre>`;
    }
    return `<pre class="hljs"><code class="hljs">${escapeHtml(code)}</code></pre>`;
  },
});

// Links open outside the app and tell the target nothing about it.
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet('target', '_blank');
  tokens[idx].attrSet('rel', 'noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** The HTML for a message's Markdown; safe to put into the page as it is. */
export function renderMarkdown(text: string): string {
  return md.render(text);
}
