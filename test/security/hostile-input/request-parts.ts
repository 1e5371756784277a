// The parts of a hostile request besides its body: query strings, stray ids, headers and content types.
import fc from 'fast-check';
import { plainSecretText, PROTOTYPE_NAMES, urlSecretText } from './hostile-values';
import { SECRET_MARK } from './json-tree';

const QUERY_NAMES = ['page', 'size', 'name', 'application_type', 'entity_type', 'entity_id', 'start_date', 'page[]', 'size[0]', 'name[]', 'name[x]', ...PROTOTYPE_NAMES];
const QUERY_VALUES = ['1', '0', '-1', '20', '0x10', '1e1', '1e308', '99999999999999999999', '4611686018427387904', '1000000000', '1000000001', '', ' 5', '%FF', '%00', '*', 'private', 'a*b', 'token', '2024-01-01'];

export interface QueryText {
  /** `?…` or empty. */
  text: string;
  secrets: string[];
}

const NO_QUERY: QueryText = { text: '', secrets: [] };

/** Up to four pairs of hostile names and values, a secret among the values now and then; appended to `base`. */
export const hostileQuery = (base: QueryText = NO_QUERY): fc.Arbitrary<QueryText> =>
  fc
    .array(
      fc.tuple(
        fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }),
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...QUERY_VALUES).map((v) => ({ v, secret: false })) },
          { weight: 1, arbitrary: urlSecretText.map((v) => ({ v, secret: true })) },
        ),
        fc.boolean(),
      ),
      { maxLength: 4 },
    )
    .map((pairs) => {
      const secrets = pairs.filter(([, value]) => value.secret).map(([, value]) => value.v);
      const added = pairs.map(([name, { v, secret: isSecret }, encode]) => `${encode ? encodeURIComponent(name) : name}=${encode || isSecret ? encodeURIComponent(v) : v}`);
      const all = [...(base.text ? [base.text.slice(1)] : []), ...added];
      return { text: all.length > 0 ? `?${all.join('&')}` : '', secrets: [...base.secrets, ...secrets] };
    });

/** A query template (`name=⟨secret⟩&page=1`) with its marks filled with fresh secrets. */
export const validQuery = (template: string): fc.Arbitrary<QueryText> => {
  const marks = template.split(SECRET_MARK).length - 1;
  return fc.array(plainSecretText, { minLength: marks, maxLength: marks }).map((secrets) => {
    let next = 0;
    const text = template.replaceAll(SECRET_MARK, () => secrets[next++]);
    return { text: text ? `?${text}` : '', secrets };
  });
};

/** Another UUID, a malformed one, or a secret, where an id belongs. */
export const strayId = fc.oneof(
  { weight: 1, arbitrary: fc.uuid().map((id) => id.toUpperCase()) },
  { weight: 1, arbitrary: fc.constantFrom('not-a-uuid', '%FF', '%00', '..', '00000000-0000-0000-0000-00000000000g') },
  { weight: 1, arbitrary: urlSecretText.map((s) => encodeURIComponent(s)) },
);

export interface HeaderText {
  name: string;
  value: string;
  secrets: string[];
}

/** A header no endpoint reads, holding a secret: none of them may reach the log. */
export const secretHeader: fc.Arbitrary<HeaderText> = fc
  .tuple(fc.constantFrom('User-Agent', 'Authorization', 'Cookie', 'Referer', 'X-Forwarded-For', 'X-Api-Key', 'SVC-PROXY-KEY'), plainSecretText)
  .map(([name, value]) => ({ name, value, secrets: [value] }));

/** A secret header, or a body encoding the body parser must refuse without quoting it. */
export const strayHeader: fc.Arbitrary<HeaderText> = fc.oneof(
  secretHeader,
  fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'gzip, gzip', 'compress').map((value) => ({ name: 'Content-Encoding', value, secrets: [] })),
  plainSecretText.map((value) => ({ name: 'Content-Encoding', value, secrets: [value] })),
);

export interface ContentType {
  value: string;
  secrets: string[];
}

/** JSON mostly; else another type, or a charset or boundary that is a secret. */
export const hostileContentType: fc.Arbitrary<ContentType> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<ContentType>({ value: 'application/json', secrets: [] }) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('application/merge-patch+json', 'text/plain', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'APPLICATION/JSON', 'application/x-www-form-urlencoded')
      .map((value) => ({ value, secrets: [] })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('application/json; charset=', 'multipart/form-data; boundary=', 'application/', 'application/json; '), plainSecretText)
      .map(([prefix, value]) => ({ value: prefix + value, secrets: [value] })),
  },
);
