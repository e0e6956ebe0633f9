/**
 * Reading the configuration files of other dashboards (CONV-6): YAML or JSON text in, data out, with every error
 * naming the file, line and column. Bounded: the size of a file, the number of files, the nesting depth and YAML
 * aliases. Files are named by paths relative to the directory the user gave; a name that leaves it is refused before
 * anything is read. No I/O here: the caller hands over a reader.
 */
import path from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';

export const convertLimits = {
  /** Bytes of one configuration file. */
  fileBytes: 1024 * 1024,
  /** Files one conversion may read (includes and sub-pages count). */
  files: 64,
  /** Depth of nested maps and lists. */
  depth: 64,
  /** Alias resolutions of one YAML document (a billion-laughs document needs many). */
  aliases: 100,
} as const;

/** A configuration that cannot be converted: `file:line:column: reason` when the place is known. */
export class ConvertError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly column: number | null,
    readonly reason: string,
  ) {
    super(line === null ? `${file}: ${reason}` : `${file}:${line}:${column}: ${reason}`);
  }
}

/** Reads a file named relative to the input directory; null when there is no such file. */
export type FileReader = (relativePath: string) => string | null;

export type PathKey = string | number;

/** A parsed configuration file that can say where each of its values is. */
export interface SourceFile {
  name: string;
  data: unknown;
  /** An error at the value at `at` (or at the file's start when the path is not found). */
  fail(at: readonly PathKey[], reason: string): ConvertError;
  /** `line:column` of the value at `at`, for the report. */
  where(at: readonly PathKey[]): string;
  /** CONV-10: the places (as written) of the names and values whose control characters were removed. */
  cleaned: PathKey[][];
}

/** CONV-10: control characters no Tessera text may hold (NUL refuses an import whole); tab and line breaks stay. */
export const controlCharacters = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** `data` with control characters removed from every string and map key; `cleaned` collects where (paths as written). */
function withoutControlCharacters(data: unknown, at: PathKey[], cleaned: PathKey[][]): unknown {
  if (typeof data === 'string') {
    const clean = data.replace(controlCharacters, '');
    if (clean !== data) cleaned.push(at);
    return clean;
  }
  if (Array.isArray(data)) return data.map((entry, index) => withoutControlCharacters(entry, [...at, index], cleaned));
  if (typeof data !== 'object' || data === null) return data;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const clean = key.replace(controlCharacters, '');
    if (clean !== key) cleaned.push([...at, key]);
    result[clean] = withoutControlCharacters(value, [...at, key], cleaned);
  }
  return result;
}

/** The files one conversion reads: counted, each read once, confined to the input directory. */
export class SourceSet {
  private readonly cache = new Map<string, SourceFile>();
  /** Called with each file once it is parsed (the report's hook). */
  onLoad: (file: SourceFile) => void = () => undefined;

  constructor(private readonly reader: FileReader) {}

  /**
   * The file `reference` names, relative to the file `from` (null: the input directory). A name that is absolute
   * or leaves the input directory is refused without reading it (CONV-6).
   */
  load(reference: string, from: { file: SourceFile; at: readonly PathKey[] } | null): SourceFile {
    const name = confinedPath(reference, from?.file.name ?? null);
    if (name === null) {
      const reason = `${JSON.stringify(reference)} is outside the input directory: refused, not read`;
      throw from ? from.file.fail(from.at, reason) : new ConvertError(reference, null, null, reason);
    }
    const known = this.cache.get(name);
    if (known) return known;
    if (this.cache.size >= convertLimits.files) {
      const reason = `more than ${convertLimits.files} files to read`;
      throw from ? from.file.fail(from.at, reason) : new ConvertError(name, null, null, reason);
    }
    let text: string | null;
    try {
      text = this.reader(name);
    } catch (error) {
      if (error instanceof ConvertError && from) throw from.file.fail(from.at, `${name}: ${error.reason}`);
      throw error;
    }
    if (text === null) {
      const reason = `no such file: ${name}`;
      throw from ? from.file.fail(from.at, reason) : new ConvertError(name, null, null, reason);
    }
    const file = parseSource(name, text);
    this.cache.set(name, file);
    this.onLoad(file);
    return file;
  }

  /** Names of the files read so far, in the order they were first read. */
  names(): string[] {
    return [...this.cache.keys()];
  }
}

/** The normalized relative path of `reference` seen from the file `from`, or null when it leaves the directory. */
export function confinedPath(reference: string, from: string | null): string | null {
  if (reference === '' || reference.includes('\0') || path.posix.isAbsolute(reference) || path.win32.isAbsolute(reference)) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(reference)) return null;
  const base = from === null ? '.' : path.posix.dirname(from);
  const joined = path.posix.normalize(path.posix.join(base, reference.replace(/\\/g, '/')));
  if (joined === '..' || joined.startsWith('../') || joined === '.') return null;
  return joined;
}

function lineColumn(counter: LineCounter, offset: number): { line: number; column: number } {
  const { line, col } = counter.linePos(offset);
  return { line, column: col };
}

function nestingError(name: string, text: string): ConvertError | null {
  // Flow collections nest without indentation; the parser itself recurses on them, so they are counted first.
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth > convertLimits.depth) {
        const before = text.slice(0, i);
        const line = before.split('\n').length;
        return new ConvertError(name, line, i - before.lastIndexOf('\n'), `nested deeper than ${convertLimits.depth} levels`);
      }
    } else if (c === ']' || c === '}') depth = Math.max(0, depth - 1);
    else if (c === '\n') quote = null;
  }
  return null;
}

function tooDeep(value: unknown, depth: number): boolean {
  if (depth > convertLimits.depth) return true;
  if (Array.isArray(value)) return value.some((entry) => tooDeep(entry, depth + 1));
  if (typeof value === 'object' && value !== null) return Object.values(value).some((entry) => tooDeep(entry, depth + 1));
  return false;
}

/** Parses one YAML (or JSON, which is YAML) file with the limits of CONV-6. */
export function parseSource(name: string, text: string): SourceFile {
  if (Buffer.byteLength(text, 'utf8') > convertLimits.fileBytes) {
    throw new ConvertError(name, null, null, `larger than ${convertLimits.fileBytes} bytes`);
  }
  const nesting = nestingError(name, text);
  if (nesting) throw nesting;
  const counter = new LineCounter();
  let document: Document;
  try {
    document = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: false });
  } catch (error) {
    throw new ConvertError(name, null, null, `cannot parse: ${(error as Error).message}`);
  }
  const first = document.errors[0];
  if (first) {
    const { line, column } = lineColumn(counter, first.pos[0]);
    throw new ConvertError(name, line, column, `invalid YAML: ${first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: convertLimits.aliases });
  } catch (error) {
    const reason = error instanceof RangeError ? `nested deeper than ${convertLimits.depth} levels` : `more than ${convertLimits.aliases} YAML alias uses`;
    throw new ConvertError(name, null, null, reason);
  }
  if (tooDeep(data, 0)) throw new ConvertError(name, null, null, `nested deeper than ${convertLimits.depth} levels`);
  const cleaned: PathKey[][] = [];
  data = withoutControlCharacters(data, [], cleaned);

  const position = (at: readonly PathKey[]) => {
    const node = at.length === 0 ? document.contents : (document.getIn(at, true) as { range?: [number, number, number] } | undefined);
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    return range ? lineColumn(counter, range[0]) : null;
  };
  return {
    name,
    data,
    cleaned,
    fail(at, reason) {
      const place = position(at);
      return new ConvertError(name, place?.line ?? 1, place?.column ?? 1, reason);
    },
    where(at) {
      const place = position(at);
      return place ? `${place.line}:${place.column}` : '';
    },
  };
}
