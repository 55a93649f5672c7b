import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown';

describe('renderMarkdown', () => {
  it('escapes raw HTML instead of passing it through', () => {
    const html = renderMarkdown('hi <script>alert(1)</script> <img src=x onerror="alert(2)">');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;');
  });

  it('refuses javascript: links and marks others as external', () => {
    expect(renderMarkdown('[x](javascript:alert(1))')).not.toContain('href="javascript');
    const link = renderMarkdown('see https://example.com');
    expect(link).toContain('href="https://example.com"');
    expect(link).toContain('rel="noopener noreferrer"');
  });

  it('highlights code blocks of known languages', () => {
    const html = renderMarkdown('```python\ndef f():\n    return 1\n```');
    expect(html).toContain('language-python');
    expect(html).toContain('<span class="hljs-keyword">def</span>');
  });

  it('escapes code blocks of unknown languages', () => {
    const html = renderMarkdown('```klingon\n<b>qapla</b>\n```');
    expect(html).toContain('&lt;b&gt;qapla&lt;/b&gt;');
    expect(html).not.toContain('<b>');
  });

  it('renders ordinary Markdown', () => {
    expect(renderMarkdown('**bold** and `code`')).toBe('<p><strong>bold</strong> and <code>code</code></p>\n');
  });
});
