import { findHits, loadPatternLibrary, mayHit, patternSet, toolKey, type Hit, type PatternLibrary, type TextOwner } from '../poisoning.js';
import type { Change } from '../../diff/changes.js';
import { placeOf, visibleTexts, type TextField, type VisibleText } from '../visible-text.js';
import type { CheckKind, RawFinding, RuleContext } from '../types.js';

const SETS = { type: 'array', items: { type: 'string' }, minItems: 1 } as const;

interface Analysis {
  /** Keys (toolKey) of every tool the surfaces list. */
  serverTools: Set<string>;
  /** Keys of each tool's own parameter names, by tool. */
  parameters: Map<string, Set<string>>;
  /** The texts some set may hit, with those sets' ids; a text no set may hit is absent. */
  candidates: Map<VisibleText, string[]>;
}

const analyses = new WeakMap<readonly VisibleText[], Analysis>();

/**
 * What every poisoning rule needs from the texts, worked out once for all of them: the server's
 * tool names, each tool's parameters, and which sets could match each text at all (a text the
 * server repeats, such as a parameter described alike in every tool, is searched once).
 */
function analyse(texts: readonly VisibleText[], library: PatternLibrary): Analysis {
  const known = analyses.get(texts);
  if (known) return known;
  const serverTools = new Set<string>();
  const parameters = new Map<string, Set<string>>();
  const candidates = new Map<VisibleText, string[]>();
  const byText = new Map<string, string[]>();
  for (const text of texts) {
    if (text.tool !== undefined && text.field === 'name') {
      if (text.path === 'name') serverTools.add(toolKey(text.tool));
      else {
        if (!parameters.has(text.tool)) parameters.set(text.tool, new Set());
        parameters.get(text.tool)!.add(toolKey(text.text));
      }
    }
    const key = `${text.field}\u0000${text.text}`;
    let sets = byText.get(key);
    if (!sets) {
      sets = [...library.sets.values()].filter((set) => mayHit(set, text.text, text.field)).map((set) => set.id);
      byText.set(key, sets);
    }
    if (sets.length > 0) candidates.set(text, sets);
  }
  const analysis = { serverTools, parameters, candidates };
  analyses.set(texts, analysis);
  return analysis;
}

function data(text: Pick<VisibleText, 'tool' | 'prompt' | 'path'>, hit: Hit, extra: Record<string, unknown> = {}) {
  return {
    where: placeOf(text),
    pattern: `${hit.set}/${hit.pattern}`,
    excerpt: hit.excerpt,
    beside: hit.beside ? `, ${hit.beside}` : '',
    ...extra,
  };
}

/**
 * No model-visible text matches a pattern of the named sets (rules/poisoning/). One finding per
 * text and pattern, naming the field path, the pattern and the span it matched.
 */
const poisoningPatterns: CheckKind = {
  params: { type: 'object', properties: { sets: SETS }, required: ['sets'], additionalProperties: false },
  needs: ['live'],
  run(params, context) {
    const library = loadPatternLibrary();
    const sets = (params.sets as string[]).map((id) => patternSet(library, id));
    const { serverTools, parameters, candidates } = analyse(visibleTexts(context.surfaces), library);
    const out: RawFinding[] = [];
    for (const [text, setIds] of candidates) {
      const owner: TextOwner = {
        tool: text.tool,
        parameters: (text.tool !== undefined && parameters.get(text.tool)) || new Set(),
        serverTools,
      };
      for (const set of sets) {
        if (!setIds.includes(set.id)) continue;
        for (const hit of findHits(set, text.text, text.field, owner, library)) {
          out.push({
            tool: text.tool,
            prompt: text.prompt,
            path: text.path,
            scope: text.scopes,
            key: `${hit.set}/${hit.pattern}`,
            data: data(text, hit),
          });
        }
      }
    }
    return out;
  },
};

/** The model-visible field a changed path stands for, as the visible-text scan classifies it. */
function fieldOfChange(path: string): TextField {
  const last =
    path
      .replace(/\[\d+\]$/, '')
      .split('.')
      .pop() ?? '';
  if (last === 'instructions') return 'instructions';
  if (last === 'title') return 'title';
  if (last === 'default') return 'default';
  return 'description';
}

/**
 * The old and new text of a change: a text that changed with both sides known (an unrecorded old
 * text is not taken for none), or the description of an added tool, all of it new.
 */
function textsOf(change: Change): { before: string; after: string; path: string } | undefined {
  if (change.kind === 'tool-added')
    return change.text?.after === undefined ? undefined : { before: '', after: change.text.after, path: 'description' };
  if (typeof change.after !== 'string') return undefined;
  return { before: typeof change.before === 'string' ? change.before : '', after: change.after, path: change.path };
}

/**
 * A change (live against the baseline, or between two fixture sets) whose new text matches a
 * pattern its old text did not: the poisoning arrived with this change (a rug pull).
 */
const poisoningIntroduced: CheckKind = {
  params: { type: 'object', properties: { sets: SETS }, required: ['sets'], additionalProperties: false },
  needs: ['changes'],
  run(params, context: RuleContext) {
    const library = loadPatternLibrary();
    const sets = (params.sets as string[]).map((id) => patternSet(library, id));
    const out: RawFinding[] = [];
    for (const { scope, change } of context.changes) {
      const texts = textsOf(change);
      if (!texts) continue;
      const { before, after, path } = texts;
      const field = fieldOfChange(path);
      const owner: TextOwner = { tool: change.tool, parameters: new Set(), serverTools: new Set() };
      const place = { tool: change.tool, prompt: change.prompt, path };
      for (const set of sets) {
        const earlier = new Set(findHits(set, before, field, owner, library).map((hit) => hit.pattern));
        for (const hit of findHits(set, after, field, owner, library)) {
          if (earlier.has(hit.pattern)) continue;
          out.push({
            ...place,
            scope,
            key: `${hit.set}/${hit.pattern}`,
            data: data(place, hit, { change: change.kind }),
            text: { before, after },
          });
        }
      }
    }
    return out;
  },
};

export const POISONING_KINDS: Record<string, CheckKind> = {
  'poisoning-patterns': poisoningPatterns,
  'poisoning-introduced': poisoningIntroduced,
};
