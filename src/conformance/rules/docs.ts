import { markdownProse } from '../report/escape/markdown.js';
import type { RuleSet } from './engine.js';
import type { RuleDefinition } from './types.js';

/** The anchor of a rule inside its category page, e.g. `naming-verb-first`. */
export function anchorOf(rule: Pick<RuleDefinition, 'id'>): string {
  return rule.id.replace(/\//g, '-');
}

function severityText(rule: RuleDefinition): string {
  const parts: string[] = [rule.severity];
  if (rule.frozenSeverity && rule.frozenSeverity !== rule.severity) parts.push(`${rule.frozenSeverity} under \`check\` (frozen contract)`);
  return parts.join('; ');
}

/**
 * The rules table: `b2-mcp-conform rules --format markdown`, and the list in docs/conformance.md.
 * `linkBase` is the path from the reader to docs/rules/.
 */
export function renderRulesTable(ruleSet: RuleSet, linkBase: string): string {
  const rows = ruleSet.rules.map(
    (rule) =>
      `| [\`${rule.id}\`](${linkBase}${rule.category}.md#${anchorOf(rule)}) | ${severityText(rule)}${rule.class ? ` (${rule.class})` : ''} | ${markdownProse(rule.title)} |`,
  );
  return `${['| Rule | Severity | Description |', '| --- | --- | --- |', ...rows].join('\n')}\n`;
}

/** The rule's examples as two lists of quoted texts (none when it has none). */
function examplesOf(rule: RuleDefinition): string[] {
  const list = (heading: string, texts: string[] | undefined) =>
    texts?.length ? [heading, '', ...texts.map((text) => `- \`\` ${text} \`\``), ''] : [];
  return [...list('**Reported**, for example:', rule.examples?.flagged), ...list('**Not reported:**', rule.examples?.clean)];
}

/** One page per category under docs/rules/, generated from the rule files (keys are package-relative paths). */
export function renderRuleDocs(ruleSet: RuleSet): Record<string, string> {
  const pages: Record<string, string> = {};
  for (const category of ruleSet.categories) {
    const rules = ruleSet.rules.filter((rule) => rule.category === category.name);
    const lines = [
      `# \`${category.name}\` rules`,
      '',
      `<!-- Generated from rules/${category.name}.json; edit the rule file, then run UPDATE_RULE_DOCS=1 npx vitest run tests/conformance/docs.test.ts -->`,
      '',
      category.description,
      '',
      renderRulesTable({ ...ruleSet, rules }, '').trimEnd(),
      '',
    ];
    for (const rule of rules) {
      const { kind, ...params } = rule.check;
      lines.push(
        `<a id="${anchorOf(rule)}"></a>`,
        '',
        `## \`${rule.id}\`: ${markdownProse(rule.title)}`,
        '',
        `- **Severity:** ${severityText(rule)}${rule.class ? `; class **${rule.class}**` : ''}`,
        ...(rule.source ? [`- **Source:** ${rule.source}`] : []),
        `- **Packs:** ${rule.packs.map((pack) => `\`${pack}\``).join(', ')}`,
        `- **Check:** \`${kind}\`${Object.keys(params).length ? ` with \`${JSON.stringify(params)}\`` : ''}`,
        ...(rule.integrity
          ? [
              '- **Integrity rule:** a config file cannot turn it off, lower its severity or suppress its findings without `--allow-integrity-overrides`',
            ]
          : []),
        `- **Message:** ${markdownProse(rule.message)}`,
        ...(rule.subsumedBy
          ? [
              `- **Steps back for:** ${rule.subsumedBy.map((id) => `\`${id}\``).join(', ')} (same tool, or any finding when this one names no tool)`,
            ]
          : []),
        '',
        `**Why.** ${markdownProse(rule.rationale)}`,
        '',
        `**Fix.** ${markdownProse(rule.fix)}`,
        '',
        ...examplesOf(rule),
      );
    }
    pages[`docs/rules/${category.name}.md`] = lines.join('\n');
  }
  return pages;
}
