import { describe, expect, test } from 'vitest';
import { speakableText } from './speech_text';

describe('speakableText', () => {
  test('drops Markdown marks, keeps the words', () => {
    expect(speakableText('# Title\n\nSome **bold** and _light_ text, a [link](http://x.org/a).\n\n- one\n- two'))
      .toBe('Title Some bold and light text, a link. one two');
  });

  test('code blocks are named, not read', () => {
    expect(speakableText('Run this:\n```sh\nrm -rf build\n```\nThen `make`.')).toBe('Run this: (code) Then make.');
    expect(speakableText('Cut off:\n```py\nprint(1)')).toBe('Cut off: (code)');
  });

  test('a long answer ends at a sentence within the limit', () => {
    const text = 'One sentence here. '.repeat(20);
    const out = speakableText(text, 100);
    expect(out.length).toBeLessThanOrEqual(100);
    expect(out.endsWith('here.')).toBe(true);
  });

  test('nothing to say gives an empty string', () => {
    expect(speakableText('```\ncode only\n```').replace('(code)', '').trim()).toBe('');
    expect(speakableText('  \n ')).toBe('');
  });
});
