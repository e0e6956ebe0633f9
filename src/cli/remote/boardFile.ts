/** Board files on disk: their format, their text, and what the CLI reads from them (name, source, element kinds). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, parseDocument } from 'yaml';
import { UsageError } from '../errors';
import type { BoardFile, FileFormat } from './api';

export interface LocalBoardFile {
  path: string;
  format: FileFormat;
  /** The file as written: this is what is sent. */
  text: string;
  /** The file as data, or null when it does not parse (the server then says why). */
  content: Partial<BoardFile> | null;
}

/** The format an extension names, or null for other extensions. */
export function formatOfExtension(file: string): FileFormat | null {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.json') return 'json';
  if (extension === '.yaml' || extension === '.yml') return 'yaml';
  return null;
}

function formatOf(file: string, text: string): FileFormat {
  return formatOfExtension(file) ?? (text.trimStart().startsWith('{') ? 'json' : 'yaml');
}

function parseContent(text: string, format: FileFormat): Partial<BoardFile> | null {
  try {
    const value: unknown = format === 'json' ? JSON.parse(text) : parseYaml(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Partial<BoardFile>) : null;
  } catch {
    return null;
  }
}

export function boardFileFromText(file: string, text: string): LocalBoardFile {
  const format = formatOf(file, text);
  return { path: file, format, text, content: parseContent(text, format) };
}

export function readBoardFile(file: string): LocalBoardFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `No such file: ${file}` : `Cannot read ${file}: ${(error as Error).message}`);
  }
  return boardFileFromText(file, text);
}

/** The file without its `source` block, so that a replace is not guarded by the version it was taken at. */
export function withoutSource(file: LocalBoardFile): LocalBoardFile {
  if (!file.content?.source) return file;
  const { source: _source, ...content } = file.content;
  if (file.format === 'json') return { ...file, text: `${JSON.stringify(content, null, 2)}\n`, content };
  // Through the YAML document, so that comments and layout of the rest of the file stay as they are.
  const document = parseDocument(file.text);
  document.delete('source');
  return { ...file, text: document.toString({ lineWidth: 0 }), content };
}

/**
 * The file guarded by `version` instead of the version it was taken at (CLI-2): its `source` block kept, its version
 * replaced, the rest of the text as it is.
 */
export function withSourceVersion(file: LocalBoardFile, version: number): LocalBoardFile {
  if (!file.content?.source) return file;
  const content = { ...file.content, source: { ...file.content.source, version } };
  if (file.format === 'json') return { ...file, text: `${JSON.stringify(content, null, 2)}\n`, content };
  const document = parseDocument(file.text);
  document.setIn(['source', 'version'], version);
  return { ...file, text: document.toString({ lineWidth: 0 }), content };
}

/** The board and revision the file was taken from, when it says. */
export function sourceOf(file: LocalBoardFile): { boardId: string; revision: number | null } | null {
  const source = file.content?.source;
  if (!source || typeof source.boardId !== 'string') return null;
  return { boardId: source.boardId, revision: typeof source.revision === 'number' ? source.revision : null };
}
