import { ENVIRONMENT_VARIABLES } from '../../src/server/config.js';

const CONFIG_TABLE_START = '<!-- config-table:start (generated from src/server/config.ts; run npm run generate:contract) -->';
const CONFIG_TABLE_END = '<!-- config-table:end -->';

const cell = (text: string): string => text.replace(/\|/g, '\\|');

function renderConfigTable(): string {
  const rows = ENVIRONMENT_VARIABLES.map((v) => {
    const values = v.values ? v.values.map((x) => `\`${x}\``).join(', ') : '';
    const stdio = v.defaults?.stdio ? `\`${v.defaults.stdio}\`` : '';
    const http = v.defaults?.http ? `\`${v.defaults.http}\`` : '';
    const description = v.fromFile
      ? `${v.description} Or \`${v.name}_FILE\`: a file holding it (one trailing newline dropped; not both).`
      : v.description;
    return `| \`${v.name}\` | ${cell(values)} | ${stdio} | ${http} | ${cell(description)} |`;
  });
  return ['| Variable | Values | Default (stdio) | Default (http) | Meaning |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** The README with its configuration table replaced by the one generated from the code. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(CONFIG_TABLE_START);
  const end = readme.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) throw new Error('README.md lacks the config-table markers');
  return `${readme.slice(0, start + CONFIG_TABLE_START.length)}\n${renderConfigTable()}\n${readme.slice(end)}`;
}
