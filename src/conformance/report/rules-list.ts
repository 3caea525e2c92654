import { loadRules } from '../rules/engine.js';
import { renderRulesTable } from '../rules/docs.js';

/** The rules list: a terminal table, JSON, or the Markdown table docs/conformance.md embeds. */
export function renderRules(format: 'pretty' | 'json' | 'markdown'): string {
  const ruleSet = loadRules(undefined, { validate: true });
  const { rules } = ruleSet;
  if (format === 'json') {
    return `${JSON.stringify(
      rules.map(({ id, severity, frozenSeverity, class: changeClass, category, title, doc }) => ({
        id,
        severity,
        frozenSeverity,
        class: changeClass,
        category,
        title,
        doc,
      })),
      null,
      2,
    )}\n`;
  }
  if (format === 'markdown') {
    return renderRulesTable(ruleSet, 'docs/rules/');
  }
  const width = Math.max(...rules.map((rule) => rule.id.length));
  return `${rules.map((rule) => `${rule.id.padEnd(width)}  ${rule.severity.padEnd(7)}  ${rule.title}\n${' '.repeat(width + 11)}${rule.doc}`).join('\n')}\n`;
}
