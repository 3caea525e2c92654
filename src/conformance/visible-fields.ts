import type { ToolFixture } from '../contract/fixture.js';
import type { Change } from './diff.js';

type Visible = Pick<ToolFixture, 'names' | 'titles' | 'instructions'>;

/**
 * What the profile hash leaves out but a model reads, compared beside it: the title of each tool
 * both sides list (a title change is a text change, like a description's), and the server
 * instructions. A side that does not record a field (an older fixture) is not compared on it.
 */
export function diffVisibleFields(expected: Visible, live: Visible): Change[] {
  const changes: Change[] = [];
  if (expected.titles && live.titles) {
    const shared = expected.names.filter((name) => live.names.includes(name));
    for (const name of shared) {
      const before = expected.titles[name];
      const after = live.titles[name];
      if (before !== after) changes.push({ kind: 'description-changed', tool: name, path: 'title', before, after });
    }
  }
  if (expected.instructions !== undefined && live.instructions !== undefined && expected.instructions !== live.instructions) {
    changes.push({ kind: 'instructions-changed', path: 'instructions', before: expected.instructions, after: live.instructions });
  }
  return changes;
}
