import { XMLValidator } from 'fast-xml-parser';
import fc from 'fast-check';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { describe, expect, test } from 'vitest';
import { githubData, githubProperty, withoutCommands } from '../../../../src/conformance/report/escape/github.js';
import { jsonSafe } from '../../../../src/conformance/report/escape/json.js';
import { markdownCode, markdownText } from '../../../../src/conformance/report/escape/markdown.js';
import { terminalSafe } from '../../../../src/conformance/report/escape/terminal.js';
import { xmlText } from '../../../../src/conformance/report/escape/xml.js';

/** Anything a terminal or a log viewer acts on, or that hides or reorders text. */
const RAW_CONTROL =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\udb40[\udc00-\udc7f]/;

const HOSTILE = [
  '\x1b[8mPASS 0 errors\x1b[0m',
  '\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07',
  '\x1b]0;owned\x07title',
  'safe\rPASS\nFAIL',
  '\u202eevil\u202c \u2066isolate\u2069 \u200bzero\u200dwidth',
  '\u009b31mC1 CSI\u0085NEL',
  'tag\u{e0041}\u{e0042} chars',
  'lone \ud800 surrogate and \udfff one',
  'non\ufffe\uffffcharacters',
  'del\x7fbell\x07null\x00',
  '\u2028line\u2029para',
];

function markdownHtml(text: string): string {
  return micromark(text, { allowDangerousHtml: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] });
}

describe('terminal', () => {
  test('controls, bidi and invisible characters are shown escaped, nothing raw survives', () => {
    for (const text of HOSTILE) {
      const safe = terminalSafe(text);
      expect(safe, JSON.stringify(text)).not.toMatch(RAW_CONTROL);
      expect(safe).not.toBe(text);
      expect(terminalSafe(safe)).toBe(safe); // escaping is idempotent: nothing left to escape
    }
    expect(terminalSafe('\x1b[8mPASS')).toBe('\\x1b[8mPASS');
    expect(terminalSafe('a\u202eb')).toBe('a\\u202eb');
    expect(terminalSafe('line\nnext\r\t')).toBe('line\\nnext\\r\\t');
    expect(terminalSafe('\u009b\x7f\x00')).toBe('\\x9b\\x7f\\x00');
    expect(terminalSafe('tag\u{e0041}')).toBe('tag\\u{e0041}');
    expect(terminalSafe('\u{e0000}')).toBe('\\u{e0000}'); // unassigned, but in the invisible tag block
    expect(terminalSafe('x\ud800y')).toBe('x\\ud800y');
  });

  test('printable text of any script is left alone', () => {
    const text = 'b2_list_buckets — Liste der Buckets · 列出存储桶 · 🪣 “quoted” ✓';
    expect(terminalSafe(text)).toBe(text);
  });

  test('for any string, the result holds no raw control', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => !RAW_CONTROL.test(terminalSafe(text))),
      { numRuns: 500 },
    );
  });
});

describe('GitHub workflow commands', () => {
  test('data escapes %, CR and LF; properties also : and ,', () => {
    expect(githubData('100%\r\n::error::x')).toBe('100%25\\r\\n::error::x');
    expect(githubProperty('a:b,c%')).toBe('a%3Ab%2Cc%25');
    expect(githubData('\x1b[31mred')).toBe('\\x1b[31mred');
  });

  test('no server text can start a line of its own', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const line = `::notice title=${githubProperty(text)}::${githubData(text)}`;
        return line.split(/\r\n|\r|\n/).length === 1 && !RAW_CONTROL.test(line);
      }),
      { numRuns: 300 },
    );
  });

  test('a command-free block ends only on its own token', () => {
    const lines = withoutCommands(['::error::forged', '::endgroup::'], 'token-1');
    expect(lines).toEqual(['::stop-commands::token-1', '::error::forged', '::endgroup::', '::token-1::']);
    const [first, second] = [withoutCommands([])[0], withoutCommands([])[0]];
    expect(first).not.toBe(second);
  });
});

describe('Markdown', () => {
  const attacks = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<!-- hidden --> <details open>',
    '[click](https://evil.example/) ![pixel](https://evil.example/p.png)',
    'https://evil.example/path www.evil.example mail@evil.example <https://evil.example>',
    '**bold** _em_ ~~gone~~ `code` $x^2$ | cell | break',
    '&lt;b&gt;entity&lt;/b&gt; &amp;',
    '@someone and #123 and org/repo#9',
    '# heading',
    '1. list',
    '> quote',
    '<prefix>_<verb>_<noun>',
    '\\`escaped\\` \\<tag>',
    ...HOSTILE,
  ];

  test('text renders as the same plain text: no HTML, link, image, emphasis or code', () => {
    for (const attack of attacks) {
      const html = markdownHtml(`| a |\n| --- |\n| ${markdownText(attack)} |\n\nparagraph ${markdownText(attack)}`);
      const tags = [...html.matchAll(/<([a-z][a-z0-9]*)/gi)].map((match) => match[1]!.toLowerCase());
      expect(new Set(tags), attack).toEqual(new Set(['table', 'thead', 'tr', 'th', 'tbody', 'td', 'p']));
      expect(html, attack).not.toMatch(/<!--/);
    }
  });

  test('the visible text keeps what the server said, escaped for a terminal', () => {
    const html = markdownHtml(markdownText('<prefix>_<verb>_<noun> **not bold** a|b'));
    expect(html).toBe('<p>&lt;prefix&gt;_&lt;verb&gt;_&lt;noun&gt; **not bold** a|b</p>');
  });

  test('mentions and issue references are broken by a zero-width space', () => {
    const html = markdownHtml(markdownText('@someone #12'));
    expect(html).toBe('<p>@\u200bsomeone #\u200b12</p>');
  });

  test('a code span holds any backtick run and any markup literally', () => {
    for (const text of ['a`b', '``x``', '`lead', 'trail`', '<b>x</b>', '| pipe |', '[l](https://e.example)']) {
      const html = markdownHtml(`| a |\n| --- |\n| ${markdownCode(text, { table: true })} |`);
      const cell = /<td><code>(.*)<\/code><\/td>/.exec(html)?.[1];
      const decoded = cell
        ?.replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');
      expect(decoded, text).toBe(text);
    }
    expect(markdownCode('a ``` b')).toBe('````a ``` b````');
  });
});

describe('XML', () => {
  test('text and attributes parse with a strict XML parser whatever the input', () => {
    for (const text of [...HOSTILE, '<a>&"\'</a>', ']]>']) {
      const doc = `<?xml version="1.0" encoding="UTF-8"?><r a="${xmlText(text)}">${xmlText(text)}</r>`;
      expect(XMLValidator.validate(doc), JSON.stringify(text)).toBe(true);
      expect(doc).not.toMatch(RAW_CONTROL);
    }
  });

  test('for any string the result holds only XML 1.0 characters', () => {
    const xmlChar = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        (text) => xmlChar.test(xmlText(text)) && !/[<>&"']/.test(xmlText(text).replace(/&(amp|lt|gt|quot|apos);/g, '')),
      ),
      { numRuns: 500 },
    );
  });
});

describe('JSON', () => {
  test('parses back to the same value with nothing raw a terminal acts on', () => {
    for (const text of HOSTILE) {
      const json = jsonSafe({ text }, 2);
      expect(JSON.parse(json)).toEqual({ text });
      expect(json.replace(/\n/g, '')).not.toMatch(RAW_CONTROL);
    }
  });
});
