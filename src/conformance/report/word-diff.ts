/** One run of a word diff: text both sides share, or text only the before or the after side has. */
export interface DiffPart {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** Beyond this many words a side, the diff is not computed (the table would be too big). */
const MAX_WORDS = 6000;

/** Words and the whitespace between them, so joining the parts gives the text back. */
function words(text: string): string[] {
  return text.match(/\S+|\s+/g) ?? [];
}

/**
 * A word-level diff of two texts (longest common subsequence of words); null when either side is
 * too long to diff.
 */
export function wordDiff(before: string, after: string): DiffPart[] | null {
  const a = words(before);
  const b = words(after);
  if (a.length > MAX_WORDS || b.length > MAX_WORDS) return null;
  const width = b.length + 1;
  const lengths = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        a[i] === b[j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const parts: DiffPart[] = [];
  const push = (kind: DiffPart['kind'], text: string) => {
    const last = parts.at(-1);
    if (last?.kind === kind) last.text += text;
    else parts.push({ kind, text });
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      push('same', b[j]!);
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!)) {
      push('removed', a[i++]!);
    } else {
      push('added', b[j++]!);
    }
  }
  return coalesce(parts);
}

/**
 * A change of several words reads as one: whitespace kept between two changes joins both the
 * removed and the added run (`[-page by page-]{+in one go+}`, not word by word).
 */
function coalesce(parts: readonly DiffPart[]): DiffPart[] {
  const out: DiffPart[] = [];
  let index = 0;
  while (index < parts.length) {
    if (parts[index]!.kind === 'same') {
      out.push(parts[index++]!);
      continue;
    }
    let removed = '';
    let added = '';
    for (;;) {
      const part = parts[index];
      if (part?.kind === 'removed') removed += part.text;
      else if (part?.kind === 'added') added += part.text;
      else if (part && /^\s+$/.test(part.text) && parts[index + 1] && parts[index + 1]!.kind !== 'same') {
        removed += part.text;
        added += part.text;
      } else break;
      index++;
    }
    if (removed) out.push({ kind: 'removed', text: removed });
    if (added) out.push({ kind: 'added', text: added });
  }
  return out;
}

/** The diff with long unchanged runs cut to a few words of context around each change. */
export function compactDiff(parts: readonly DiffPart[], context = 6): DiffPart[] {
  return parts.map((part, index) => {
    if (part.kind !== 'same') return part;
    const list = words(part.text);
    const keepHead = index > 0 ? context * 2 : 0;
    const keepTail = index < parts.length - 1 ? context * 2 : 0;
    if (list.length <= keepHead + keepTail + 1) return part;
    const tail = list.slice(list.length - keepTail).join('');
    return { kind: 'same', text: `${list.slice(0, keepHead).join('')}…${tail ? ` ${tail}` : ''}` };
  });
}
