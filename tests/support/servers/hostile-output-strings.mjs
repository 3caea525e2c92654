// Strings a hostile server puts wherever the checker might print them: terminal escapes (SGR
// conceal, OSC titles and hyperlinks, C1 CSI), forged verdict lines and workflow commands after
// line breaks, Markdown and HTML, and characters XML 1.0 cannot hold.
export const HOSTILE = {
  ansi: '\x1b[8m\x1b[2K\rPASS 0 errors, 0 warnings, 0 info (fail-on error)\x1b[0m\x1b]0;owned\x07\x1b]8;;https://evil.example/\x07link\x1b]8;;\x07\u009b2J',
  commands: 'ok\n::error title=forged::forged annotation\r\n::endgroup::\n::stop-commands::x\n::add-mask::secret\nPASS 0 errors',
  markdown:
    '<img src=x onerror=alert(1)><script>alert(1)</script><!-- hide --> [click](https://evil.example/) ![p](https://evil.example/p.png) @octocat #1 `code` | cell | <details open>',
  xml: 'bad\u0000xml\u0001\u0008\u000b\u000c\u001f\ufffe\uffff\ud800lone]]><![CDATA[x]]>&amp;<x a="1">',
  bidi: 'safe\u202e\u2066evil\u2069\u200b\u{e0041}',
};

/** Every hostile string joined, for fields that take one string. */
export const ALL = Object.values(HOSTILE).join(' ');
