import type { FieldError } from '../errors';

/**
 * Well-formed Unicode text (docs/decisions.md): a JSON string may escape a lone UTF-16
 * surrogate (`"\ud800"`), which JSON's syntax allows but which is no Unicode character
 * (RFC 8259 §8.2; I-JSON, RFC 7493 §2.1, says it MUST NOT be sent). Stored, it comes back in
 * every list and audit page that holds it, and strict parsers (jq, serde_json) refuse those
 * whole pages. Details name the kind and the position, never the text.
 */

/** The first lone surrogate of `value`: its code unit and its position in characters, from 1 (as the other character rules count); undefined when the text is well-formed. */
export function loneSurrogateIn(value: string): { readonly codeUnit: string; readonly at: number } | undefined {
  if (value.isWellFormed()) return undefined;
  // Spread splits by code points: a pair is one character, a lone surrogate is one of its own.
  const characters = [...value];
  const at = characters.findIndex((c) => c.length === 1 && /[\ud800-\udfff]/.test(c));
  return { codeUnit: `U+${characters[at]!.charCodeAt(0).toString(16).toUpperCase()}`, at: at + 1 };
}

/** The detail for text that is not well-formed: which surrogate, where, and how to send such a character. `subject` starts it ("Must be", "The member name must be"). */
export function notWellFormedDetail(subject: string, value: string): string {
  const lone = loneSurrogateIn(value);
  const where = lone ? `: it holds a lone surrogate (${lone.codeUnit}) at character ${lone.at}` : '';
  return `${subject} well-formed Unicode text${where}. A character above U+FFFF is sent as UTF-8 or escaped as a surrogate pair (\\ud83d\\ude00).`;
}

const escapeToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

interface Step {
  readonly value: unknown;
  /** The JSON Pointer tokens to this value (member names already well-formed). */
  readonly path: readonly string[];
  /** A member name that is not well-formed: the step reports it and looks no further. */
  readonly illFormedName?: string;
}

/**
 * Every string of a parsed JSON body, value or member name, at any depth, that is not
 * well-formed, in document order: one FieldError each, at the value's pointer (a member name:
 * the pointer of its member, with U+FFFD standing for the lone surrogate, since a pointer
 * holding it would make the answer itself ill-formed; what the member holds is not looked at).
 * Walks without recursion, as the depth check does.
 */
export function illFormedStrings(body: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const stack: Step[] = [{ value: body, path: [] }];
  while (stack.length > 0) {
    const { value, path, illFormedName } = stack.pop()!;
    if (illFormedName !== undefined) {
      errors.push({ pointer: pointerOf(path), detail: notWellFormedDetail('The member name must be', illFormedName) });
      continue;
    }
    if (typeof value === 'string') {
      if (!value.isWellFormed()) errors.push({ pointer: pointerOf(path), detail: notWellFormedDetail('Must be', value) });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const children = Array.isArray(value) ? value.map((child, i) => [String(i), child] as const) : Object.entries(value as Record<string, unknown>);
    // Pushed last first, so that errors come in document order.
    for (let i = children.length - 1; i >= 0; i--) {
      const [key, child] = children[i]!;
      stack.push(key.isWellFormed() ? { value: child, path: [...path, key] } : { value: child, path: [...path, key.toWellFormed()], illFormedName: key });
    }
  }
  return errors;
}

const pointerOf = (path: readonly string[]): string => path.map((p) => `/${escapeToken(p)}`).join('');

/**
 * Query or path parameters (names and values) that are not well-formed, one FieldError per
 * parameter, named by it (U+FFFD standing for a lone surrogate in a name). Percent-decoding
 * cannot make one (`%ED%A0%80` is no UTF-8), but what a gateway hands on is checked as a body
 * is: a handler would store it, or echo it in a detail.
 */
export function illFormedParameters(...sources: readonly (Readonly<Record<string, string | readonly string[] | undefined>> | null | undefined)[]): FieldError[] {
  const errors = new Map<string, FieldError>();
  for (const [name, given] of sources.flatMap((source) => Object.entries(source ?? {}))) {
    const shown = name.toWellFormed();
    if (errors.has(shown)) continue;
    if (!name.isWellFormed()) {
      errors.set(shown, { parameter: shown, detail: notWellFormedDetail('The parameter name must be', name) });
      continue;
    }
    const value = (typeof given === 'string' ? [given] : (given ?? [])).find((v) => !v.isWellFormed());
    if (value !== undefined) errors.set(name, { parameter: name, detail: notWellFormedDetail('Must be', value) });
  }
  return [...errors.values()];
}

/** The message of parameter errors: `errors` names each; the message says "parameter", as a path parameter is no query parameter. */
export const illFormedParametersMessage = (errors: readonly FieldError[]): string => {
  const names = errors.map((e) => ('parameter' in e ? e.parameter : ''));
  return errors.length === 1 ? `Parameter ${names[0]}: ${errors[0]!.detail}` : `The parameters ${names.join(', ')} are not well-formed Unicode text (lone surrogates).`;
};
