/**
 * JSON text read strictly, for the payloads of signed reports (`report.ts`): RFC 8259 says the
 * names of an object SHOULD be unique and leaves duplicates to the reader, and `JSON.parse` keeps
 * the last value of a name given twice. A signed payload with `"gas"` twice means two things to
 * two readers (one taking the first value, one the last), so a report that has one is refused.
 *
 * The text is parsed by Momoa (`@humanwhocodes/momoa`, ECMA-404 strict in its `json` mode), whose
 * tree keeps every member as written; the names of each object are checked on it, then the value
 * is Momoa's own evaluation of the tree (the value `JSON.parse` gives for text without duplicates:
 * `test/live/json.test.ts` checks one against the other).
 */
import { type AnyNode, evaluate, parse } from '@humanwhocodes/momoa';

/** The value of a JSON text, or why it does not read. */
export type StrictJson =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string };

/** The first name given twice in one object of the tree, if any (depth first, in text order). */
function duplicateName(root: AnyNode): string | undefined {
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    switch (node.type) {
      case 'Document':
        stack.push(node.body);
        break;
      case 'Object': {
        const names = new Set<string>();
        for (const m of node.members) {
          const name = m.name.type === 'String' ? m.name.value : m.name.name;
          if (names.has(name)) return name;
          names.add(name);
        }
        for (let i = node.members.length - 1; i >= 0; i--) stack.push(node.members[i]!.value);
        break;
      }
      case 'Array':
        for (let i = node.elements.length - 1; i >= 0; i--) stack.push(node.elements[i]!.value);
        break;
      default:
        break;
    }
  }
  return undefined;
}

/**
 * Reads JSON text (RFC 8259, no extension) whose objects each name a member once: the value, or
 * the problem (text that is not JSON, or a name given twice). Never throws.
 */
export function readStrictJson(text: string): StrictJson {
  if (typeof text !== 'string') throw new TypeError('readStrictJson: the text is a string');
  let tree: ReturnType<typeof parse>;
  try {
    tree = parse(text, { mode: 'json' });
  } catch {
    return { ok: false, problem: 'not JSON text' };
  }
  const twice = duplicateName(tree);
  if (twice !== undefined) {
    return { ok: false, problem: `the name ${JSON.stringify(twice)} is given twice in one object` };
  }
  return { ok: true, value: evaluate(tree) };
}
