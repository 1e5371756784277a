// The bodies the hostile-input fuzzer sends, and their secrets: hostile leaves and values, valid bodies mutated
// everywhere at once or at a few nodes at any depth.
import fc from 'fast-check';
import { changeAt, fieldPath, fillMarks, Json, marksIn, nodePaths, raw, serialise, treeOf } from './json-tree';

export const WINDOW = 6;
export const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];

// ---------------------------------------------------------------------------------------------------------------
// Secrets

/** Letters and digits in a mix no message of ours has; bodies also get NUL, lone surrogates, quotes, a line separator. */
export const SECRET_LETTERS = [...'ABCDEFGHJKLMNPQRTUVWXYZbdfhjkmnpqrtvwxz2345678'];
/**
 * The letters no hexadecimal number, UUID, date or duration holds. Every fourth character of a secret is one of them,
 * so none of its windows can be read in the request ids, timestamps and durations of every log line.
 */
const NOT_HEX = SECRET_LETTERS.filter((letter) => !/[0-9a-f]/i.test(letter));

/** `Zq9` then groups of one letter that is not hex and three of `units`. */
const secretOf = (units: string[]) =>
  fc
    .array(fc.tuple(fc.constantFrom(...NOT_HEX), fc.string({ unit: fc.constantFrom(...units), minLength: 3, maxLength: 3 })), { minLength: 2, maxLength: 6 })
    .map((groups) => `Zq9${groups.map(([letter, rest]) => letter + rest).join('')}`);

/** For JSON bodies. */
export const secretText = secretOf([...SECRET_LETTERS, '\u0000', '\ud800', '\udfff', '"', '\\', '\u2028', 'é']);
/** For URLs (percent-encoded, so no lone surrogate). */
export const urlSecretText = secretOf([...SECRET_LETTERS, '\u0000', '"', 'é', '&', '=', '/', '%']);
/** Letters and digits only: valid wherever free text is, and in headers. */
export const plainSecretText = secretOf(SECRET_LETTERS);
const secret: fc.Arbitrary<Json> = fc.oneof(secretText, plainSecretText).map((value) => ({ t: 'secret', value }));

// ---------------------------------------------------------------------------------------------------------------
// Leaves and values

export const EDGE_NUMBERS = ['1e308', '-1e308', '-0', '0', '-1', '1.5', '9007199254740993', '99999999999999999999', '4611686018427387904', '1e-400', '2147483648'];
/** Code the JavaScript parser cannot compile without overflowing its stack. */
export const DEEP_CODE = `module.exports = async () => ${'('.repeat(20_000)}1${')'.repeat(20_000)};`;
export const nestedText = (depth: number, kind: 'array' | 'object') =>
  kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/**
 * Where a secret sits inside syntax the service parses and may quote when it fails: Liquid expressions (detokenize,
 * masks, search indexes), search queries, containers, dates. The `⟨token⟩` ones name the stable token.
 */
const SYNTAX_AROUND_SECRETS: ((secret: string) => string)[] = [
  (s) => `{{ data | ${s} }}`,
  (s) => `{{ ${s} }}`,
  (s) => `{{ data | reveal_last: '${s}' }}`,
  (s) => `{{ data | json: '$.${s}' }}`,
  (s) => `{% ${s} %}`,
  (s) => `{{ data | pad_left: ${s}, 'x' }}`,
  (s) => `x {{ ${s}`,
  (s) => `{{ ⟨token⟩ | ${s} }}`,
  (s) => `{{ token: ⟨token⟩ | json: '${s}' }}`,
  (s) => `{{ token: ${s} }}`,
  (s) => `${s}:x`,
  (s) => `data:${s} ${s}`,
  (s) => `metadata.${s}:[a TO b]`,
  (s) => `created_at:${s}`,
  (s) => `(data:${s}`,
  (s) => `data:"${s}`,
  (s) => `container:"/${s}/*x"`,
  (s) => `data:${s}~2`,
  (s) => `/${s}/`,
  (s) => `2024-01-01T${s}`,
  (s) => `token:${s}`,
];
const secretInSyntax: fc.Arbitrary<Json> = fc
  .tuple(fc.constantFrom(...SYNTAX_AROUND_SECRETS), plainSecretText)
  .map(([shape, value]) => raw(JSON.stringify(shape(value)), [value]));

const hostileLeaf: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: secret },
  { weight: 2, arbitrary: secretInSyntax },
  { weight: 2, arbitrary: fc.constantFrom(...EDGE_NUMBERS, 'true', 'false', 'null').map((text) => raw(text)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('', ' ', '\u0000', '\ud800', 'a\udfffb', '\u0000\u0000', '/', '/a/', 'token:read', 'x'.repeat(5_000), DEEP_CODE).map(
      (value): Json => ({ t: 'str', value }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(63, 64, 65, 100_000, 100_000), fc.constantFrom<'array' | 'object'>('array', 'object'))
      .map(([depth, kind]) => raw(nestedText(kind === 'object' ? Math.min(depth, 60_000) : depth, kind))),
  },
  {
    weight: 1,
    // Long lists, bounded so a body stays under 1 MiB: numbers, prototype-keyed objects, or secrets.
    arbitrary: fc
      .tuple(fc.constantFrom(31, 101, 201, 1_000, 20_000), fc.constantFrom('1', '{"constructor":1}', '"token:read"', 'secret'), secretText)
      .map(([length, item, text]) =>
        item === 'secret'
          ? raw(`[${Array.from({ length: Math.min(length, 1_000) }, () => JSON.stringify(text)).join(',')}]`, [text])
          : raw(`[${Array.from({ length }, () => item).join(',')}]`),
      ),
  },
);

const keyName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom('name', 'type', 'data', 'rules', 'permissions', 'metadata', 'query', 'page', 'size', 'code', 'id', 'status', 'args', 'a.b') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

/** Any JSON value, with prototype-named keys at every level and hostile leaves. */
const hostileValue: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: hostileLeaf },
    { weight: 1, arbitrary: fc.array(fc.tuple(keyName, tie('value')), { maxLength: 4 }).map((entries): Json => ({ t: 'obj', entries })) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }).map((items): Json => ({ t: 'arr', items })) },
  ),
})).value;

// ---------------------------------------------------------------------------------------------------------------
// Mutations of a valid body

/** A repeated list stays under about 1.2 MB of text: past 1 MiB is a 413 anyway, and bigger only costs time. */
const MAX_REPEATED_TEXT = 1_200_000;

/** `items` `times` over, fewer times (at least twice) when that would pass MAX_REPEATED_TEXT. */
const repeated = (items: Json[], times: number): Json[] => {
  if (times === 1) return items;
  const size = Math.max(1, items.reduce((sum, item) => sum + serialise(item, []).length + 1, 0));
  return Array.from({ length: Math.max(2, Math.min(times, Math.floor(MAX_REPEATED_TEXT / size))) }, () => items).flat();
};

/**
 * A valid body mutated at every level: each property kept (and mutated inside), replaced by a hostile value or
 * removed; extra properties (prototype names first among them) added; list elements repeated into long lists. Only
 * the outermost list on a path is repeated into a long one: repeats multiply, and 101 × 101 × a long leaf would be a
 * body no string can hold.
 */
const mutatedEverywhere = (template: Json, longLists = true): fc.Arbitrary<Json> => {
  if (template.t === 'obj') {
    const entries = template.entries.map(([key, value]) =>
      fc.oneof(
        { weight: 3, arbitrary: mutatedEverywhere(value, longLists).map((v): [string, Json] | null => [key, v]) },
        { weight: 2, arbitrary: hostileValue.map((v): [string, Json] | null => [key, v]) },
        { weight: 1, arbitrary: fc.constant(null) },
      ),
    );
    return fc
      .tuple(fc.tuple(...entries), fc.array(fc.tuple(keyName, hostileValue), { maxLength: 2 }))
      .map(([kept, extra]): Json => ({ t: 'obj', entries: [...kept.filter((e): e is [string, Json] => e !== null), ...extra] }));
  }
  if (template.t === 'arr') {
    if (template.items.length === 0) return fc.array(hostileValue, { maxLength: 3 }).map((items): Json => ({ t: 'arr', items }));
    return fc
      .tuple(
        fc.tuple(...template.items.map((item) => mutatedEverywhere(item, false))),
        longLists ? fc.constantFrom(1, 1, 1, 2, 31, 101) : fc.constantFrom(1, 1, 2),
      )
      .map(([items, times]): Json => ({ t: 'arr', items: repeated(items, times) }));
  }
  return fc.oneof({ weight: 3, arbitrary: fc.constant(template) }, { weight: 1, arbitrary: hostileLeaf });
};

/** One change at one node, anywhere in the tree: the node is picked among all of them at apply time. */
interface NodeChange {
  at: number;
  op: 'replace' | 'secret' | 'remove' | 'add' | 'repeat' | 'wrap';
  value: Json;
  secret: Json;
  key: string;
  times: number;
}

const nodeChange: fc.Arbitrary<NodeChange> = fc.record({
  at: fc.nat({ max: 10_000 }),
  op: fc.constantFrom<NodeChange['op']>('replace', 'replace', 'secret', 'secret', 'remove', 'add', 'add', 'repeat', 'wrap'),
  value: hostileValue,
  secret,
  key: keyName,
  times: fc.constantFrom(2, 31, 101),
});

const applyChange = (tree: Json, change: NodeChange): { tree: Json; change: Change } => {
  const paths = nodePaths(tree);
  const path = paths[change.at % paths.length];
  const field = fieldPath(tree, path);
  const changed = changeAt(tree, path, (node) => {
    switch (change.op) {
      case 'replace':
        return change.value;
      case 'secret':
        return change.secret;
      case 'remove':
        return path.length === 0 ? change.value : null;
      case 'add':
        if (node.t === 'obj') return { t: 'obj', entries: [...node.entries, [change.key, change.value]] };
        if (node.t === 'arr') return { t: 'arr', items: [...node.items, change.value] };
        return change.value;
      case 'repeat':
        return { t: 'arr', items: repeated(node.t === 'arr' ? node.items : [node], change.times) };
      case 'wrap':
        return change.key.length % 2 === 0 ? { t: 'arr', items: [node] } : { t: 'obj', entries: [[change.key, node]] };
    }
  });
  return { tree: changed, change: { what: `${change.op} ${field}`, depth: path.length } };
};

/** A valid body with one to three changes, each at any node (nested ones as often as their number makes them). */
const mutatedAtNodes = (template: Json) =>
  fc.array(nodeChange, { minLength: 1, maxLength: 3 }).map((changes) =>
    changes.reduce<{ tree: Json; changed: Change[] }>(
      ({ tree, changed }, change) => {
        const applied = applyChange(tree, change);
        return { tree: applied.tree, changed: [...changed, applied.change] };
      },
      { tree: template, changed: [] },
    ),
  );

// ---------------------------------------------------------------------------------------------------------------
// Bodies

/** What was done to a valid body: `replace rules[2].permissions[0]` at depth 4 (a top-level property is at 1). */
export interface Change {
  what: string;
  depth: number;
}

/** A body as sent: JSON text (references still marked), the secrets in it, and what was changed. */
export interface BodyText {
  text: string;
  secrets: string[];
  changed: Change[];
}

const textOf = (tree: Json, secretsForMarks: string[], changed: Change[] = []): BodyText => {
  const secrets: string[] = [];
  const text = serialise(fillMarks(tree, secretsForMarks), secrets);
  return { text, secrets, changed };
};

/** Fresh secrets for a template's marks (at least one, for marks a mutation copied into a template that had none). */
const markSecrets = (template: unknown) => {
  const count = Math.max(1, marksIn(template));
  return fc.array(plainSecretText, { minLength: count, maxLength: count });
};

/** The template as is, its marks filled with fresh secrets: a request that should succeed. */
export const validBody = (template: unknown): fc.Arbitrary<BodyText> => markSecrets(template).map((secrets) => textOf(treeOf(template), secrets));

/** The template with a few changes at any depth. */
export const changedBody = (template: unknown): fc.Arbitrary<BodyText> =>
  fc.tuple(mutatedAtNodes(treeOf(template)), markSecrets(template)).map(([{ tree, changed }, secrets]) => textOf(tree, secrets, changed));

/** What a hostile body is: the template mutated everywhere, random JSON, or text that is not JSON (with secrets inside). */
export const hostileBody = (template: unknown): fc.Arbitrary<BodyText> => {
  const everywhere = fc.tuple(mutatedEverywhere(treeOf(template)), markSecrets(template)).map(([tree, secrets]) => textOf(tree, secrets, [{ what: 'everywhere', depth: 0 }]));
  const broken = fc.tuple(everywhere, fc.nat(), fc.constantFrom('cut', 'single-quote', 'garbage')).map(([body, at, how]): BodyText => {
    const { text } = body;
    const position = text.length === 0 ? 0 : at % text.length;
    const broke = how === 'cut' ? text.slice(0, position) : how === 'single-quote' ? text.replaceAll('"Zq9', "'Zq9") : `${text.slice(0, position)}@${text.slice(position)}`;
    return { ...body, text: broke, changed: [{ what: `broken (${how})`, depth: 0 }] };
  });
  const random = hostileValue.map((tree) => textOf(tree, [], [{ what: 'random', depth: 0 }]));
  return fc.oneof({ weight: 6, arbitrary: everywhere }, { weight: 2, arbitrary: random }, { weight: 2, arbitrary: broken });
};
