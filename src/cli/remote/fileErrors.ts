/**
 * CLI-9: errors about board files in the files' own terms: a file that does not parse as `file:line:column: why`, and
 * a set the server refused as one line per problem, `file:line:column: items[0].kind: <rule>`, mapped back from the
 * set's position (`/requestBody/boards/4/items/0/kind`) to the file that board came from.
 */
import { parseFileText, positionIn, type TextPosition } from '../../boards/files/fileText';
import { RemoteError } from '../errors';

export interface TextFile {
  path: string;
  text: string;
}

/** The data of a file, or the error naming the file, line and column of its syntax error. */
export function parsedOrThrow(file: string, text: string): unknown {
  const parsed = parseFileText(file, text);
  if ('content' in parsed) return parsed.content;
  // The YAML parser's message repeats the place: it is said once, in front.
  const message = parsed.problem.message.replace(/ at line \d+, column \d+:?$/, '');
  throw new Error(`${located(file, parsed.problem.position)}: ${message}`);
}

const located = (file: string, at: TextPosition | null) => (at ? `${file}:${at.line}:${at.column}` : file);

/** A JSON pointer's parts (`~1`, `~0` decoded), array indexes as numbers. */
function pointerParts(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

/** A place in a file as its author writes it: `items[0].kind`, `options["my option"]`. */
export function pathInFile(parts: readonly (string | number)[]): string {
  return parts
    .map((part, i) => (typeof part === 'number' ? `[${part}]` : /^[A-Za-z_$][\w$]*$/.test(part) ? `${i === 0 ? '' : '.'}${part}` : `[${JSON.stringify(part)}]`))
    .join('');
}

interface Problem {
  instancePath: string;
  message: string;
}

/** The problems of a validation failure (ERR-6), or its issues for a server that does not send them. */
function problemsOf(data: Record<string, unknown>): Problem[] {
  const listed = Array.isArray(data.problems) ? data.problems : Array.isArray(data.issues) ? data.issues : [];
  return listed.filter((p): p is Problem => typeof p === 'object' && p !== null && typeof (p as Problem).instancePath === 'string');
}

/**
 * One problem of a set (or of one file sent as the body: `shape` file): on the board file it is about, at its line and
 * column there, in the file's terms.
 */
function problemLine(problem: Problem, files: readonly TextFile[], shape: 'set' | 'file'): string {
  const parts = pointerParts(problem.instancePath);
  if (parts[0] === 'requestBody' || parts[0] === 'body') parts.shift();
  else if (shape === 'file') return `${pathInFile(parts) || '(the request)'}: ${problem.message}`;
  const inSet = shape === 'set' && parts[0] === 'boards' && typeof parts[1] === 'number';
  const file = shape === 'file' ? files[0] : inSet ? files[parts[1] as number] : undefined;
  if (!file) return `${pathInFile(parts) || '(the request)'}: ${problem.message}`;
  const inFile = shape === 'file' ? parts : parts.slice(2);
  return `${located(file.path, positionIn(file.text, inFile))}: ${pathInFile(inFile) || '(the file)'}: ${problem.message}`;
}

/**
 * CLI-9: a server error about a set (or one file, `shape` file) in terms of its files: a validation failure as one
 * line per problem (file, line, column, path, rule), and names that are not unique in the set (FLEET-2) with every
 * file of each name and where it says it. Any other error as it is.
 */
export function inFileTerms(error: unknown, files: readonly TextFile[], shape: 'set' | 'file' = 'set'): unknown {
  if (!(error instanceof RemoteError) || error.status !== 400) return error;
  const names = error.data.names;
  if (Array.isArray(names) && names.every((name) => typeof name === 'string')) {
    const lines = (names as string[]).map((name) => {
      const where = files
        .filter((file) => {
          const content = parseFileText(file.path, file.text);
          const named = 'content' in content ? (content.content as { name?: unknown } | null)?.name : undefined;
          return typeof named === 'string' && named.toLowerCase() === name.toLowerCase();
        })
        .map((file) => located(file.path, positionIn(file.text, ['name'])));
      return `${name}: ${where.join(', ')}`;
    });
    return new RemoteError(error.message, error.code, error.status, error.data, lines);
  }
  const problems = problemsOf(error.data);
  if (problems.length === 0) return error;
  return new RemoteError(error.message, error.code, error.status, error.data, problems.map((problem) => problemLine(problem, files, shape)));
}
