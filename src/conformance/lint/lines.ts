import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';

/**
 * Line numbers of a JSON text by JSON path (JSON is YAML, whose parser keeps source ranges): the
 * line of the key the path ends at, or of the nearest enclosing value it reaches.
 */
export function jsonLines(text: string): (path: readonly (string | number)[]) => number {
  const counter = new LineCounter();
  const document = parseDocument(text, { lineCounter: counter, keepSourceTokens: false, uniqueKeys: false });
  const lineAt = (offset: number | undefined) => (offset === undefined ? 1 : counter.linePos(offset).line);
  return (path) => {
    let node: Node | null | undefined = document.contents as Node | null;
    let line = lineAt(node?.range?.[0]);
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
        if (!pair) return line;
        line = lineAt((pair.key as Node).range?.[0]);
        node = pair.value as Node | null;
      } else if (isSeq(node) && typeof segment === 'number') {
        const item = node.items[segment] as Node | undefined;
        if (!item) return line;
        line = lineAt(item.range?.[0]);
        node = item;
      } else {
        return line;
      }
    }
    return line;
  };
}

/** The 1-based line of a character offset in a text. */
export function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line++;
  return line;
}
