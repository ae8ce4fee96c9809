import { parse, type Filter } from 'scim2-parse-filter';
import { invalidFilter, invalidPath } from './domain-errors';
import { CORE_USER_URN, ENTERPRISE_USER_URN } from './model';

/**
 * The filter subset decisions.md sets (RFC 7644 §3.4.2.2), read by the maintained parser
 * `scim2-parse-filter` and then narrowed: comparisons with `eq` joined by `and` (parentheses
 * around `and` groups change nothing); attribute names and operators case-insensitive; values
 * quoted (JSON strings) or a bare word (Entra's older samples: quoted before parsing). `+`
 * outside quotes is a space. Everything else (`or`, `not`, other operators, other
 * attributes) is 400 invalidFilter. Also parses the PATCH attribute paths of RFC 7644 §3.5.2
 * (`emails[type eq "work"].value`).
 */
export interface FilterValue {
  readonly text: string;
  /** The value was a JSON string (not a number, boolean or bare word turned into one). */
  readonly quoted: boolean;
}

export interface Comparison {
  /** As written, e.g. `emails.value`. */
  readonly path: string;
  readonly value: FilterValue;
}

const MAX_FILTER_LENGTH = 2048;
const SCOPE = 'eq comparisons joined by and, e.g. userName eq "bjensen"';
/** Operators followed by a value. */
const COMPARISONS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le']);

/** `+` outside double quotes becomes a space; inside quotes it is a literal plus. */
export function plusAsSpace(input: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < input.length; i += 1) {
    const ch = input[i];
    if (quoted && ch === '\\') {
      out += ch + (input[i + 1] ?? '');
      i += 1;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    out += !quoted && ch === '+' ? ' ' : ch;
  }
  return out;
}

/**
 * Quotes a bare value after a comparison operator (`externalId eq jyoung`), which decisions.md
 * accepts and the parser does not; JSON literals (numbers, true, false, null) stay as they are.
 */
function quoteBareValues(input: string): string {
  const words = input.match(/"(?:[^"\\]|\\.)*"?|[^\s"()[\]]+|[\s()[\]]+/g) ?? [];
  let previous = '';
  return words
    .map((word) => {
      const bare = COMPARISONS.has(previous.toLowerCase()) && !/^[\s()[\]"]/.test(word);
      if (!/^\s+$/.test(word)) previous = word;
      if (!bare || isJsonLiteral(word)) return word;
      return JSON.stringify(word);
    })
    .join('');
}

const isJsonLiteral = (word: string): boolean => {
  try {
    JSON.parse(word);
    return true;
  } catch {
    return false;
  }
};

function parseFilter(input: string, what: string): Filter {
  if (input.length > MAX_FILTER_LENGTH) throw invalidFilter(`The ${what} has ${input.length} characters; at most ${MAX_FILTER_LENGTH} are accepted.`);
  if (input.trim() === '') throw invalidFilter(`The ${what} is empty; expected ${SCOPE}.`);
  try {
    return parse(quoteBareValues(plusAsSpace(input)));
  } catch {
    throw invalidFilter(`The ${what} could not be read; use ${SCOPE}.`);
  }
}

/** The `and` members of a filter, groups flattened. */
const conjuncts = (f: Filter): Filter[] => (f.op === 'and' ? f.filters.flatMap(conjuncts) : [f]);

function comparison(f: Filter, what: string): Comparison {
  if (f.op === 'or' || f.op === 'not') throw invalidFilter(`"${f.op}" is not supported in the ${what}; use ${SCOPE}.`);
  if (f.op === '[]') throw invalidFilter(`A value filter ("[...]") must be followed by a sub-attribute in the ${what}, e.g. emails[type eq "work"].value eq "a@b.example".`);
  if (f.op !== 'eq') throw invalidFilter(`The operator "${f.op}" is not supported in the ${what}; only eq is (${SCOPE}).`);
  if (f.compValue === null) throw invalidFilter(`Compare with a value, not null, in the ${what}.`);
  return { path: f.attrPath, value: { text: String(f.compValue), quoted: typeof f.compValue === 'string' } };
}

/** Parses `<path> eq <value> [and <path> eq <value>]...` (a PATCH value filter: `type eq "work"`). */
export function parseComparisons(input: string, what = 'filter'): Comparison[] {
  return conjuncts(parseFilter(input, what)).map((f) => comparison(f, what));
}

// ---- the User filter ------------------------------------------------------------------------

export type UserFilterAttribute = 'id' | 'userName' | 'externalId' | 'displayName' | 'emails.value';

export interface UserClause {
  readonly attribute: UserFilterAttribute;
  /** `emails[type eq "<emailType>"].value`: only addresses of this type. */
  readonly emailType?: string;
  readonly value: string;
}

const USER_FILTER_ATTRIBUTES: Readonly<Record<string, UserFilterAttribute>> = {
  id: 'id',
  username: 'userName',
  externalid: 'externalId',
  displayname: 'displayName',
  'emails.value': 'emails.value',
  emails: 'emails.value',
};

const SUPPORTED = 'userName, externalId, id, displayName, emails.value or emails[type eq "work"].value';

/**
 * A `filter` query parameter of GET /Users, as clauses that must all hold. The parser reads
 * `emails[type eq "work"].value eq "x"` as the value path `emails[type eq "work"]` and the
 * comparison `emails.value eq "x"`: the pair is one clause (the address of that type).
 */
export function parseUserFilter(input: string): UserClause[] {
  const parts = conjuncts(parseFilter(input, 'filter'));
  const clauses: UserClause[] = [];
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i];
    if (part.op !== '[]') {
      clauses.push(userClause(comparison(part, 'filter')));
      continue;
    }
    const next = parts[i + 1];
    const compared = next && next.op === 'eq' ? comparison(next, 'filter') : undefined;
    if (!compared || !compared.path.toLowerCase().startsWith(`${part.attrPath.toLowerCase()}.`)) {
      throw invalidFilter(`The value filter on "${part.attrPath}" is not supported; only emails[type eq "<type>"].value eq "<address>" is.`);
    }
    const inner = parseComparisonsOf(part.valFilter);
    const clause = userClause(compared);
    if (clause.attribute !== 'emails.value' || inner.length !== 1 || inner[0].path.toLowerCase() !== 'type') {
      throw invalidFilter(`The value filter on "${part.attrPath}" is not supported; only emails[type eq "<type>"].value is.`);
    }
    clauses.push({ ...clause, emailType: inner[0].value.text });
    i += 1;
  }
  return clauses;
}

const parseComparisonsOf = (f: Filter): Comparison[] => conjuncts(f).map((c) => comparison(c, 'value filter'));

function userClause({ path, value }: Comparison): UserClause {
  const unsupported = () => invalidFilter(`Filtering on "${path}" is not supported; use eq on ${SUPPORTED}.`);
  const parsed = parseAttributePath(path, unsupported);
  if (parsed.kind !== 'attribute' || parsed.schema !== 'core' || parsed.valueFilter) throw unsupported();
  const attribute = USER_FILTER_ATTRIBUTES[`${parsed.attribute}${parsed.subAttribute ? `.${parsed.subAttribute}` : ''}`.toLowerCase()];
  if (!attribute) throw unsupported();
  return { attribute, value: value.text };
}

// ---- attribute paths -------------------------------------------------------------------------

export type ParsedPath =
  | {
      readonly kind: 'attribute';
      readonly schema: 'core' | 'enterprise';
      /** True when the path named its schema URN. */
      readonly qualified: boolean;
      readonly attribute: string;
      readonly valueFilter?: readonly Comparison[];
      readonly subAttribute?: string;
    }
  /** The whole extension, e.g. the key `urn:…:enterprise:2.0:User` of a no-path PATCH value. */
  | { readonly kind: 'extension'; readonly schema: 'enterprise' }
  /** A schema URN this service does not know: its attributes are ignored. */
  | { readonly kind: 'unknownSchema' };

const SCHEMA_URNS: readonly (readonly [string, 'core' | 'enterprise'])[] = [
  [CORE_USER_URN.toLowerCase(), 'core'],
  [ENTERPRISE_USER_URN.toLowerCase(), 'enterprise'],
];

const PATH = /^([A-Za-z$][\w$-]*)(?:\[(.*)\])?(?:\.([A-Za-z$][\w$-]*))?$/s;

/**
 * `[<schema URN>:]<attribute>[\[<value filter>\]][.<sub-attribute>]` (RFC 7644 §3.10,
 * §3.5.2). Names are returned as written; callers match them case-insensitively. The value
 * filter is read by the filter parser.
 */
export function parseAttributePath(path: string, malformed: () => Error = () => invalidPath(`"${path}" is not a valid attribute path.`)): ParsedPath {
  const trimmed = plusAsSpace(path).trim();
  let rest = trimmed;
  let schema: 'core' | 'enterprise' = 'core';
  let qualified = false;
  if (trimmed.toLowerCase().startsWith('urn:')) {
    const lower = trimmed.toLowerCase();
    const known = SCHEMA_URNS.find(([urn]) => lower === urn || lower.startsWith(`${urn}:`));
    if (!known) return { kind: 'unknownSchema' };
    if (lower === known[0]) {
      if (known[1] === 'enterprise') return { kind: 'extension', schema: 'enterprise' };
      throw malformed();
    }
    schema = known[1];
    qualified = true;
    rest = trimmed.slice(known[0].length + 1);
  }
  const m = PATH.exec(rest);
  if (!m) throw malformed();
  const [, attribute, filter, subAttribute] = m;
  if (filter !== undefined && /[[\]]/.test(filter.replace(/"(?:[^"\\]|\\.)*"/g, ''))) throw invalidFilter('Nested value filters ("[" inside "[...]") are not supported.');
  return {
    kind: 'attribute',
    schema,
    qualified,
    attribute,
    ...(filter !== undefined ? { valueFilter: parseComparisons(filter, 'value filter') } : {}),
    ...(subAttribute !== undefined ? { subAttribute } : {}),
  };
}
