'use strict';
/**
 * The YAML of a request body as data (FILE-1, INPUT-5), in plain JavaScript: it runs on a worker thread
 * (src/http/yamlBody.ts for bodies, src/boards/fleet/provisioningSources.ts for provisioned files), outside any TypeScript
 * loader. See yamlParse.d.ts for what it returns.
 */
/** The yaml package, loaded on the first YAML body: a start does not load it (about 2% of a start's CPU). */
const yaml = () => require('yaml');

/** A plain integer of at most 15 digits: always held exactly, so not sent back for the exact-number check. */
const safeInteger = /^-?(?:0|[1-9]\d{0,14})$/;

/**
 * Whether `value`, written as JSON, takes more than `limit` characters. Shared values (what aliases give) count
 * every time they occur, as they would once serialized; the walk stops as soon as the limit is passed, so it
 * costs at most `limit` steps however far the aliases would expand.
 */
function expandsBeyond(value, limit) {
  let size = 0;
  const stack = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') size += node.length + 2;
    else if (node === null || typeof node !== 'object') size += String(node).length;
    else if (Array.isArray(node)) {
      size += 1 + node.length;
      for (const inner of node) stack.push(inner);
    } else {
      size += 1;
      for (const key of Object.keys(node)) {
        size += key.length + 4;
        stack.push(node[key]);
      }
    }
    if (size > limit) return true;
  }
  return false;
}

/**
 * Parses `text` with the core schema (no dates or binary) and unique keys, at most `maxAliasCount` aliases, and at
 * most `maxExpandedSize` characters of JSON once aliases are expanded (INPUT-5). Answers
 * `{ value, numbers }` (the source text of every number that might not be held exactly, in document order, for the
 * caller's check), or `{ refusal }`.
 */
function yamlToData(text, { maxAliasCount, maxExpandedSize }) {
  const { parseDocument, visit } = yaml();
  const document = parseDocument(text, { schema: 'core', uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) {
    const [first] = document.errors;
    // prettyErrors off leaves linePos unset: the line is counted from the error's offset.
    const offset = first.pos?.[0];
    const line = first.linePos?.[0]?.line ?? (typeof offset === 'number' ? text.slice(0, offset).split('\n').length : null);
    return { refusal: { kind: 'syntax', message: first.message.split('\n')[0], line } };
  }
  const numbers = [];
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value !== 'number') return;
      const source = node.source ?? String(node.value);
      if (!Number.isFinite(node.value) || (node.source !== undefined && !safeInteger.test(source))) numbers.push(source);
    },
  });
  let value;
  try {
    value = document.toJS({ maxAliasCount });
  } catch (error) {
    if (error instanceof ReferenceError) return { refusal: { kind: 'aliases', message: error.message } };
    throw error;
  }
  if (expandsBeyond(value, maxExpandedSize)) return { refusal: { kind: 'expanded' } };
  return { value, numbers };
}

/** At most this many aliases in a document (the yaml library counts an alias of a collection by the collection's nodes). */
const maxAliasCount = 100;

module.exports = { yamlToData, maxAliasCount };
