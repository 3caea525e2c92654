import unhomoglyph from 'unhomoglyph';
import { joinPath } from '../../diff/schema.js';
import { CONNECTION_SPECS } from '../../connect/connections.js';
import { placeOf, TEXT_FIELDS, visibleTexts, type TextField, type VisibleText } from '../visible-text.js';
import type { CheckKind, RawFinding, RuleContext } from '../types.js';
import { compileRegex, isObject } from './traverse.js';

const FIELDS = { type: 'array', items: { enum: [...TEXT_FIELDS] }, minItems: 1 } as const;

function textsIn(context: RuleContext, fields: readonly TextField[]): VisibleText[] {
  return visibleTexts(context.surfaces).filter((text) => fields.includes(text.field));
}

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A match shown so a reader sees it: the text itself, or, for characters that do not show, their code points. */
function shown(match: string, show: unknown): string {
  if (show === 'code-points') return [...new Set([...match].map(codePoint))].slice(0, 8).join(' ');
  return match.replace(/\s+/g, ' ').slice(0, 80);
}

/**
 * No text in the given fields matches a pattern. One finding per text and pattern, naming where
 * it sits and what matched (as code points with `show: code-points`, for invisible characters).
 */
const visibleTextPattern: CheckKind<{
  fields: TextField[];
  patterns: { name: string; pattern: string; flags?: string }[];
  show?: 'text' | 'code-points';
}> = {
  params: {
    type: 'object',
    properties: {
      fields: FIELDS,
      patterns: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          properties: { name: { type: 'string' }, pattern: { type: 'string' }, flags: { type: 'string' } },
          required: ['name', 'pattern'],
          additionalProperties: false,
        },
      },
      show: { enum: ['text', 'code-points'] },
    },
    required: ['fields', 'patterns'],
    additionalProperties: false,
  },
  needs: ['live'],
  run(params, context) {
    const patterns = params.patterns.map((item) => ({ name: item.name, regex: compileRegex(item.pattern, item.flags) }));
    const out: RawFinding[] = [];
    for (const text of textsIn(context, params.fields)) {
      for (const { name, regex } of patterns) {
        regex.lastIndex = 0;
        const match = regex.exec(text.text);
        if (!match) continue;
        out.push({
          tool: text.tool,
          prompt: text.prompt,
          path: text.path,
          scope: text.scopes,
          key: name,
          data: { where: placeOf(text), pattern: name, excerpt: shown(match[0], params.show) },
        });
      }
    }
    return out;
  },
};

/** The ASCII a non-ASCII character passes for, if any: by compatibility (fullwidth, math letters) or by Unicode's confusables. */
function asciiLookAlike(char: string): string | undefined {
  for (const candidate of [char.normalize('NFKC'), unhomoglyph(char)]) {
    if (candidate !== char && /^[\x21-\x7e]+$/.test(candidate)) return candidate;
  }
  return undefined;
}

/** Names (tools, properties, prompts, arguments) contain no character that imitates ASCII. */
const visibleNameConfusable: CheckKind<{ fields: TextField[] }> = {
  params: { type: 'object', properties: { fields: FIELDS }, required: ['fields'], additionalProperties: false },
  needs: ['live'],
  run(params, context) {
    const out: RawFinding[] = [];
    for (const text of textsIn(context, params.fields)) {
      const lookAlikes = [...text.text]
        .filter((char) => char > '\x7f')
        .flatMap((char) => {
          const ascii = asciiLookAlike(char);
          return ascii ? [`${codePoint(char)} looks like "${ascii}"`] : [];
        });
      if (lookAlikes.length === 0) continue;
      out.push({
        tool: text.tool,
        prompt: text.prompt,
        path: text.path,
        scope: text.scopes,
        data: { where: placeOf(text), name: text.text.replace(/[^\x20-\x7e]/g, '?'), lookAlikes: [...new Set(lookAlikes)].join(', ') },
      });
    }
    return out;
  },
};

/** Each judged 2.x surface's tools as sent, with the connections they stand for. */
function* wireTools(context: RuleContext) {
  for (const surface of context.surfaces) {
    if (CONNECTION_SPECS[surface.connection].sdk !== '2.x') continue;
    for (const tool of surface.listed) yield { tool, surface };
  }
}

/** Every top-level key of every listed tool is one the protocol defines. */
const toolKeysKnown: CheckKind<{ known: string[] }> = {
  params: {
    type: 'object',
    properties: { known: { type: 'array', items: { type: 'string' }, minItems: 1 } },
    required: ['known'],
    additionalProperties: false,
  },
  needs: ['live'],
  run(params, context) {
    const known = new Set(params.known);
    const out: RawFinding[] = [];
    for (const { tool, surface } of wireTools(context)) {
      for (const key of Object.keys(tool)) {
        if (!known.has(key))
          out.push({
            tool: tool.name,
            path: joinPath('', key),
            scope: surface.connection,
            key,
            data: { key: key.replace(/[^\x20-\x7e]/g, '?').slice(0, 80) },
          });
      }
    }
    return out;
  },
};

/** Where an icon's `src` points, judged against the server's own origin (none over stdio). */
function offOrigin(src: unknown, origin: string | null, allowedSchemes: readonly string[]): string | undefined {
  if (typeof src !== 'string') return 'src is not a string';
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return 'src is not an absolute URL';
  }
  if (allowedSchemes.includes(url.protocol.replace(/:$/, ''))) return undefined;
  if (origin !== null && url.origin === origin) return undefined;
  return origin === null
    ? `points to ${url.origin} (a stdio server has no origin of its own)`
    : `points to ${url.origin}, not the server's ${origin}`;
}

/** Every icon of every tool is embedded (an allowed scheme such as data:) or served from the server's own origin. */
const iconsOnOrigin: CheckKind<{ allowSchemes: string[] }> = {
  params: {
    type: 'object',
    properties: { allowSchemes: { type: 'array', items: { type: 'string' } } },
    required: ['allowSchemes'],
    additionalProperties: false,
  },
  needs: ['live'],
  run(params, context) {
    const out: RawFinding[] = [];
    for (const { tool, surface } of wireTools(context)) {
      const icons = Array.isArray(tool.icons) ? tool.icons : [];
      icons.forEach((icon: unknown, index: number) => {
        const problem = offOrigin(isObject(icon) ? icon.src : undefined, surface.origin, params.allowSchemes);
        if (problem) out.push({ tool: tool.name, path: `icons[${index}].src`, scope: surface.connection, data: { problem } });
      });
    }
    return out;
  },
};

export const VISIBLE_KINDS: Record<string, CheckKind> = {
  'visible-text-pattern': visibleTextPattern,
  'visible-name-confusable': visibleNameConfusable,
  'tool-keys-known': toolKeysKnown,
  'icons-on-origin': iconsOnOrigin,
};
