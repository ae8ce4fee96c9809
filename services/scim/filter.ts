import { invalidFilter, invalidPath } from './errors';
import { CORE_USER_URN, ENTERPRISE_USER_URN } from './schema';

/**
 * The filter subset decisions.md sets (RFC 7644 §3.4.2.2): comparisons with `eq` joined by
 * `and`; attribute names and operators case-insensitive; values quoted (JSON strings) or a
 * bare word. `+` outside quotes is a space (API Gateway, like the local gateway, leaves `+`
 * in query strings as it is). Everything else is 400 invalidFilter. Also parses the PATCH
 * attribute paths of RFC 7644 §3.5.2 (`emails[type eq "work"].value`).
 */
export interface FilterValue {
  readonly text: string;
  readonly quoted: boolean;
}

export interface Comparison {
  /** As written, e.g. `emails[type eq "work"].value`. */
  readonly path: string;
  readonly value: FilterValue;
}

type Token = { readonly kind: 'word'; readonly text: string } | { readonly kind: 'string'; readonly text: string } | { readonly kind: 'paren'; readonly text: string };

const OTHER_OPERATORS = new Set(['ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le', 'pr']);
const MAX_FILTER_LENGTH = 2048;
const SCOPE = 'eq comparisons joined by and, e.g. userName eq "bjensen"';

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

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i];
    if (/\s/.test(ch)) {
      i += 1;
    } else if (ch === '"') {
      const end = closingQuote(input, i);
      tokens.push({ kind: 'string', text: decodeString(input.slice(i, end + 1)) });
      i = end + 1;
    } else if (ch === '(' || ch === ')') {
      tokens.push({ kind: 'paren', text: ch });
      i += 1;
    } else {
      let word = '';
      while (i < input.length && !/[\s()"]/.test(input[i])) {
        if (input[i] === '[') {
          const end = closingBracket(input, i);
          word += input.slice(i, end + 1);
          i = end + 1;
        } else {
          word += input[i];
          i += 1;
        }
      }
      tokens.push({ kind: 'word', text: word });
    }
  }
  return tokens;
}

function closingQuote(input: string, start: number): number {
  for (let i = start + 1; i < input.length; i += 1) {
    if (input[i] === '\\') i += 1;
    else if (input[i] === '"') return i;
  }
  throw invalidFilter('The filter has a string without its closing double quote.');
}

function closingBracket(input: string, start: number): number {
  for (let i = start + 1; i < input.length; i += 1) {
    if (input[i] === '"') i = closingQuote(input, i);
    else if (input[i] === ']') return i;
    else if (input[i] === '[') throw invalidFilter('Nested value filters ("[" inside "[...]") are not supported.');
  }
  throw invalidFilter('The filter has a "[" without its closing "]".');
}

function decodeString(literal: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    throw invalidFilter('A quoted value of the filter is not a valid JSON string.');
  }
}

/**
 * Parses `<path> eq <value> [and <path> eq <value>]...`. `what` names the expression in
 * messages (`filter`, `value filter`).
 */
export function parseComparisons(input: string, what = 'filter'): Comparison[] {
  if (input.length > MAX_FILTER_LENGTH) throw invalidFilter(`The ${what} has ${input.length} characters; at most ${MAX_FILTER_LENGTH} are accepted.`);
  const tokens = tokenize(plusAsSpace(input));
  if (tokens.length === 0) throw invalidFilter(`The ${what} is empty; expected ${SCOPE}.`);
  const comparisons: Comparison[] = [];
  let i = 0;
  for (;;) {
    const [path, operator, value] = [tokens[i], tokens[i + 1], tokens[i + 2]];
    if (path?.kind === 'paren') throw invalidFilter(`Grouping with parentheses is not supported in the ${what}; use ${SCOPE}.`);
    if (path?.kind !== 'word') throw invalidFilter(`The ${what} must start each comparison with an attribute name; use ${SCOPE}.`);
    if (path.text.toLowerCase() === 'not') throw invalidFilter(`"not" is not supported in the ${what}; use ${SCOPE}.`);
    const op = operator?.kind === 'word' ? operator.text.toLowerCase() : undefined;
    if (op !== 'eq') {
      if (op && OTHER_OPERATORS.has(op)) throw invalidFilter(`The operator "${op}" is not supported in the ${what}; only eq is (${SCOPE}).`);
      throw invalidFilter(`Expected the operator eq after "${path.text}" in the ${what}; use ${SCOPE}.`);
    }
    if (!value || value.kind === 'paren') throw invalidFilter(`Expected a value after "${path.text} eq" in the ${what}.`);
    comparisons.push({ path: path.text, value: { text: value.text, quoted: value.kind === 'string' } });
    i += 3;
    const joiner = tokens[i];
    if (!joiner) return comparisons;
    const word = joiner.kind === 'word' ? joiner.text.toLowerCase() : joiner.text;
    if (word === 'or') throw invalidFilter(`"or" is not supported in the ${what}; use ${SCOPE}.`);
    if (word !== 'and') throw invalidFilter(`Unexpected "${joiner.text}" in the ${what}; comparisons are joined by and.`);
    i += 1;
  }
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

/** A `filter` query parameter of GET /Users, as clauses that must all hold. */
export function parseUserFilter(input: string): UserClause[] {
  return parseComparisons(input).map(({ path, value }) => {
    const parsed = parseAttributePath(path, () => invalidFilter(`Filtering on "${path}" is not supported; use eq on ${SUPPORTED}.`));
    if (parsed.kind !== 'attribute' || parsed.schema !== 'core') throw invalidFilter(`Filtering on "${path}" is not supported; use eq on ${SUPPORTED}.`);
    const name = `${parsed.attribute}${parsed.subAttribute ? `.${parsed.subAttribute}` : ''}`.toLowerCase();
    const attribute = USER_FILTER_ATTRIBUTES[name];
    if (!attribute) throw invalidFilter(`Filtering on "${path}" is not supported; use eq on ${SUPPORTED}.`);
    if (parsed.valueFilter === undefined) return { attribute, value: value.text };
    const inner = parsed.valueFilter;
    if (attribute !== 'emails.value' || inner.length !== 1 || inner[0].path.toLowerCase() !== 'type') {
      throw invalidFilter(`The value filter in "${path}" is not supported; only emails[type eq "<type>"].value is.`);
    }
    return { attribute, emailType: inner[0].value.text, value: value.text };
  });
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
 * §3.5.2). Names are returned as written; callers match them case-insensitively.
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
  return {
    kind: 'attribute',
    schema,
    qualified,
    attribute,
    ...(filter !== undefined ? { valueFilter: parseComparisons(filter, 'value filter') } : {}),
    ...(subAttribute !== undefined ? { subAttribute } : {}),
  };
}
