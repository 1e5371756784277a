// JSON trees for the hostile-input fuzzer, serialised by hand so `__proto__` stays an own key, numbers keep their exact
// text and deep nesting costs no recursion; plus addressing any node of a tree, to mutate it where it sits.

export type Json =
  | { t: 'obj'; entries: [string, Json][] }
  | { t: 'arr'; items: Json[] }
  | { t: 'str'; value: string }
  | { t: 'secret'; value: string }
  | { t: 'raw'; text: string; secrets?: string[] };

export const raw = (text: string, secrets?: string[]): Json => ({ t: 'raw', text, secrets });

/**
 * In a template string, a place for a fresh secret (filled per request). `⟨token⟩` and the other names of references
 * (victims.ts) are replaced by the current id or key when the request is sent.
 */
export const SECRET_MARK = '⟨secret⟩';

/** The JSON text of a tree; the secrets inside it are pushed onto `secrets`. */
export const serialise = (json: Json, secrets: string[]): string => {
  switch (json.t) {
    case 'obj':
      return `{${json.entries.map(([key, value]) => `${JSON.stringify(key)}:${serialise(value, secrets)}`).join(',')}}`;
    case 'arr':
      return `[${json.items.map((item) => serialise(item, secrets)).join(',')}]`;
    case 'str':
      return JSON.stringify(json.value);
    case 'secret':
      secrets.push(json.value);
      return JSON.stringify(json.value);
    case 'raw':
      secrets.push(...(json.secrets ?? []));
      return json.text;
  }
};

/** A plain JS value (a valid body) as a tree, to be mutated. */
export const treeOf = (value: unknown): Json => {
  if (Array.isArray(value)) return { t: 'arr', items: value.map(treeOf) };
  if (value !== null && typeof value === 'object') return { t: 'obj', entries: Object.entries(value).map(([k, v]) => [k, treeOf(v)]) };
  if (typeof value === 'string') return { t: 'str', value };
  return raw(JSON.stringify(value));
};

/** How many secret marks a template holds. */
export const marksIn = (value: unknown): number => JSON.stringify(value ?? null).split(SECRET_MARK).length - 1;

/** The tree with each secret mark replaced by the next of `secrets` (cycling: a repeated list repeats its marks). */
export const fillMarks = (json: Json, secrets: string[]): Json => {
  let next = 0;
  const fill = (node: Json): Json => {
    switch (node.t) {
      case 'obj':
        return { t: 'obj', entries: node.entries.map(([key, value]) => [key, fill(value)]) };
      case 'arr':
        return { t: 'arr', items: node.items.map(fill) };
      case 'str': {
        if (!node.value.includes(SECRET_MARK)) return node;
        const used: string[] = [];
        const value = node.value.replaceAll(SECRET_MARK, () => {
          const secret = secrets[next++ % secrets.length];
          used.push(secret);
          return secret;
        });
        return raw(JSON.stringify(value), used);
      }
      default:
        return node;
    }
  };
  return fill(json);
};

/** A node's address: the index of an entry or item at each level below the root. */
export type NodePath = number[];

/** Every node of the tree, the root first, then breadth first (objects' values and arrays' items). */
export const nodePaths = (json: Json): NodePath[] => {
  const out: NodePath[] = [];
  const pending: [NodePath, Json][] = [[[], json]];
  for (let i = 0; i < pending.length; i++) {
    const [path, node] = pending[i];
    out.push(path);
    if (node.t === 'obj') node.entries.forEach(([, value], index) => pending.push([[...path, index], value]));
    if (node.t === 'arr') node.items.forEach((item, index) => pending.push([[...path, index], item]));
  }
  return out;
};

/** The tree with the node at `path` replaced by what `change` makes of it; null removes it from its parent. */
export const changeAt = (json: Json, path: NodePath, change: (node: Json) => Json | null): Json => {
  if (path.length === 0) return change(json) ?? raw('null');
  const [index, ...rest] = path;
  const below = (node: Json): Json | null => (rest.length === 0 ? change(node) : changeAt(node, rest, change));
  if (json.t === 'obj') {
    const entries = json.entries.flatMap(([key, value], i): [string, Json][] => {
      if (i !== index) return [[key, value]];
      const changed = below(value);
      return changed === null ? [] : [[key, changed]];
    });
    return { t: 'obj', entries };
  }
  if (json.t === 'arr') {
    const items = json.items.flatMap((item, i) => {
      if (i !== index) return [item];
      const changed = below(item);
      return changed === null ? [] : [changed];
    });
    return { t: 'arr', items };
  }
  return json;
};

/** The field path of a node as the service names it (`rules[2].permissions[0]`), for failure messages. */
export const fieldPath = (json: Json, path: NodePath): string => {
  let node = json;
  let out = '';
  for (const index of path) {
    if (node.t === 'obj') {
      out += `${out ? '.' : ''}${node.entries[index][0]}`;
      node = node.entries[index][1];
    } else if (node.t === 'arr') {
      out += `[${index}]`;
      node = node.items[index];
    }
  }
  return out || '(body)';
};
