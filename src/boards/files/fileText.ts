/**
 * A board file's text as data, or where and why it does not parse (CLI-9), and where a path lies in it: the parser
 * the CLI's `-f` reads files with. Provisioning and its drift read on a worker thread with core/yamlParse.js instead
 * (PROV-7: bounded in time and aliases), which keeps no node positions. The yaml package is loaded on first use. No I/O.
 */
import path from 'node:path';
import type { LineCounter as LineCounterType, Node as YamlNode } from 'yaml';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = (): typeof import('yaml') => require('yaml') as typeof import('yaml');

export interface TextPosition {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

export interface TextProblem {
  position: TextPosition | null;
  message: string;
}

/** Where a JSON syntax error is: Node names the position (`at position 14`), newer versions the line and column too. */
function jsonErrorPosition(text: string, error: Error): TextPosition | null {
  const lineColumn = /line (\d+) column (\d+)/.exec(error.message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /position (\d+)/.exec(error.message);
  if (!position) return null;
  const before = text.slice(0, Number(position[1])).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/** A board file's content (`.json` as JSON, anything else as YAML), or the problem with its text. */
export function parseFileText(file: string, text: string): { content: unknown } | { problem: TextProblem } {
  if (path.extname(file).toLowerCase() === '.json') {
    try {
      return { content: JSON.parse(text) };
    } catch (error) {
      return { problem: { position: jsonErrorPosition(text, error as Error), message: (error as Error).message } };
    }
  }
  const document = yaml().parseDocument(text);
  const error = document.errors[0];
  if (error) {
    const at = error.linePos?.[0];
    return { problem: { position: at ? { line: at.line, column: at.col } : null, message: error.message.split('\n')[0] } };
  }
  return { content: document.toJS() };
}

/**
 * Where a place of the data (`['items', 0, 'kind']`) is written in the file's text (YAML or JSON, which the YAML
 * parser reads too): a property at its key, an array element at its start. A place the text does not hold (a
 * missing property) is located at the deepest part of it the text holds; null when the text does not parse.
 */
export function positionIn(text: string, place: readonly (string | number)[]): TextPosition | null {
  const { LineCounter, isMap, isSeq, isScalar, parseDocument } = yaml();
  const lineCounter: LineCounterType = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  if (document.errors.length > 0) return null;
  let node: unknown = document.contents;
  let offset = (node as YamlNode | null)?.range?.[0] ?? 0;
  for (const part of place) {
    if (isMap(node)) {
      const pair = node.items.find((item) => (isScalar(item.key) ? String(item.key.value) : String(item.key)) === String(part));
      if (!pair) break;
      offset = (pair.key as YamlNode | null)?.range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof part === 'number' && part < node.items.length) {
      node = node.items[part];
      offset = (node as YamlNode | null)?.range?.[0] ?? offset;
    } else break;
  }
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}
