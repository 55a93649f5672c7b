// What of an answer is read aloud: its prose. Markdown's marks, links'
// addresses and code blocks are not words a listener wants to hear; the
// server takes at most `limit` characters (OpenAI's 4096), so a long
// answer is cut at the last sentence end before it.

/** The text to speak for `markdown`, at most `limit` characters; '' if nothing is left. */
export function speakableText(markdown: string, limit = 4096): string {
  let t = markdown
    .replace(/```[\s\S]*?(```|$)/g, ' (code) ')      // fenced code blocks, closed or cut off
    .replace(/`([^`]*)`/g, '$1')                      // inline code: its text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')         // images: their alt text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')          // links: their text
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, '') // headings, quotes, list marks
    .replace(/(\*\*|__|\*|_|~~)(?=\S)([^\n]*?\S)\1/g, '$2') // emphasis
    .replace(/^\s*([-*_]\s*){3,}$/gm, ' ')            // rules
    .replace(/\|/g, ' ')                              // table bars
    .replace(/\s+/g, ' ')
    .trim();
  if (t.length <= limit) return t;
  t = t.slice(0, limit);
  const end = Math.max(t.lastIndexOf('. '), t.lastIndexOf('! '), t.lastIndexOf('? '));
  return end > limit / 2 ? t.slice(0, end + 1) : t;
}
