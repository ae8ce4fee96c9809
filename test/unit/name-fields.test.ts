import { queryWords, wordCharacters } from '../../services/shared/ddb/search';
import fc from 'fast-check';
import * as z from 'zod';
import { createUploadSessionBody } from '../../services/documents/schemas';
import { createMessageBody } from '../../services/messages/schemas';
import { freeTextCharacters, NOT_IN_NAME, NOT_IN_TEXT, nullableName, nullableText, requiredName } from '../../services/shared/schemas/fields';

/**
 * The characters names, labels and titles refuse (services/shared/schemas/fields.ts): control
 * characters (C0 with tab and line breaks, DEL, C1) and the bidi embeddings, overrides and
 * isolates that reorder how a name displays ("invoice\u202Efdp.exe" shows as "invoiceexe.pdf").
 * Multi-line free texts keep all of them (decisions.md).
 */
const REFUSED: readonly [string, string][] = [
  ['NUL', '\u0000'],
  ['TAB', '\t'],
  ['LF', '\n'],
  ['CR', '\r'],
  ['ESC', '\u001b'],
  ['U+001F', '\u001f'],
  ['DEL', '\u007f'],
  ['U+0080', '\u0080'],
  ['NEL', '\u0085'],
  ['CSI', '\u009b'],
  ['U+009F', '\u009f'],
  ['LS', '\u2028'],
  ['PS', '\u2029'],
  ['LRE', '\u202a'],
  ['RLE', '\u202b'],
  ['PDF', '\u202c'],
  ['LRO', '\u202d'],
  ['RLO', '\u202e'],
  ['LRI', '\u2066'],
  ['RLI', '\u2067'],
  ['FSI', '\u2068'],
  ['PDI', '\u2069'],
];

/** Names as people write them, right-to-left ones and bidi marks included. */
const ACCEPTED = ['Ada Lindqvist', 'Übersicht\u00a0März', 'محمد عبد الله', 'שרה כהן', 'Lager (Süd) \u200f#2', 'A\u200eB', 'x\u061cy', '倉庫 3', 'Team 😀'];

const issuesOf = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues ?? [];

describe('requiredName', () => {
  const name = requiredName('name');

  it.each(REFUSED)('refuses %s inside a name, naming the character and where it is', (_label, character) => {
    const issues = issuesOf(name, `invoice${character}fdp.exe`);
    expect(issues).toHaveLength(1);
    const code = character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    expect(issues[0].message).toBe(
      `name must not contain control characters (U+0000..U+001F, U+007F..U+009F), line or paragraph separators (U+2028, U+2029) or bidirectional embedding, override or isolate characters (U+202A..U+202E, U+2066..U+2069); found U+${code} at character 8.`,
    );
  });

  it.each(ACCEPTED)('accepts %p', (value) => expect(name.parse(value)).toBe(value));

  it('counts the position in characters, not UTF-16 units', () => {
    expect(issuesOf(name, '😀😀\u202eab')[0].message).toMatch(/found U\+202E at character 3\.$/);
  });

  it('still trims first: whitespace controls around a name are dropped, not refused', () => {
    expect(name.parse('\t Lager Nord \r\n')).toBe('Lager Nord');
  });

  it('keeps its other rules and messages', () => {
    expect(issuesOf(name, '  ').map((i) => i.message)).toEqual(['name must not be empty.']);
    expect(issuesOf(name, 'x'.repeat(201)).map((i) => i.message)).toEqual(['name is at most 200 characters.']);
    expect(issuesOf(name, 7).map((i) => i.message)).toEqual(['name is required: a non-empty string.']);
    expect(issuesOf(requiredName('title', 5), 'ab\u202ecdef').map((i) => i.message)).toEqual([
      'title is at most 5 characters.',
      expect.stringMatching(/^title must not contain control characters .*found U\+202E at character 3\.$/),
    ]);
  });

  it('points at the field in a body', () => {
    const body = z.object({ name: requiredName('name'), title: requiredName('title').optional() }).strict();
    expect(issuesOf(body, { name: 'ok', title: 'a\u2067b' }).map((i) => i.path)).toEqual([['title']]);
  });

  it('publishes the same rule as its pattern, so a generated client refuses what the server refuses', () => {
    const schema = z.toJSONSchema(name) as { pattern?: string };
    expect(schema.pattern).toBeDefined();
    const pattern = new RegExp(schema.pattern!);
    for (const [, character] of REFUSED) expect(pattern.test(`a${character}b`)).toBe(false);
    for (const value of ACCEPTED) expect(pattern.test(value)).toBe(true);
  });

  it('refuses exactly what NOT_IN_NAME lists, once trimmed (property)', () => {
    const unit = fc.oneof(fc.constantFrom(...REFUSED.map(([, c]) => c), ' ', '\u200f', '\u00a0', '\u2028', 'a', 'ع'), fc.string({ unit: 'binary', maxLength: 1 }));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 30 }), (value) => {
        const trimmed = value.trim();
        const expected = trimmed.length >= 1 && trimmed.length <= 200 && !NOT_IN_NAME.test(trimmed);
        expect(name.safeParse(value).success).toBe(expected);
      }),
    );
  });
});

describe('nullableName (optional single-line labels)', () => {
  const role = z.object({ role: nullableName('role', 100) }).strict();

  it('clears with null or an empty string and may be left out', () => {
    expect(role.parse({ role: null })).toEqual({ role: null });
    expect(role.parse({ role: '  ' })).toEqual({ role: null });
    expect(role.parse({})).toEqual({});
    expect(role.parse({ role: ' Site lead ' })).toEqual({ role: 'Site lead' });
  });

  it.each(REFUSED)('refuses %s at the field', (_label, character) => {
    const issues = issuesOf(role, { role: `Site${character}lead` });
    expect(issues.map((i) => [i.path, i.message])).toEqual([[['role'], expect.stringMatching(/^role must not contain control characters .* at character 5\.$/)]]);
  });

  it('keeps its own messages', () => {
    expect(issuesOf(role, { role: 3 }).map((i) => i.message)).toEqual(['role must be a string or null.']);
    expect(issuesOf(role, { role: 'x'.repeat(101) }).map((i) => i.message)).toEqual(['role is at most 100 characters.']);
  });
});

/** What free texts refuse: the control characters other than tab and line breaks, DEL and C1. */
const KEPT_IN_TEXT = ['TAB', 'LF', 'CR', 'LS', 'PS', 'LRE', 'RLE', 'PDF', 'LRO', 'RLO', 'LRI', 'RLI', 'FSI', 'PDI'];
const REFUSED_IN_TEXT = REFUSED.filter(([label]) => !KEPT_IN_TEXT.includes(label)).concat([
  ['BEL', '\u0007'],
  ['BS', '\u0008'],
  ['VT', '\u000b'],
  ['FF', '\u000c'],
  ['SO', '\u000e'],
]);

describe('nullableText (multi-line free text) keeps tabs, line breaks and bidi, refuses other controls', () => {
  const notes = nullableText('notes', 2000);
  const body = z.object({ notes }).strict();

  it('keeps tabs, line breaks and bidi formatting inside the text', () => {
    const text = 'Line one\n\tindented\r\nשלום \u2067עולם\u2069 and \u202eoverride\u202c';
    expect(notes.parse(text)).toBe(text);
  });

  it.each(REFUSED_IN_TEXT)('refuses %s inside the text at the field, naming the character and where it is', (_label, character) => {
    const code = character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    expect(issuesOf(body, { notes: `Gate${character}code` }).map((i) => [i.path, i.message])).toEqual([
      [['notes'], `notes must not contain control characters other than tab and line breaks (U+0000..U+0008, U+000B, U+000C, U+000E..U+001F, U+007F..U+009F); found U+${code} at character 5.`],
    ]);
  });

  it('names the first one, counted in characters after trimming', () => {
    expect(issuesOf(notes, '  😀a\u0000b\u001b[31m')[0].message).toMatch(/found U\+0000 at character 3\.$/);
  });

  it('still clears with null or an empty string and keeps its other messages', () => {
    expect(body.parse({ notes: null })).toEqual({ notes: null });
    expect(body.parse({ notes: ' ' })).toEqual({ notes: null });
    expect(issuesOf(body, { notes: 3 }).map((i) => i.message)).toEqual(['notes must be a string or null.']);
    expect(issuesOf(body, { notes: 'x'.repeat(2001) }).map((i) => i.message)).toEqual(['notes is at most 2000 characters.']);
  });

  it('publishes the same rule as its pattern', () => {
    const schema = z.toJSONSchema(body, { io: 'input' }) as unknown as { properties: { notes: { anyOf: { pattern?: string }[] } } };
    const pattern = new RegExp(schema.properties.notes.anyOf.find((s) => s.pattern)!.pattern!);
    for (const [, character] of REFUSED_IN_TEXT) expect(pattern.test(`a${character}b`)).toBe(false);
    for (const value of ['a\tb\nc\r\nd', 'שלום \u2067עולם\u2069', ...ACCEPTED]) expect(pattern.test(value)).toBe(true);
  });

  it('refuses exactly what NOT_IN_TEXT lists, once trimmed (property)', () => {
    const unit = fc.oneof(fc.constantFrom(...REFUSED.map(([, c]) => c), '\t', '\n', '\r', ' ', '\u200f', '\u2028', 'a', 'ع'), fc.string({ unit: 'binary', maxLength: 1 }));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 30 }), (value) => {
        expect(notes.safeParse(value).success).toBe(!NOT_IN_TEXT.test(value.trim()));
      }),
    );
  });
});

describe('hand-written free texts share the rule (freeTextCharacters)', () => {
  it('is a check that points at its own field', () => {
    const reason = z.object({ reason: z.string().trim().min(1).check(freeTextCharacters('reason')) }).strict();
    expect(issuesOf(reason, { reason: 'late\u001b[2Jbus' }).map((i) => [i.path, i.message])).toEqual([[['reason'], expect.stringMatching(/^reason must not contain control characters other than tab and line breaks .*found U\+001B at character 5\.$/)]]);
    expect(reason.parse({ reason: 'late\n\tbus' })).toEqual({ reason: 'late\n\tbus' });
  });

  it('applies to a message body', () => {
    const message = { subject: 'Hello', body: 'Line\u0000two', audience: { type: 'EVERYONE' } };
    expect(issuesOf(createMessageBody, message).map((i) => i.path)).toEqual([['body']]);
    expect(createMessageBody.parse({ ...message, body: 'Line\r\ntwo\tthree' }).body).toBe('Line\r\ntwo\tthree');
  });
});

describe('document names reuse the shared rule and add slashes', () => {
  const body = (name: string) => ({ name, contentType: 'application/pdf', size: 1, sha256: 'a'.repeat(64) });

  it.each(REFUSED)('refuses %s with the shared message', (_label, character) => {
    const issues = issuesOf(createUploadSessionBody, body(`invoice${character}fdp.exe`));
    expect(issues.map((i) => [i.path, i.message])).toEqual([[['name'], expect.stringMatching(/^name must not contain control characters .* at character 8\.$/)]]);
  });

  it('refuses slashes with a message of its own', () => {
    for (const name of ['a/b.txt', 'a\\b.txt']) {
      expect(issuesOf(createUploadSessionBody, body(name)).map((i) => [i.path, i.message])).toEqual([[['name'], 'name must not contain slashes (/ or \\).']]);
    }
  });

  it('accepts letters beyond C1 and bidi marks', () => {
    for (const name of ['Übersicht\u00a0März.pdf', 'עבודה\u200f.pdf']) expect(createUploadSessionBody.parse(body(name)).name).toBe(name);
  });
});

describe('queryWords: a search needs a letter or digit', () => {
  it('keeps an e-mail or article number whole, and finds no word in punctuation alone', () => {
    expect(queryWords('Ada.L@Example.com')).toEqual(['ada.l@example.com']);
    expect(queryWords('AB-12')).toEqual(['ab-12']);
    for (const q of ['--', '..', '_', '@-.', ' !?! ']) expect([q, queryWords(q)]).toEqual([q, []]);
  });

  it('takes letters and digits of every script, and counts them by character', () => {
    expect(queryWords('Иван')).toEqual(['иван']);
    expect(queryWords('王小明 ٣')).toEqual(['王小明', '٣']);
    expect(wordCharacters('王 😀')).toBe(1);
    expect(wordCharacters('𠀀𠀁')).toBe(2);
  });
});
